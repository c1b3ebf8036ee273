package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

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

// addRule returns the policy document with pattern appended to the
// [rules] list named list ("allow" or "block"). It edits the text, so the
// comments and layout people wrote stay as they were, then checks that the
// result parses and holds the rule.
func addRule(doc, list, pattern string) (string, error) {
	if list != "allow" && list != "block" {
		return "", fmt.Errorf("add rule: list %q: use allow or block", list)
	}
	if _, err := policy.ParseRule(policy.Allow, pattern); err != nil {
		return "", fmt.Errorf("add rule: %w", err)
	}
	lines := strings.SplitAfter(doc, "\n")
	out, err := insertRule(lines, list, tomlString(pattern))
	if err != nil {
		return "", fmt.Errorf("add rule: %w", err)
	}
	var check struct {
		Rules map[string][]string `toml:"rules"`
	}
	if err := toml.Unmarshal([]byte(out), &check); err != nil {
		return "", fmt.Errorf("add rule: the edited policy is not valid TOML (%v); edit it with limenctl policy instead", err)
	}
	if !slices.Contains(check.Rules[list], pattern) {
		return "", errors.New("add rule: could not find where to put the rule in this policy; add it with limenctl policy instead")
	}
	if _, err := policy.Parse(out); err != nil {
		return "", fmt.Errorf("add rule: %w", err)
	}
	return out, nil
}

var (
	tableRE = regexp.MustCompile(`^\s*\[`)
	rulesRE = regexp.MustCompile(`^\s*\[\s*rules\s*\]\s*(#.*)?$`)
)

// insertRule puts item into the list key of the [rules] table, adding the
// key or the table when they are missing.
func insertRule(lines []string, list, item string) (string, error) {
	keyRE := regexp.MustCompile(`^\s*` + list + `\s*=\s*\[`)
	start := slices.IndexFunc(lines, func(l string) bool { return rulesRE.MatchString(strings.TrimRight(l, "\r\n")) })
	if start < 0 {
		doc := strings.Join(lines, "")
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		return doc + "\n[rules]\n" + list + " = [" + item + "]\n", nil
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if tableRE.MatchString(lines[i]) {
			end = i
			break
		}
	}
	for i := start + 1; i < end; i++ {
		if !keyRE.MatchString(lines[i]) {
			continue
		}
		// Find the array's closing bracket, outside strings and comments.
		open := strings.Index(lines[i], "[")
		for j := i; j < end; j++ {
			from := 0
			if j == i {
				from = open + 1
			}
			if k := closingBracket(lines[j], from); k >= 0 {
				return spliceRule(lines, i, j, k, item), nil
			}
		}
		return "", fmt.Errorf("the [rules] %s list has no closing ]", list)
	}
	// The table has no such key: add it right after the header.
	out := slices.Clone(lines[:start+1])
	if !strings.HasSuffix(out[start], "\n") {
		out[start] += "\n"
	}
	out = append(out, list+" = ["+item+"]\n")
	out = append(out, lines[start+1:]...)
	return strings.Join(out, ""), nil
}

// closingBracket returns the index of the first "]" in line at or after
// from that is not inside a string or a comment, or -1.
func closingBracket(line string, from int) int {
	var quote byte
	for i := from; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return -1
		case c == ']':
			return i
		}
	}
	return -1
}

// spliceRule inserts item before the "]" at lines[j][k], the end of an
// array that starts on line i.
func spliceRule(lines []string, i, j, k int, item string) string {
	out := slices.Clone(lines)
	before := strings.TrimSpace(out[j][:k])
	if i == j {
		inner := strings.TrimSpace(out[j][strings.Index(out[j], "[")+1 : k])
		sep := ", "
		if inner == "" {
			sep = ""
		} else if strings.HasSuffix(inner, ",") {
			sep = " "
		}
		out[j] = out[j][:k] + sep + item + out[j][k:]
		return strings.Join(out, "")
	}
	if before == "" {
		// The "]" stands on a line of its own: add a line above it, with
		// the indentation of the line before (or two spaces).
		indent := "  "
		if prev := out[j-1]; j-1 > i {
			indent = prev[:len(prev)-len(strings.TrimLeft(prev, " \t"))]
		}
		// Make sure the item before ends with a comma.
		for p := j - 1; p > i; p-- {
			t := strings.TrimRight(stripComment(out[p]), " \t\r\n")
			if t == "" {
				continue
			}
			if !strings.HasSuffix(t, ",") {
				out[p] = t + "," + out[p][len(t):]
			}
			break
		}
		out[j] = indent + item + ",\n" + out[j]
		return strings.Join(out, "")
	}
	sep := ", "
	if strings.HasSuffix(before, ",") {
		sep = " "
	}
	out[j] = out[j][:k] + sep + item + out[j][k:]
	return strings.Join(out, "")
}

// stripComment cuts a trailing # comment that is outside any string.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return line[:i]
		}
	}
	return line
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
