package eval

import (
	"encoding/json"
	"strings"

	"github.com/limenhq/limen/policy"
)

// Strategy decides actions and learns from the answers to its asks.
//
// The replayer calls Decide once per action, in stream order, and calls
// Learn for that action right after, only when Decide returned ask. An
// allowed or blocked action teaches nothing, as in real use.
type Strategy interface {
	// Name identifies the strategy in reports.
	Name() string
	// Decide returns the verdict from what was learned so far.
	Decide(a Action) Decision
	// Learn gives the person's answer to an action the strategy asked.
	Learn(a Action, approved bool)
}

// Decision is a strategy's verdict on one action.
type Decision struct {
	Verdict policy.Verdict
	// P is the approval probability behind the verdict when HasP is set;
	// asked actions with a P are scored for calibration.
	P    float64
	HasP bool
	// Failsafe marks an ask that came from a failure (a prediction that
	// timed out or failed), not from the evidence.
	Failsafe bool
}

// AlwaysAsk asks about every action.
type AlwaysAsk struct{}

// Name implements Strategy.
func (AlwaysAsk) Name() string { return "always-ask" }

// Decide implements Strategy.
func (AlwaysAsk) Decide(Action) Decision { return Decision{Verdict: policy.Ask} }

// Learn implements Strategy.
func (AlwaysAsk) Learn(Action, bool) {}

// RememberExact is Claude Code's "Yes, don't ask again" for one exact
// action: after an approval the same user's same tool with exactly the
// same input is allowed; after a denial it is asked again.
type RememberExact struct{ approved map[string]bool }

// NewRememberExact returns the baseline with nothing remembered.
func NewRememberExact() *RememberExact { return &RememberExact{approved: make(map[string]bool)} }

// Name implements Strategy.
func (*RememberExact) Name() string { return "remember-exact" }

// Decide implements Strategy.
func (s *RememberExact) Decide(a Action) Decision {
	if s.approved[exactKey(a)] {
		return Decision{Verdict: policy.Allow}
	}
	return Decision{Verdict: policy.Ask}
}

// Learn implements Strategy.
func (s *RememberExact) Learn(a Action, approved bool) {
	if approved {
		s.approved[exactKey(a)] = true
	}
}

// exactKey is the user, the tool and its input with sorted keys.
func exactKey(a Action) string {
	b, err := json.Marshal(a.Input) // map keys come out sorted
	if err != nil {
		b = []byte("<unencodable>")
	}
	return a.User + "\x00" + a.Tool + "\x00" + string(b)
}

// RememberPrefix is a prefix rule per approval, the way Claude Code's
// `Bash(git push:*)` rules behave: approving a shell command allows every
// later command whose segments (split at &&, ||, ;, | and newlines) each
// start with an approved program and subcommand. Other tools are
// remembered exactly, as by RememberExact.
type RememberPrefix struct{ approved map[string]bool }

// NewRememberPrefix returns the baseline with nothing remembered.
func NewRememberPrefix() *RememberPrefix { return &RememberPrefix{approved: make(map[string]bool)} }

// Name implements Strategy.
func (*RememberPrefix) Name() string { return "remember-prefix" }

// Decide implements Strategy.
func (s *RememberPrefix) Decide(a Action) Decision {
	for _, k := range s.keys(a) {
		if !s.approved[k] {
			return Decision{Verdict: policy.Ask}
		}
	}
	return Decision{Verdict: policy.Allow}
}

// Learn implements Strategy.
func (s *RememberPrefix) Learn(a Action, approved bool) {
	if !approved {
		return
	}
	for _, k := range s.keys(a) {
		s.approved[k] = true
	}
}

func (s *RememberPrefix) keys(a Action) []string {
	cmd, ok := a.Input["command"].(string)
	if a.Tool != "Bash" || !ok {
		return []string{exactKey(a)}
	}
	segs := shellSegments(cmd)
	if len(segs) == 0 {
		return []string{exactKey(a)}
	}
	keys := make([]string, len(segs))
	for i, seg := range segs {
		keys[i] = a.User + "\x00Bash\x00" + commandPrefix(seg)
	}
	return keys
}

// shellSegments splits a command line at &&, ||, ;, | and newlines outside
// quotes. It is deliberately simple: it is the baseline's notion of a
// command, not limen's.
func shellSegments(cmd string) []string {
	var segs []string
	var cur strings.Builder
	var quote byte
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			segs = append(segs, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(cmd) {
				cur.WriteByte(c)
				i++
				c = cmd[i]
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\' && i+1 < len(cmd):
			cur.WriteByte(c)
			i++
			c = cmd[i]
		case c == ';' || c == '\n' || c == '|' || (c == '&' && i+1 < len(cmd) && cmd[i+1] == '&'):
			flush()
			if (c == '|' || c == '&') && i+1 < len(cmd) && cmd[i+1] == c {
				i++
			}
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return segs
}

// commandPrefix is the program and, when the second word looks like a
// subcommand (not a flag, not a path), that word too.
func commandPrefix(seg string) string {
	f := strings.Fields(seg)
	switch {
	case len(f) == 0:
		return ""
	case len(f) == 1 || strings.HasPrefix(f[1], "-") || strings.ContainsAny(f[1], "/.'\"$=<>"):
		return f[0]
	}
	return f[0] + " " + f[1]
}
