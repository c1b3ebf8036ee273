// Package engine is the one place where the policy's hard rules and the
// predictor's probability meet and become a verdict (DESIGN.md §1–3). It is
// pure apart from calling the prediction it is given, so every rule of the
// decision is tested here without a daemon.
package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// DecidedBy says who or what settled a verdict.
type DecidedBy int8

const (
	// ByFailsafe is a failure turned into ask. It is the zero value, so a
	// Result nobody filled in still fails closed.
	ByFailsafe DecidedBy = iota
	// ByRule is a hard rule of the policy.
	ByRule
	// ByPrediction is the learned probability against the class thresholds.
	ByPrediction
	// ByHuman is an earlier answer that covers this action (a session grant).
	ByHuman
)

// PredictFunc returns one prediction per ladder, in order. It runs under
// FailClosed, so it may be slow, fail or panic: the decision is then ask.
type PredictFunc func(ctx context.Context, ladders []action.Ladder) ([]predictor.Prediction, error)

// Input is everything a decision needs besides the prediction.
type Input struct {
	Parts  []action.Part
	Env    policy.Env
	Policy *policy.Policy // nil means the policy could not be loaded: ask
	// Granted reports whether a person already approved this exact key for
	// the session (an answer with session scope).
	Granted func(key string) bool
	// ApprovedInSession reports whether the person approved this exact key
	// in this session with any scope, once included: there one approval
	// is evidence enough for the prediction to allow a repeat, and beyond
	// the session it is not (answeredOnce).
	ApprovedInSession func(key string) bool
	// NoSession says the action names no session: an approval for the
	// session covers nothing, and the reasons do not offer one.
	NoSession bool
	// Draw is a uniform random number in [0, 1) for exploration.
	Draw float64
	// Wrote, if set, reports whether an agent wrote a file that the Runs
	// entry run of Parts[part] names (action.RunsMatch) since a person
	// last allowed running it, counting what the parts before it write
	// (tar xf notes.tgz && make) but not what the part itself does (git
	// apply runs git's hooks, and writes the tree they are in): a part
	// that runs such a file is asked (written.go).
	Wrote func(part int, run string) bool
	// Plan, if set, is NewPlan(Policy, Parts, Env), made earlier and
	// reused: the rules and classes of an action depend only on the
	// action and the policy, and matching them is most of Decide's work.
	// A plan made for another policy is ignored.
	Plan *Plan
}

// Plan is the part of a decision that depends only on the action and the
// policy: each part's hard rule and risk class. It is immutable, so one
// plan may serve any number of concurrent decisions on the same action.
type Plan struct {
	pol   *policy.Policy
	parts []planned
	read  []PartResult // each part as a decision starts reading it (results)
}

type planned struct {
	action.Part
	rule      policy.Rule
	ruled     bool // a hard rule matches
	class     *policy.Class
	exactOnly bool // only an approval of its exact key can let the prediction allow it (exactOnly)
}

// NewPlan matches each part against pol's hard rules and risk classes.
func NewPlan(pol *policy.Policy, parts []action.Part, env policy.Env) *Plan {
	p := &Plan{pol: pol, parts: make([]planned, len(parts))}
	for i, part := range parts {
		p.parts[i].Part = part
		p.parts[i].exactOnly = exactOnly(part)
		if pol != nil {
			p.parts[i].rule, p.parts[i].ruled = pol.RuleFor(part, env)
			p.parts[i].class = pol.ClassOf(part, env)
			if r := p.parts[i].rule; p.parts[i].ruled && r.Verdict == policy.Allow && strings.Contains(r.Pattern, "*") && action.BeyondRules(part) != "" {
				// Bash(git log:*) was written for git log, not for
				// git log --output=~/.bashrc: the part is decided as if no
				// rule matched (block and ask rules still apply).
				p.parts[i].ruled = false
			}
		}
	}
	p.read = p.readParts()
	return p
}

// Result is a decision and the reasons for it.
type Result struct {
	Verdict    policy.Verdict
	DecidedBy  DecidedBy
	Prediction predictor.Prediction // of the deciding part; zero when no prediction ran
	Thresholds policy.Thresholds
	Class      string
	Key        string // most specific key of the deciding part
	Rule       string // the rule that decided, if one did
	Reason     string
	// Parts are every part of the action as this decision read it, in
	// order; the one with Decided set gave the verdict (Class and Key
	// are its). Empty when the decision ended before the parts were
	// read (no policy, no parts).
	Parts []PartResult
}

// PartResult is one part of an action as a decision read it.
type PartResult struct {
	Text  string // the part's subject, or its tool when it has none
	Key   string // its most specific key
	Class string
	Rule  string // "block Bash(rm -rf /)": the hard rule that matched it, if any
	// Weighed says Verdict is the part's own: the decision reached it
	// (a block rule on an earlier part ends a decision before the parts
	// after it are weighed).
	Weighed bool
	Verdict policy.Verdict
	// Predicted says P is the part's predicted approval probability.
	Predicted bool
	P         float64
	Decided   bool // this part gave the action its verdict
}

// Decide returns the verdict for one action. Block rules win over ask rules,
// which win over allow rules, which win over the prediction; each part of a
// compound command is ruled on by itself, and the action as a whole gets the
// worst verdict of its parts. Any failure on the way is ask.
func Decide(ctx context.Context, in Input, predict PredictFunc) Result {
	// limen's own controls come before everything a person or the policy
	// could have said: no approval history, grant, exploration draw or
	// allow rule lets an agent answer its own asks or unhook limen. A
	// block rule that matches too keeps its own reason.
	control := ControlOf(in.Parts)
	pol := in.Policy
	if pol == nil && control != nil {
		return *control
	}
	if pol == nil {
		return Result{Verdict: policy.Ask, Reason: "the policy could not be loaded, so limen asks a person (failing closed)"}
	}
	if len(in.Parts) == 0 {
		return Result{Verdict: policy.Ask, Reason: "the action has no parts to decide on"}
	}

	plan := in.Plan
	if plan == nil || plan.pol != pol || len(plan.parts) != len(in.Parts) {
		plan = NewPlan(pol, in.Parts, in.Env)
	}
	parts := plan.results()

	// Hard rules, part by part.
	// Parts no allow rule covers, by reference: copying planned values
	// (each holds a Rule) was a quarter of Decide's garbage. Four fit on
	// the stack, which covers nearly every action.
	var openBuf [4]*planned
	open := openBuf[:0]
	var askRule *Result
	askAt := -1
	for i := range plan.parts {
		part := &plan.parts[i]
		rule, ok := part.rule, part.ruled
		if !ok {
			open = append(open, part)
			continue
		}
		parts[i].Weighed, parts[i].Verdict = true, rule.Verdict
		r := Result{Verdict: rule.Verdict, DecidedBy: ByRule, Key: part.Keys.Exact(), Rule: rule.Pattern, Class: part.class.Name}
		switch rule.Verdict {
		case policy.Block:
			r.Reason = fmt.Sprintf("blocked by the policy rule %s", rule.Pattern)
			return withParts(r, parts, i)
		case policy.Ask:
			if askRule == nil {
				r.Reason = fmt.Sprintf("the policy rule %s says a person must decide", rule.Pattern)
				askRule, askAt = &r, i
			}
		}
	}
	if control != nil {
		return withParts(*control, parts, -1)
	}
	if askRule != nil {
		return withParts(*askRule, parts, askAt)
	}
	if r := runsWritten(plan, in.Wrote, in.Granted, in.NoSession); r != nil {
		return *r
	}
	if len(open) == 0 {
		last := plan.parts[len(plan.parts)-1]
		rule := last.rule
		return withParts(Result{Verdict: policy.Allow, DecidedBy: ByRule, Key: last.Keys.Exact(), Rule: rule.Pattern,
			Class: last.class.Name, Reason: fmt.Sprintf("allowed by the policy rule %s", rule.Pattern)}, parts, len(parts)-1)
	}

	// Session grants: a person already said yes to exactly this.
	if in.Granted != nil {
		var ungrantedBuf [4]*planned
		ungranted := ungrantedBuf[:0]
		for _, part := range open {
			if !part.Opaque && in.Granted(part.Keys.Exact()) {
				j := plan.index(part)
				parts[j].Weighed, parts[j].Verdict = true, policy.Allow
				continue
			}
			ungranted = append(ungranted, part)
		}
		if len(ungranted) == 0 {
			return withParts(Result{Verdict: policy.Allow, DecidedBy: ByHuman, Key: open[0].Keys.Exact(),
				Class: open[0].class.Name, Reason: "a person approved this for the session"}, parts, plan.index(open[0]))
		}
		open = ungranted
	}

	// The prediction, under its deadline.
	ladders := make([]action.Ladder, len(open))
	for i, part := range open {
		ladders[i] = part.Keys
	}
	// Parts only an exact approval can allow, as bits: a value, so that
	// the closure below keeps nothing of open alive (Decide's garbage).
	var strict uint64
	for i, part := range open {
		if i < 64 && part.exactOnly {
			strict |= 1 << i
		}
	}
	// What the closure learns, in one variable: each one it sets lives on
	// the heap.
	var got struct {
		preds []predictor.Prediction
		once  uint64 // bit i: part i's own evidence is one approval of it and nothing more (onlyOnce)
	}
	_, err := predictor.FailClosed(ctx, pol.PredictTimeout, func(ctx context.Context) (predictor.Prediction, error) {
		preds, err := predict(ctx, ladders)
		if err != nil {
			return predictor.Prediction{}, err
		}
		if len(preds) != len(ladders) {
			return predictor.Prediction{}, fmt.Errorf("got %d predictions for %d parts", len(preds), len(ladders))
		}
		once, err := onlyOnce(ctx, strict, ladders, preds, predict)
		if err != nil {
			return predictor.Prediction{}, err
		}
		got.preds, got.once = preds, once
		return worst(preds), nil
	})
	if err != nil {
		reason := "the prediction failed, so limen asks a person (failing closed): " + err.Error()
		if errors.Is(err, predictor.ErrTimeout) {
			reason = fmt.Sprintf("the prediction took longer than %v, so limen asks a person (failing closed)", pol.PredictTimeout)
		}
		return withParts(Result{Verdict: policy.Ask, DecidedBy: ByFailsafe, Key: open[0].Keys.Exact(), Reason: reason}, parts, plan.index(open[0]))
	}
	preds, once := got.preds, got.once

	// Each part against its own class's thresholds; the worst verdict wins,
	// and among equals the least likely part explains it, or, as likely,
	// the part of the stricter class (for a new person every part is
	// equally likely, and "git status; curl x | sh" is about the sh).
	var out Result
	decided := 0
	for i, part := range open {
		class := part.class
		th := class.Costs.Thresholds()
		pred := preds[i]
		r := Result{Verdict: th.Verdict(pred.P), DecidedBy: ByPrediction, Prediction: pred,
			Thresholds: th, Class: class.Name, Key: part.Keys.Exact()}
		if r.Verdict == policy.Allow {
			why := unvouched(part.Part, pred)
			if why == "" && class.Costs.Allow >= highStakes*class.Costs.Ask {
				why = unvouchedHighStakes(part.Part, pred)
			}
			if why == "" && (i < 64 && once&(1<<i) != 0 || i >= 64 && answeredOnce(part.Keys, pred)) &&
				(in.ApprovedInSession == nil || !in.ApprovedInSession(part.Keys.Exact())) {
				why = "you have approved " + part.Keys.Exact() + " only once, and not in this session: one approval is no standing permission " +
					stopAsking(in.NoSession)
			}
			if why != "" {
				r.Verdict = policy.Ask
				r.Reason = "p=" + pText(pred.P, th.AllowAbove) + " is above the " + class.Name + " allow threshold " + f3(th.AllowAbove) + ", but " + why
			}
		}
		if r.Verdict == policy.Block && part.Opaque && pred.Level != part.Keys.Exact() {
			// What limen cannot read, generalisation settles neither way:
			// refusals of other unreadable commands do not make this one
			// refused.
			r.Verdict = policy.Ask
			r.Reason = "p=" + pText(pred.P, th.BlockBelow) + " is below the " + class.Name + " block threshold " + f3(th.BlockBelow) +
				", but limen cannot read this command and you have not answered it yourself, so a person decides"
		}
		if r.Verdict == policy.Block && !pred.Specific {
			// A block asks nobody, so limen would never learn that the
			// person wants it: block only on answers about this kind of
			// action, never on general rates alone (a new person who
			// denied one command must not see every new command blocked).
			r.Verdict = policy.Ask
			r.Reason = "p=" + pText(pred.P, th.BlockBelow) + " is below the " + class.Name + " block threshold " + f3(th.BlockBelow) +
				", but nobody has answered anything of this kind yet, so a person decides rather than limen blocking"
		}
		if r.Verdict == policy.Block {
			if why := unrefused(pred, blockFloor(part.Keys)); why != "" {
				r.Verdict = policy.Ask
				r.Reason = "p=" + pText(pred.P, th.BlockBelow) + " is below the " + class.Name + " block threshold " + f3(th.BlockBelow) +
					", but " + why + ", so a person decides rather than limen blocking"
			}
		}
		j := plan.index(part)
		parts[j].Weighed, parts[j].Verdict, parts[j].Predicted, parts[j].P = true, r.Verdict, true, pred.P
		if i == 0 || worse(r, out) {
			out, decided = r, j
		}
	}
	if out.Reason == "" {
		out.Reason = explain(out)
	}
	if out.Verdict == policy.Allow && in.Draw < pol.Exploration && generalises(preds) {
		out.Verdict = policy.Ask
		out.Reason = fmt.Sprintf("would allow (p=%.3f), but asks a small share of allows to keep learning", out.Prediction.P)
	}
	return withParts(out, parts, decided)
}

// results are the plan's parts as a decision starts reading them: each
// with its text, key, class and matching rule, none weighed yet. They are
// worked out once per plan (readParts); a decision fills in a copy.
func (p *Plan) results() []PartResult { return slices.Clone(p.read) }

func (p *Plan) readParts() []PartResult {
	out := make([]PartResult, len(p.parts))
	for i := range p.parts {
		part := &p.parts[i]
		r := PartResult{Text: part.Subject, Key: part.Keys.Exact()}
		if r.Text == "" {
			r.Text = part.Tool
		}
		if part.class != nil {
			r.Class = part.class.Name
		}
		if part.ruled {
			r.Rule = part.rule.Verdict.String() + " " + part.rule.Pattern
		}
		out[i] = r
	}
	return out
}

// index is where part, a pointer into p.parts, sits in it.
func (p *Plan) index(part *planned) int {
	for i := range p.parts {
		if &p.parts[i] == part {
			return i
		}
	}
	return -1
}

// withParts gives r the action's parts, part i marked as the one that
// decided; i < 0 marks the first part whose key is r's (a control's
// block, found by its own reading of the parts).
func withParts(r Result, parts []PartResult, i int) Result {
	if i < 0 {
		for j := range parts {
			if parts[j].Key == r.Key {
				i = j
				break
			}
		}
	}
	if i >= 0 && i < len(parts) {
		parts[i].Decided = true
		if !parts[i].Weighed {
			parts[i].Weighed, parts[i].Verdict = true, r.Verdict
		}
	}
	r.Parts = parts
	return r
}

// unrefused says why a prediction below the block threshold may not
// block, or "" when it may; floor is the least specific key of the
// action's ladder whose refusals can block it (blockFloor). A block asks
// nobody, so a wrong one never heals: a prediction blocks only on this
// person's own repeated and consistent refusals of this action (its exact
// key) or of its risky kind (its mark level: two refused uploads with
// `curl -d @file` block a third): more than one denial's worth of evidence
// there (two denials within a half-life), not counting refusals of
// riskier variants, and no approval. Refusals of other actions like it
// (two denied reads do not refuse a third file), other people's refusals,
// one refusal, or refusals mixed with approvals make it ask: p stays low,
// and the person is asked.
func unrefused(pred predictor.Prediction, floor int) string {
	own := pred.Denials - pred.RiskyDenials
	switch {
	case pred.OwnDepth < 1 || pred.Denials <= 0:
		return "you have not refused anything like it yourself (other people's answers put p this low)"
	case pred.Approvals > 0:
		return "you have both approved and refused " + pred.Level
	case own <= 0:
		return "you have refused only riskier variants of " + pred.Level + ", not " + pred.Level + " itself"
	case pred.OwnDepth < floor:
		return "you have refused other actions like it (" + pred.Level + "), not this one"
	case own <= 1:
		return "you have refused " + pred.Level + " only once"
	}
	return ""
}

// onlyOnce reports, part by part, whether the person's own evidence
// about the part is a single approval of its exact key (answeredOnce)
// and nothing beyond it: their answers at the key above it (the
// parent's ladder, predicted the same way) are that same approval and
// no other. Then p rests on one answer, and the part is asked; an
// approval of git status among fifty other git commands is not alone,
// and p may allow. A part that only the person's approval of its exact
// text can allow (exactOnly) rests on that approval whatever is above
// it, so one is never enough for it. The parents are predicted only for parts where the
// question arises (rare), within the same deadline.
//
// The answer is a bit per part (bit i for part i; strict has a bit set for
// each part exactOnly holds for); parts past the 64th are left to the
// caller, which asks them on answeredOnce alone.
func onlyOnce(ctx context.Context, strict uint64, ladders []action.Ladder, preds []predictor.Prediction, predict PredictFunc) (uint64, error) {
	var out uint64
	var parents []action.Ladder
	var at []int
	for i, p := range preds {
		if i >= 64 || !answeredOnce(ladders[i], p) {
			continue
		}
		if len(ladders[i]) < 2 || strict&(1<<i) != 0 {
			// Nothing above it says more: there is no key above, or
			// only an approval of this exact action can allow it.
			out |= 1 << i
			continue
		}
		parents = append(parents, ladders[i][:len(ladders[i])-1])
		at = append(at, i)
	}
	if len(parents) == 0 {
		return out, nil
	}
	pp, err := predict(ctx, parents)
	if err != nil {
		return 0, err
	}
	if len(pp) != len(parents) {
		return 0, fmt.Errorf("got %d predictions for %d parent keys", len(pp), len(parents))
	}
	for j, i := range at {
		// The approval counts at every key of its ladder, so the parent
		// holds it too: more than it there is other evidence.
		if pp[j].Approvals+pp[j].Denials <= preds[i].Approvals+1e-9 {
			out |= 1 << i
		}
	}
	return out, nil
}

// exactOnly reports whether only the person's own approval of the
// part's exact key can let the prediction allow it (unvouched): a
// command limen cannot read, a secret read, a package install, a write
// from the background.
func exactOnly(p action.Part) bool {
	return p.Opaque || action.ReadsSecret(p) || action.InstallsPackage(p) || action.WritesLater(p)
}

// answeredOnce reports whether the person's own evidence about this
// exact action is a single approval: their deepest answered key is the
// exact key, with no refusal and one approval's worth or less there
// (approvals fade with the half-life, like the refusals a block needs).
// An approval answers one ask, whatever its scope: the prediction may
// allow the same action by itself only once the person has approved it
// more than once. A session grant (ByHuman) and an allow rule are how a
// person says yes for longer, and they are checked before this.
func answeredOnce(l action.Ladder, pred predictor.Prediction) bool {
	return len(l) > 0 && pred.Level == l.Exact() && pred.Denials <= 0 && pred.Approvals > 0 && pred.Approvals <= 1
}

// blockFloor is the index on a ladder of the least specific key whose
// refusals can block the action: its risk marks' level when it has one,
// else its exact key.
func blockFloor(l action.Ladder) int {
	if m := action.MarkLevel(l); m > 0 {
		return m
	}
	return len(l) - 1
}

// generalises reports whether an allow of these parts rests on
// generalisation: some part is not one the person approved exactly (and
// never refused). Only such allows are explored: asking again about an
// exact repeat of an approval teaches nothing the person has not said.
func generalises(preds []predictor.Prediction) bool {
	for _, p := range preds {
		if !p.OwnExact {
			return true
		}
	}
	return false
}

// unvouched says why learning may not allow a part whose p is above the
// allow threshold, or "" when it may. What the person's answers do not
// cover, generalisation must not allow:
//   - an opaque part (limen cannot read what it runs) needs this person's
//     own approval of the exact same text: no level above it, and nobody
//     else's answers, say anything about what it hides;
//   - a part nobody has answered anything specific about (a program new
//     to everyone) rests only on the root, the person's rate for
//     anything at all, which is no evidence about a new program;
//   - a part with risk marks (rm [-f -r], cat [secret-file]) needs this
//     person's own answers at the marked level or below: approving rm of
//     a file says nothing about rm -rf.
func unvouched(part action.Part, pred predictor.Prediction) string {
	switch {
	case part.Opaque && !pred.OwnExact:
		why := part.Why
		if why == "" {
			why = "limen could not parse it"
		}
		return "limen cannot read what this command would run (" + why + "), so only your own approval of this exact command can allow it"
	case !pred.Specific:
		return "nobody has answered anything like it yet, and a general approval rate is no evidence about a new program"
	case action.ReadsSecret(part) && !pred.OwnExact:
		// One secret is not another: approvals of `cat a/.env` must not
		// add up to `cat ~/.ssh/id_rsa`.
		return "it reads a secret, and only your own approval of this exact read can allow it (approving other secret reads does not)"
	case action.WritesStartup(part) && !pred.OwnExact:
		return "it writes a file that runs later outside this command (a shell's startup files, ~/.ssh, a tool's configuration, a directory on PATH), and only your own approval of this exact write can allow it"
	case action.InstallsPackage(part) && !pred.OwnExact:
		return "it installs or runs a package from the network, and only your own approval of this exact command can allow it (approving other packages does not)"
	}
	if m := action.MarkLevel(part.Keys); m > 0 && pred.OwnDepth < m {
		return "you have not answered " + part.Keys[m] + " yourself, and answers to its safer forms do not vouch for it"
	}
	return ""
}

// stopAsking is the once-approval reason's advice: what makes limen stop
// asking, which is no session approval for an action without a session.
func stopAsking(noSession bool) string {
	if noSession {
		return "(approve it again and limen may allow it by itself; make a rule to stop being asked)"
	}
	return "(approve it again and limen may allow it by itself; approve it for the session, or make a rule, to stop being asked)"
}

// highStakes is the ratio of a wrong allow's cost to an ask's from which a
// class is treated like secrets (the default policy's
// network-exfiltration, 100:1): a subcommand new to the person is not
// vouched for by their answers to the program's others.
const highStakes = 100

// unvouchedHighStakes says why learning may not allow a part of a high
// stakes class: its subcommand level (cargo publish, npm publish, gh
// release create) needs this person's own answers, as approving cargo
// build and cargo test says nothing about publishing the tree (the
// eleventh red-team pass).
func unvouchedHighStakes(part action.Part, pred predictor.Prediction) string {
	level := min(2, len(part.Keys)-1)
	if level <= 0 || pred.OwnDepth >= level {
		return ""
	}
	return "you have not answered " + part.Keys[level] + " yourself, and its class's wrong allow costs " +
		"as much as a secret's: answers to the program's other commands do not vouch for it"
}

// rank orders verdicts from least to most restrictive.
func rank(v policy.Verdict) int {
	switch v {
	case policy.Allow:
		return 0
	case policy.Ask:
		return 1
	default:
		return 2
	}
}

func worse(a, b Result) bool {
	if rank(a.Verdict) != rank(b.Verdict) {
		return rank(a.Verdict) > rank(b.Verdict)
	}
	if a.Prediction.P != b.Prediction.P {
		return a.Prediction.P < b.Prediction.P
	}
	return a.Thresholds.AllowAbove > b.Thresholds.AllowAbove
}

func worst(preds []predictor.Prediction) predictor.Prediction {
	w := preds[0]
	for _, p := range preds[1:] {
		if p.P < w.P {
			w = p
		}
	}
	return w
}

// explain words a predicted verdict. It runs on every Decide, so it
// concatenates strconv output instead of calling fmt.Sprintf (a third of
// the decision function's time once rules and classes are planned); the
// text is exactly what "%.3f" and "%.0f" would print.
func explain(r Result) string {
	p := r.Prediction
	seen := "you have not answered anything like it yet, so p comes from how people answer actions new to them"
	if p.Level != "" && p.Level != "prior" {
		seen = f0(p.Approvals) + " approved, " + f0(p.Denials) + " denied at " + p.Level
	}
	if r.Verdict == policy.Block && p.Denials <= 0 {
		// Say plainly that the person never refused it: the block rests on
		// other people's answers, and a person can still approve it.
		seen += "; you have not refused anything like it yourself: other people's answers put p this low"
	}
	switch r.Verdict {
	case policy.Allow:
		return "p=" + pText(p.P, r.Thresholds.AllowAbove) + " is above the " + r.Class + " allow threshold " + f3(r.Thresholds.AllowAbove) + " (" + seen + ")"
	case policy.Block:
		return "p=" + pText(p.P, r.Thresholds.BlockBelow) + " is below the " + r.Class + " block threshold " + f3(r.Thresholds.BlockBelow) + " (" + seen + ")"
	default:
		return "p=" + pText(p.P, r.Thresholds.BlockBelow, r.Thresholds.AllowAbove) + " is between the " + r.Class + " thresholds " + f3(r.Thresholds.BlockBelow) + " and " +
			f3(r.Thresholds.AllowAbove) + ", so a person decides (" + seen + ")"
	}
}

func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// pText is p to three decimals, or to as many as it takes to differ from
// a threshold it is compared with: "p=0.950 is above the threshold 0.950"
// reads as a contradiction (a new user's trial), "p=0.95031" does not.
func pText(p float64, thresholds ...float64) string {
	for _, th := range thresholds {
		if p != th && f3(p) == f3(th) {
			for d := 4; d <= 8; d++ {
				if t := strconv.FormatFloat(p, 'f', d, 64); t != strconv.FormatFloat(th, 'f', d, 64) {
					return t
				}
			}
		}
	}
	return f3(p)
}
func f0(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }

// ControlRule is the Rule of a Result that blocked one of limen's own
// controls (action.Part.Control): a built-in rule, above the policy.
const ControlRule = "limen's own controls"

// ControlOf returns the block of the first part that is one of limen's
// own controls (action.Part.Control), or nil. A part limen read says
// best why, so an opaque one explains the block only when no other part
// does. Decide calls it first; a caller that reads more of an action than
// Decide was given (every part of a command past Parts' caps) calls it
// too.
func ControlOf(parts []action.Part) *Result {
	var opaque *action.Part
	for i := range parts {
		p := &parts[i]
		if p.Control != "" && !p.Opaque {
			return controlResult(p, p.Control)
		}
		if opaque == nil && p.Opaque {
			opaque = p
			if opaque.Control == "" {
				// An opaque part made where limend's paths were not at
				// hand (a command that does not parse) is checked by its
				// text.
				if why := action.OpaqueControl(nil, p.Subject, p.Keys.Exact()); why != "" {
					return controlResult(p, why)
				}
				opaque = nil
			}
		}
	}
	if opaque != nil {
		return controlResult(opaque, opaque.Control)
	}
	return nil
}

func controlResult(p *action.Part, why string) *Result {
	return &Result{Verdict: policy.Block, DecidedBy: ByRule, Key: p.Keys.Exact(), Rule: ControlRule,
		Reason: "limen protects itself: " + why + ". Only a person does that, in their own terminal " +
			"(answers come from a person: they use limenctl tui); no approval, session grant or allow rule lets an agent do it"}
}
