package describe

import (
	"strings"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// AnswerChoice is one answer a person can give to an ask, and what it
// will do, said before it is given (docs/policy.md, What an answer does).
type AnswerChoice struct {
	Name  string // "once", "session", "always", "deny"
	Does  string
	Short string // Does in a few words, for a narrow pane
}

// AnswerChoices are the answers to the ask of d, each with what it does
// to this call, to the next identical one and to what limen learns. Every
// view that takes answers shows these same words.
func AnswerChoices(d *limenv1.Decision) []AnswerChoice {
	keys := keysOf(d)
	session := d.GetAction().GetSession()
	sessionDoes := "as once, and allows " + keys + " without asking in session " + session + " (until limend restarts)"
	short := "and allows it again in session " + session
	if session == "" {
		sessionDoes = "the same as once: the action names no session to allow it in"
		short = "the same as once: the action names no session"
	}
	return []AnswerChoice{
		{"once", "runs this call and teaches limen one approval of " + keys +
			"; not a standing permission: outside this agent session the next one is asked again until you have approved it more than once",
			"this call only; one approval learned, no standing permission"},
		{"session", sessionDoes, short},
		{"always", "adds an allow rule to the policy: allowed for everyone, every session, until the rule is removed",
			"an allow rule: every session, everyone"},
		{"deny", "refuses this call and teaches limen one refusal of " + keys +
			"; refused more than once (and never approved), the prediction may block it without asking",
			"refuses; one refusal learned (two may block it)"},
	}
}

// keysOf names the exact keys of d's parts, or its key when it has no
// recorded parts.
func keysOf(d *limenv1.Decision) string {
	var ks []string
	for _, p := range d.GetParts() {
		ks = append(ks, p.GetKey())
	}
	if len(ks) == 0 {
		ks = append(ks, d.GetKey())
	}
	return strings.Join(ks, ", ")
}
