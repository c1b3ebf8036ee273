package policy

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/limenhq/limen/action"
)

// This file is how a rule is suggested from an action: the rule a person
// is offered when they make a hard rule out of an ask (limenctl tui, r),
// and how to tell whether a rule decides an action at all.

// SuggestReason says why Suggest has no rule for an action.
type SuggestReason int

const (
	// Unreadable: a part of the command could not be parsed, and no
	// allow rule covers what limen cannot read (a block rule may).
	Unreadable SuggestReason = iota + 1
	// NoRule: no rule of the suggested forms matches this part.
	NoRule
	// SeveralParts: the parts of a compound command need different rules.
	SeveralParts
)

// SuggestError is why Suggest proposes no rule, with what a caller needs
// to word its own advice.
type SuggestError struct {
	Reason SuggestReason
	// Subject is the part concerned (Unreadable, NoRule).
	Subject string
	// Subjects are every part of the action and Rules the rule each part
	// would need (SeveralParts).
	Subjects, Rules []string
}

func (e *SuggestError) Error() string {
	switch e.Reason {
	case Unreadable:
		return fmt.Sprintf("limen could not parse this command (%s), and no allow rule covers a command limen cannot read", e.Subject)
	case NoRule:
		return fmt.Sprintf("no rule could be made that covers %q", e.Subject)
	}
	return fmt.Sprintf("this command has several parts (%s); a rule would have to cover each (%s)",
		strings.Join(e.Subjects, "; "), strings.Join(e.Rules, ", "))
}

// Suggest proposes a hard rule that covers the action and its close
// relatives: Bash(<program> <subcommand>:*) for a shell command (with the
// wrapper that raises privileges kept, as in sudo apt update),
// Tool(path) for a file tool, WebFetch(domain:host) for a fetch, and the
// bare tool name otherwise. The person edits it before it is saved.
//
// The suggestion always covers the whole action as an allow rule would
// (every part of a compound command). When no one rule does, it returns
// "" and a *SuggestError. env resolves the rule's paths as the policy
// will.
func Suggest(act action.Action, env Env) (string, error) {
	parts := action.Parts(act)
	if len(parts) == 0 {
		return act.Tool, nil
	}
	var rules []string
	for _, p := range parts {
		if p.Opaque {
			return "", &SuggestError{Reason: Unreadable, Subject: p.Subject}
		}
		s := suggestPart(act, p)
		if r, err := ParseRule(Allow, s); err != nil || !r.Matches(p, env) {
			// The broader form does not match (an unusual program name):
			// fall back to the exact command.
			s = act.Tool + "(" + EscapeRule(p.Subject) + ")"
			if r, err := ParseRule(Allow, s); err != nil || !r.Matches(p, env) {
				return "", &SuggestError{Reason: NoRule, Subject: p.Subject}
			}
		}
		if !slices.Contains(rules, s) {
			rules = append(rules, s)
		}
	}
	if len(rules) == 1 {
		return rules[0], nil
	}
	subjects := make([]string, len(parts))
	for i, p := range parts {
		subjects[i] = p.Subject
	}
	return "", &SuggestError{Reason: SeveralParts, Subjects: subjects, Rules: rules}
}

// suggestPart proposes a rule for one part of an action.
func suggestPart(act action.Action, part action.Part) string {
	switch {
	case act.Tool == "Bash":
		words := strings.Fields(part.Subject)
		if len(words) == 0 {
			return "Bash"
		}
		prefix := words[0]
		if sub := subcommandOf(words); sub != "" {
			prefix += " " + sub
		}
		if action.IsPrivileged(part) {
			prefix = strings.TrimPrefix(part.Keys[1], "Bash:") + " " + prefix
		}
		return "Bash(" + EscapeRule(prefix) + ":*)"
	case part.Tool == "WebFetch":
		if u, err := url.Parse(part.Subject); err == nil && u.Hostname() != "" {
			return "WebFetch(domain:" + u.Hostname() + ")"
		}
		return "WebFetch"
	case part.Subject != "" && strings.HasPrefix(part.Subject, "/"):
		return act.Tool + "(" + EscapeRule(part.Subject) + ")"
	}
	return act.Tool
}

// subWordRE is a word a prefix rule may take as a subcommand: letters,
// digits, dashes (also _ and :, as in db_migrate or build:prod), optionally
// a leading flag dash as in python -m; never a path, URL, file name or
// quoted text, which would make the rule cover one file rather than a kind
// of command.
var subWordRE = regexp.MustCompile(`^-{0,2}[A-Za-z0-9][A-Za-z0-9_:-]*$`)

// subcommandOf returns the subcommand of a shell part ("push" for git push,
// "run test" for npm run test, "-m pytest" for python -m pytest) as the
// action's key ladder has it, or "" when the command has none. Only words
// that look like a subcommand are kept.
func subcommandOf(words []string) string {
	if len(words) < 2 {
		return ""
	}
	sub := action.Subcommand(words[0], words[1:])
	var kept []string
	for _, w := range strings.Fields(sub) {
		if !subWordRE.MatchString(w) {
			break
		}
		kept = append(kept, w)
	}
	for len(kept) > 0 && strings.HasPrefix(kept[len(kept)-1], "-") {
		kept = kept[:len(kept)-1] // python -m x.y: a flag alone is no subcommand
	}
	// The subcommand's words must be the command's own next words, so the
	// prefix rule matches the command.
	if len(kept) == 0 || len(kept) > len(words)-1 || !slices.Equal(kept, words[1:1+len(kept)]) {
		return ""
	}
	return strings.Join(kept, " ")
}

// EscapeRule escapes the characters the rule syntax gives a meaning to,
// so that s is matched as written.
func EscapeRule(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`, `*`, `\*`).Replace(s)
}

// Covers reports whether r decides an action of these parts, as RulesFor
// applies rules: a block rule when it matches any one part, any other
// rule only when it matches every part (an allow rule that misses a part
// leaves that part to the prediction). No rule covers an action without
// parts.
func (r Rule) Covers(parts []action.Part, env Env) bool {
	if len(parts) == 0 {
		return false
	}
	if r.Verdict == Block {
		return slices.ContainsFunc(parts, func(p action.Part) bool { return r.Matches(p, env) })
	}
	return len(r.Misses(parts, env)) == 0
}

// Misses returns the subjects of the parts that r does not match, in
// order.
func (r Rule) Misses(parts []action.Part, env Env) []string {
	var missed []string
	for _, p := range parts {
		if !r.Matches(p, env) {
			missed = append(missed, p.Subject)
		}
	}
	return missed
}
