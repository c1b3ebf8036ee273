package tui

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// actionOf decodes an API action into the predictor's form, so the TUI
// splits and matches actions exactly as limend does. A malformed input
// gives an action with no arguments rather than an error: the TUI only
// shows and previews, it never decides.
func actionOf(a *limenv1.Action) action.Action { return convert.Preview(a) }

// envOf is what path patterns are resolved against for an action.
func envOf(a action.Action) policy.Env {
	return convert.Env(a)
}

// subWordRE is a word a prefix rule may take as a subcommand: letters,
// digits, dashes (also _ and :, as in db_migrate or build:prod), optionally
// a leading flag dash as in python -m; never a path, URL, file name or
// quoted text, which would make the rule cover one file rather than a kind
// of command.
var subWordRE = regexp.MustCompile(`^-{0,2}[A-Za-z0-9][A-Za-z0-9_:-]*$`)

// subcommandOf returns the subcommand of a shell part ("push" for git push,
// "run test" for npm run test, "-m pytest" for python -m pytest) as the
// predictor's key ladder has it, or "" when the command has none. Only
// words that look like a subcommand are kept.
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

// suggestRule proposes a hard rule that covers this decision's action and
// its close relatives: Bash(<program> <subcommand>:*) for a shell command,
// Tool(path) for a file tool, WebFetch(domain:host) for a fetch, and the
// bare tool name otherwise. The person edits it before it is saved.
//
// The suggestion always covers the whole action as an allow rule would
// (every part of a compound command). When no one rule does, it returns
// "" and an error that says why and what to do instead.
func suggestRule(d *limenv1.Decision) (string, error) {
	act := actionOf(d.GetAction())
	parts := action.Parts(act)
	if len(parts) == 0 {
		return act.Tool, nil
	}
	env := envOf(act)
	var rules []string
	for _, p := range parts {
		if p.Opaque {
			return "", fmt.Errorf("limen could not parse this command (%s), and no allow rule covers a command limen cannot read; "+
				"write a block rule (tab) or answer the ask without a rule", shorten(p.Subject, 60))
		}
		s := suggestPart(act, p)
		if r, err := policy.ParseRule(policy.Allow, s); err != nil || !r.Matches(p, env) {
			// The broader form does not match (an unusual program name):
			// fall back to the exact command.
			s = act.Tool + "(" + escapeRule(p.Subject) + ")"
			if r, err := policy.ParseRule(policy.Allow, s); err != nil || !r.Matches(p, env) {
				return "", fmt.Errorf("no rule could be made that covers %q; write one below or use limenctl policy edit", p.Subject)
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
	return "", fmt.Errorf("this command has several parts (%s); a rule would have to cover each (%s): add them in limenctl policy edit, "+
		"or write one rule below that covers every part",
		strings.Join(subjects, "; "), strings.Join(rules, ", "))
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
		return "Bash(" + escapeRule(prefix) + ":*)"
	case part.Tool == "WebFetch":
		if u, err := url.Parse(part.Subject); err == nil && u.Hostname() != "" {
			return "WebFetch(domain:" + u.Hostname() + ")"
		}
		return "WebFetch"
	case part.Subject != "" && strings.HasPrefix(part.Subject, "/"):
		return act.Tool + "(" + escapeRule(part.Subject) + ")"
	}
	return act.Tool
}

// escapeRule escapes the characters the rule syntax gives a meaning to.
func escapeRule(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`, `*`, `\*`).Replace(s)
}

// covers reports whether rule r decides the action: an allow rule must
// cover every part of a compound action, a block rule any one of them (as
// the policy applies them).
func covers(r policy.Rule, a *limenv1.Action) bool {
	act := actionOf(a)
	parts := action.Parts(act)
	if len(parts) == 0 {
		return false
	}
	env := envOf(act)
	if r.Verdict == policy.Block {
		return slices.ContainsFunc(parts, func(p action.Part) bool { return r.Matches(p, env) })
	}
	for _, p := range parts {
		if !r.Matches(p, env) {
			return false
		}
	}
	return true
}

// checkRule parses the pattern being edited for the ask and returns the
// recent decisions it also covers (besides the ask's own action). The error
// says why the rule cannot be saved: it does not parse, or it does not
// decide the ask the way saving it would (an allow rule that misses a part
// of the ask would still approve the whole ask). An empty pattern whose
// suggestion was refused gets the reason for the refusal.
func checkRule(v policy.Verdict, pattern string, ask *limenv1.Decision, recent []*limenv1.Decision) ([]*limenv1.Decision, error) {
	if strings.TrimSpace(pattern) == "" {
		if _, why := suggestRule(ask); why != nil {
			return nil, why
		}
	}
	r, err := policy.ParseRule(v, pattern)
	if err != nil {
		return nil, err
	}
	covered := preview(r, ask.GetAction(), recent)
	act := actionOf(ask.GetAction())
	env := envOf(act)
	var missed []string
	for _, p := range action.Parts(act) {
		if !r.Matches(p, env) {
			missed = append(missed, p.Subject)
		}
	}
	switch {
	case v == policy.Block && !covers(r, ask.GetAction()):
		return covered, fmt.Errorf("%s matches no part of this ask; a rule made here must cover the ask it answers", pattern)
	case v != policy.Block && len(missed) > 0:
		what := "this ask"
		if len(missed) < len(action.Parts(act)) {
			what = "the part " + strings.Join(missed, "; ")
		}
		return covered, fmt.Errorf("%s does not cover %s, yet saving it would approve the whole ask; "+
			"widen the rule, or add one rule per part in limenctl policy edit", pattern, what)
	}
	return covered, nil
}

// preview returns the recent decisions whose actions the rule would
// decide, each action once, newest first, leaving out the ask's own action
// (it is counted apart).
func preview(r policy.Rule, ask *limenv1.Action, recent []*limenv1.Decision) []*limenv1.Decision {
	var out []*limenv1.Decision
	key := func(a *limenv1.Action) string {
		return a.GetTool() + "\x00" + a.GetInputJson() + "\x00" + a.GetCwd()
	}
	seen := map[string]bool{key(ask): true}
	for _, d := range recent {
		k := key(d.GetAction())
		if seen[k] {
			continue
		}
		seen[k] = true
		if covers(r, d.GetAction()) {
			out = append(out, d)
		}
	}
	return out
}
