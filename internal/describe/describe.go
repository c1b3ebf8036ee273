// Package describe words limen's API values for people, the same way in
// every tool that shows them (limenctl's tables, the TUI, the load
// generator), so a verdict or an outcome never reads two ways.
package describe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/limenhq/limen/internal/convert"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Verdict is "allow", "ask" or "block"; "ask" for a value limend never
// sends, since that is how limen treats it (convert.VerdictName).
func Verdict(v limenv1.Verdict) string { return convert.VerdictName(v) }

// Decider names what settled a verdict: rule, prediction, person,
// failsafe or expiry.
func Decider(d limenv1.Decider) string {
	switch d {
	case limenv1.Decider_DECIDER_RULE:
		return "rule"
	case limenv1.Decider_DECIDER_PREDICTION:
		return "prediction"
	case limenv1.Decider_DECIDER_HUMAN:
		return "person"
	case limenv1.Decider_DECIDER_FAILSAFE:
		return "failsafe"
	case limenv1.Decider_DECIDER_EXPIRY:
		return "expiry"
	}
	return "?"
}

// DecidedBy names who or what settled a recorded decision in the end: for
// an ask that was answered, the person (by name); for one nobody answered,
// expiry; otherwise its Decider.
func DecidedBy(d *limenv1.Decision) string {
	if o := d.GetOutcome(); o != nil {
		if o.GetState() == limenv1.AskState_ASK_STATE_EXPIRED {
			return "expiry"
		}
		if by := o.GetAnsweredBy(); by != "" {
			return "person:" + by
		}
		return "person"
	}
	return Decider(d.GetDecidedBy())
}

// Outcome says how an ask ended: pending, approved (approved+s for the
// session), denied, expired, or not queued; "-" for a decision that did
// not ask. An answer taken back since (limenctl forget) says so:
// "denied (forgotten)".
func Outcome(d *limenv1.Decision) string {
	s := outcome(d)
	if d.GetOutcome().GetForgottenAt() != nil {
		s += " (forgotten)"
	}
	return s
}

func outcome(d *limenv1.Decision) string {
	if d.GetVerdict() != limenv1.Verdict_VERDICT_ASK {
		return "-"
	}
	o := d.GetOutcome()
	switch {
	case o == nil:
		if d.GetAskId() == "" {
			return "not queued"
		}
		return "pending"
	case o.GetState() == limenv1.AskState_ASK_STATE_EXPIRED:
		return "expired"
	case o.GetChoice() == limenv1.Choice_CHOICE_APPROVE:
		if o.GetScope() == limenv1.Scope_SCOPE_SESSION {
			return "approved+s"
		}
		return "approved"
	case o.GetChoice() == limenv1.Choice_CHOICE_DENY:
		return "denied"
	}
	return "?"
}

// Action is an action on one line: the command for Bash (its line
// breaks shown as " ⏎ ", never joined away: they separate commands); the
// tool and its main argument (a path, URL, pattern or query) for others;
// else the tool and its arguments as compact JSON.
func Action(a *limenv1.Action) string {
	var in map[string]any
	if json.Unmarshal([]byte(a.GetInputJson()), &in) == nil {
		if cmd, ok := in["command"].(string); ok && a.GetTool() == "Bash" {
			var lines []string
			for l := range strings.SplitSeq(cmd, "\n") {
				if l = oneLine(l); l != "" {
					lines = append(lines, l)
				}
			}
			return strings.Join(lines, " ⏎ ")
		}
		for _, k := range []string{"file_path", "notebook_path", "path", "url", "pattern", "query"} {
			if v, ok := in[k].(string); ok {
				return oneLine(a.GetTool() + " " + v)
			}
		}
	}
	text := a.GetInputJson()
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(text)) == nil {
		text = buf.String()
	}
	return oneLine(a.GetTool() + " " + text)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// command is a Bash action's command as written.
func command(a *limenv1.Action) (string, bool) {
	var in struct {
		Command *string `json:"command"`
	}
	if a.GetTool() != "Bash" || json.Unmarshal([]byte(a.GetInputJson()), &in) != nil || in.Command == nil {
		return "", false
	}
	return *in.Command, true
}

// Age formats a duration for people: 4s, 3m, 2h, 5d.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
