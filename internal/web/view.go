package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// AskView is one ask as the page shows it: everything the TUI shows, each
// part of the action with its class and key, and what answering it needs.
// Its Digest covers every field a person reads before answering.
type AskView struct {
	ID       string
	User     string
	Agent    string
	Session  string
	Tool     string
	ArgLabel string // "Command", "Path" or "Input"
	ArgText  string
	Cwd      string
	Class    string // the class that decided
	Parts    []PartView
	P        float64
	// BlockBelow and AllowAbove are the thresholds p was held against;
	// HasThresholds is false when a rule or a failure decided.
	BlockBelow, AllowAbove float64
	HasThresholds          bool
	Reason                 string
	Evidence               string
	Key                    string
	AskedAt, ExpiresAt     time.Time
	// Revision is the policy version in force as the page showed it.
	Revision uint64
	// Digest is the SHA-256 (hex) of the fields above.
	Digest string
	// SignApprove says approving needs a fresh passkey signature (a part
	// is of a class in Config.SignClasses); approving for the session
	// always does.
	SignApprove bool
	// Rule is the allow rule that "approve and allow always" would add
	// (policy.Suggest), empty when there is none; it is in the digest.
	Rule string
	// MayRule says this page may offer it: the ask is of limend's owner,
	// the only user who may change the policy.
	MayRule bool
}

// PartView is one part of an action: a simple command of a shell script,
// or the whole call of another tool.
type PartView struct {
	Text   string
	Class  string
	Key    string
	Opaque bool
}

// viewOf builds the view of p under pol (the policy in force, version
// rev; nil when it does not parse: every part is then "unknown").
func viewOf(p *limenv1.PendingAsk, pol *policy.Policy, rev uint64, sign map[string]bool, now time.Time) AskView {
	d := p.GetDecision()
	act := d.GetAction()
	v := AskView{
		ID: p.GetAskId(), User: act.GetUser(), Agent: act.GetAgent(), Session: act.GetSession(),
		Tool: act.GetTool(), Cwd: act.GetCwd(), Class: d.GetRiskClass(), P: d.GetP(),
		Reason: d.GetReason(), Key: d.GetKey(), AskedAt: d.GetTime().AsTime(), ExpiresAt: p.GetExpiresAt().AsTime(),
		Revision: rev,
	}
	v.ArgLabel, v.ArgText = argumentsOf(act)
	if th := d.GetThresholds(); th != nil {
		v.HasThresholds, v.BlockBelow, v.AllowAbove = true, th.GetBlockBelow(), th.GetAllowAbove()
	}
	if ev := d.GetEvidence(); ev != nil && ev.GetLevel() != "" {
		v.Evidence = fmt.Sprintf("%.1f approved, %.1f denied at %s (weight %.1f)", ev.GetApprovals(), ev.GetDenials(), ev.GetLevel(), ev.GetEffectiveCount())
	}
	if a, err := convert.Action(act, now); err == nil {
		env := convert.Env(a)
		if r, err := policy.Suggest(a, env); err == nil {
			v.Rule = r
		}
		for _, part := range action.Parts(a) {
			pv := PartView{Text: part.Subject, Key: part.Keys.Exact(), Opaque: part.Opaque, Class: policy.UnknownClass}
			if pv.Text == "" {
				pv.Text = pv.Key
			}
			if pol != nil {
				pv.Class = pol.ClassOf(part, env).Name
			}
			v.Parts = append(v.Parts, pv)
		}
	}
	// Fail closed: an action limen cannot split into parts, a part it
	// cannot read (opaque), or a policy it cannot parse (nothing is
	// classed) needs the signature too.
	v.SignApprove = sign[v.Class] || len(v.Parts) == 0 || pol == nil
	for _, pv := range v.Parts {
		v.SignApprove = v.SignApprove || sign[pv.Class] || pv.Opaque
	}
	v.Digest = v.digest()
	return v
}

// digest hashes what a person reads before answering, in a fixed order
// (encoding/json writes struct fields in order). The times are left out
// of it but the ask id is in, and an ask's action never changes.
func (v AskView) digest() string {
	shown := struct {
		ID, User, Agent, Session, Tool, ArgLabel, ArgText, Cwd, Class string
		Parts                                                         []PartView
		P, BlockBelow, AllowAbove                                     float64
		HasThresholds                                                 bool
		Reason, Evidence, Key                                         string
		Revision                                                      uint64
		Rule                                                          string
	}{v.ID, v.User, v.Agent, v.Session, v.Tool, v.ArgLabel, v.ArgText, v.Cwd, v.Class, v.Parts,
		v.P, v.BlockBelow, v.AllowAbove, v.HasThresholds, v.Reason, v.Evidence, v.Key, v.Revision, v.Rule}
	b, _ := json.Marshal(shown)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// argumentsOf is what the tool was asked to do, as the TUI shows it: a
// shell command as is, a file tool's path, anything else as indented JSON.
func argumentsOf(a *limenv1.Action) (label, text string) {
	var in map[string]any
	dec := json.NewDecoder(strings.NewReader(a.GetInputJson()))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return "Input", a.GetInputJson()
	}
	if cmd, ok := in["command"].(string); ok && a.GetTool() == "Bash" {
		return "Command", cmd
	}
	if p, ok := in["file_path"].(string); ok && len(in) == 1 {
		return "Path", p
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(in)
	return "Input", strings.TrimRight(buf.String(), "\n")
}
