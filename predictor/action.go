// Package predictor estimates how likely a person is to approve an action,
// from that person's own past answers.
//
// It is a domain package: it takes and returns plain Go values and does no
// I/O, so it is fast to test and to benchmark. The server converts between
// API messages and these types.
package predictor

import (
	"strings"
	"time"
)

// Action is one thing an agent wants to do, as the predictor sees it.
type Action struct {
	User    string
	Agent   string
	Session string
	// Tool is the runtime's tool name: "Bash", "Read", "Edit", "Write",
	// "WebFetch", "mcp__<server>__<tool>", or any other.
	Tool string
	// Input is the tool's arguments, decoded from a JSON object.
	Input map[string]any
	// Cwd is the agent's working directory; file paths are classed against it.
	Cwd  string
	Time time.Time
	// Self is where the limend deciding the action keeps its sockets and
	// database, so that touching them is recognised as a control; nil
	// protects only the locations every limen has.
	Self *Self
}

// Ladder is the keys of one part of an action, from the most general (the
// tool) to the most specific (the exact command). Every key is a complete,
// globally unique string, so a key can be counted on its own.
type Ladder []string

// Exact returns the most specific key of the ladder.
func (l Ladder) Exact() string {
	if len(l) == 0 {
		return ""
	}
	return l[len(l)-1]
}

// Part is one simple action inside a possibly compound action: one simple
// command of a shell pipeline, or the whole action for any other tool.
type Part struct {
	// Tool is the tool the part belongs to ("Bash" for every part of a
	// shell command).
	Tool string
	// Control, when not empty, says why the part is one of limen's own
	// controls: it answers an ask, changes the policy, removes a hook,
	// stops limend or touches its sockets, database or a runtime's hook
	// settings. Such a part is blocked whatever anyone approved before.
	Control string
	// Subject is what hard rules match against: for Bash the simple command
	// with wrappers removed, words joined by single spaces; for file tools the
	// cleaned absolute path; for WebFetch the URL; otherwise empty.
	Subject string
	// Keys is the part's ladder.
	Keys Ladder
	// Opaque is set when the part could not be understood: a command that
	// does not parse, whose program is only known when it runs ($a -rf ~),
	// or that runs code limen cannot read (python -c, curl … | sh). Its
	// exact key is the whole command line; only an allow rule or the
	// person's own approval of that exact text can allow it.
	Opaque bool
	// Why says, for an opaque part, what limen could not read in it.
	Why string
}

// Prediction is the approval probability of an action and the evidence
// behind it.
type Prediction struct {
	// P is the probability that the user approves, strictly between 0 and 1.
	P float64
	// Key is the most specific key of the part that decided P (for a
	// compound action, its least likely part).
	Key string
	// Level is the key on that part's ladder whose counts decided P.
	Level string
	// Approvals and Denials are the decayed counts seen at Level.
	Approvals, Denials float64
	// Effective is the weight of evidence behind P, prior included.
	Effective float64
	// Specific says some answer concerns this action's own kind: the
	// person's own answers to a key of its ladder below the tool, or
	// other people's answers to such a key when it was new to them.
	// Without it P rests only on general rates (how this person treats
	// new commands, say), which can say ask but are too thin to block on,
	// or to allow on: the root is no evidence about a program nobody
	// has answered.
	Specific bool
	// OwnDepth is the index on the ladder of the most specific key this
	// person has answered themselves; 0 when they answered nothing below
	// the root (or nothing at all).
	OwnDepth int
	// OwnExact says this person has approved the exact key and never
	// refused it: what an opaque part needs before it can be allowed.
	OwnExact bool
}

// MarkLevel returns the index of the level of a ladder that holds its risk
// marks ("Bash:rm [-f -r]", "Bash:cat [secret-file]"), or -1. A person's
// answers below it (to rm without -rf) are no evidence about it.
func MarkLevel(l Ladder) int {
	for i := 1; i < len(l)-1; i++ {
		if k := l[i]; strings.HasSuffix(k, "]") && strings.Contains(k, " [") {
			return i
		}
	}
	return -1
}

// ReadsSecret reports whether a part reads something its ladder classes as
// a secret: a file tool's path or glob ("Read:secret", "Grep:secret"), or
// a shell command that names a secret file or dumps the environment (the
// secret-file and secret-env marks). Secrets differ one from another (a
// project's .env is not ~/.ssh/id_rsa), so approving one read says nothing
// about the next.
func ReadsSecret(p Part) bool {
	for _, k := range p.Keys[1:min(len(p.Keys), 4)] {
		if strings.HasSuffix(k, ":"+ClassSecret) || strings.Contains(k, ":"+ClassSecret+":") {
			return true
		}
		if strings.HasSuffix(k, "]") && (strings.Contains(k, "secret-file") || strings.Contains(k, "secret-env")) {
			return true
		}
	}
	return false
}
