package tui

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// actionOf decodes an API action into the predictor's form, so the TUI
// splits and matches actions exactly as limend does. A malformed input
// gives an action with no arguments rather than an error: the TUI only
// shows and previews, it never decides.
func actionOf(a *limenv1.Action) predictor.Action {
	input := map[string]any{}
	if raw := bytes.TrimSpace([]byte(a.GetInputJson())); len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&input)
	}
	return predictor.Action{User: a.GetUser(), Agent: a.GetAgent(), Session: a.GetSession(),
		Tool: a.GetTool(), Input: input, Cwd: a.GetCwd()}
}

// envOf is what path patterns are resolved against for an action.
func envOf(a predictor.Action) policy.Env {
	return policy.Env{Cwd: a.Cwd, Home: predictor.HomeDir(a)}
}

var subcommandRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// suggestRule proposes a hard rule that covers this decision's action and
// its close relatives: Bash(<program> <subcommand>:*) for a shell command,
// Tool(path) for a file tool, WebFetch(domain:host) for a fetch, and the
// bare tool name otherwise. The person edits it before it is saved.
func suggestRule(d *limenv1.Decision) string {
	act := actionOf(d.GetAction())
	parts := predictor.Parts(act)
	if len(parts) == 0 {
		return act.Tool
	}
	part := parts[0]
	for _, p := range parts {
		if p.Keys.Exact() == d.GetKey() {
			part = p
		}
	}
	switch {
	case act.Tool == "Bash":
		words := strings.Fields(part.Subject)
		if len(words) == 0 {
			return "Bash"
		}
		prefix := words[0]
		if len(words) > 1 && subcommandRE.MatchString(words[1]) {
			prefix += " " + words[1]
		}
		if predictor.IsPrivileged(part) {
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
	parts := predictor.Parts(act)
	if len(parts) == 0 {
		return false
	}
	env := envOf(act)
	if r.Verdict == policy.Block {
		return slices.ContainsFunc(parts, func(p predictor.Part) bool { return r.Matches(p, env) })
	}
	for _, p := range parts {
		if !r.Matches(p, env) {
			return false
		}
	}
	return true
}

// preview returns the recent decisions whose actions the rule would
// decide, each action once, newest first.
func preview(r policy.Rule, recent []*limenv1.Decision) []*limenv1.Decision {
	var out []*limenv1.Decision
	seen := map[string]bool{}
	for _, d := range recent {
		k := d.GetAction().GetTool() + "\x00" + d.GetAction().GetInputJson() + "\x00" + d.GetAction().GetCwd()
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
