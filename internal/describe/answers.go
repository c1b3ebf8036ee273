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
// view that takes answers shows these same words. Whether a caller still
// waits on the ask is not known here: the words say what happens either
// way (a limenctl decide runs nothing, and an agent that gave up waiting
// gets nothing).
func AnswerChoices(d *limenv1.Decision) []AnswerChoice { return answerChoices(d, false) }

// AnswerChoicesUnawaited are AnswerChoices for an ask that its caller has
// stopped waiting on (limenctl decide without --wait, which has returned):
// the answer reaches nobody and is only learned.
func AnswerChoicesUnawaited(d *limenv1.Decision) []AnswerChoice { return answerChoices(d, true) }

// NobodyWaits is what an answer to an ask nobody waits on does.
const NobodyWaits = "nobody is waiting on this ask any more; the answer is only learned"

func answerChoices(d *limenv1.Decision, unawaited bool) []AnswerChoice {
	keys := keysOf(d)
	session := d.GetAction().GetSession()
	sessionDoes := "as once, and allows " + keys + " without asking in session " + session + " (until limend restarts)"
	short := "and allows it again in session " + session
	if session == "" {
		// A session is an agent's run (Claude Code's session id): the
		// action names none, so there is nothing to allow it in.
		sessionDoes = "the same as once here: the action names no agent session to allow it in"
		if d.GetAction().GetAgent() == decideAgent {
			sessionDoes += " (limenctl decide --session ID decides as part of one, as an agent's calls are)"
		}
		short = "the same as once: the action names no session"
	}
	approve := "lets this call run if its agent still waits on the ask (if not, " + NobodyWaits + ") and teaches limen one approval of " + keys
	refuse := "refuses this call if its agent still waits on the ask (if not, " + NobodyWaits + ") and teaches limen one refusal of " + keys
	approveShort, refuseShort := "this call, if still awaited; one approval learned, no standing permission", "refuses, if still awaited; one refusal learned (two may block it)"
	switch {
	case unawaited:
		approve, refuse = NobodyWaits+", as one approval of "+keys, NobodyWaits+", as one refusal of "+keys
		approveShort, refuseShort = "only learned (nobody waits): one approval, no standing permission", "only learned (nobody waits): one refusal (two may block it)"
	case d.GetAction().GetAgent() == decideAgent:
		// limenctl decide runs nothing: its --wait only reports the answer.
		approve = "lets a limenctl decide --wait still waiting on it return allow (decide runs nothing; if none waits, " + NobodyWaits + ") and teaches limen one approval of " + keys
		refuse = "makes a limenctl decide --wait still waiting on it return block (if none waits, " + NobodyWaits + ") and teaches limen one refusal of " + keys
	}
	standing := "; not a standing permission: outside this agent session the next one is asked again until you have approved it more than once"
	if session == "" {
		standing = "; not a standing permission: the next one is asked again until you have approved it more than once"
	}
	return []AnswerChoice{
		{"once", approve + standing, approveShort},
		{"session", sessionDoes, short},
		{"always", "adds an allow rule to the policy: allowed for everyone, every session, until the rule is removed",
			"an allow rule: every session, everyone"},
		{"deny", refuse + "; refused more than once (and never approved), the prediction may block it without asking",
			refuseShort},
	}
}

// decideAgent is the agent limenctl decide names in its actions.
const decideAgent = "limenctl"

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

// RuleNotePrefix begins the note of an answer given with a rule made from
// the ask (limenctl answer --always, the TUI's r): "made the rule
// Bash(npm test:*)", then the person's own note, if any.
const RuleNotePrefix = "made the rule "

// RuleMade is the rule an answer's note says was made with it, or "".
// Taking the answer back leaves that rule in the policy.
func RuleMade(note string) string {
	rest, ok := strings.CutPrefix(note, RuleNotePrefix)
	if !ok {
		return ""
	}
	// Bash(npm test:*) holds spaces inside its parentheses; mcp__x__*
	// has none and ends at the first space.
	depth := 0
	for i, r := range rest {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return rest[:i+1]
			}
		case ' ':
			if depth == 0 {
				return rest[:i]
			}
		}
	}
	return rest
}
