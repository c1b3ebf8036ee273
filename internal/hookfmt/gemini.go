package hookfmt

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"
)

// geminiTool is how one Gemini CLI tool becomes the Claude Code tool it is.
type geminiTool struct {
	// tool is Claude Code's name for it.
	tool string
	// args maps each Claude Code argument to the Gemini argument names that
	// mean it: the name Gemini CLI 0.61 reads first, then names older
	// versions read. Every one of them is taken away from the input and the
	// value put under the Claude Code name, so that no leftover spelling can
	// show limen one path while Gemini reads another; when two of them are
	// given with different values the call is refused, since limen cannot
	// know which one the running Gemini CLI reads.
	args map[string][]string
}

// geminiTools maps Gemini CLI's built-in tools to the Claude Code tools
// they are, with the arguments renamed, so that the policy's rules and
// risk classes (written in Claude Code's names) and the key ladders apply
// to them. Without it a Gemini shell command was keyed as an opaque tool:
// a few approved commands let `rm -rf /` and an agent's own `limenctl
// answer` through, past every shipped block rule.
//
// The argument names are Gemini CLI 0.61.0's, read from its tool
// declarations (testdata/gemini/ holds the hook input it really sent);
// the older spellings (absolute_path, path, include, directory) are those
// of earlier releases, still honoured because limen-hook does not know
// which release runs it. Special cases, besides this table:
//
//   - run_shell_command's dir_path (directory before) becomes a leading
//     `cd DIR &&` in the command, so that rules and keys see where it runs;
//   - web_fetch has no url: Gemini fetches every http(s) URL in its prompt.
//     With exactly one it is a WebFetch of that URL; with none it stays
//     web_fetch (it fetches nothing); with several it is refused, since one
//     decision would otherwise vouch for URLs the rules never saw (a
//     WebFetch(domain:…) block beaten by naming a second URL first);
//   - read_many_files has no Claude Code equivalent and keeps its name; its
//     older paths list is merged into include, so one list says what it reads;
//   - MCP tools: see geminiMCPName.
var geminiTools = map[string]geminiTool{
	"run_shell_command":   {"Bash", map[string][]string{"command": {"command"}}},
	"read_file":           {"Read", map[string][]string{"file_path": {"file_path", "absolute_path", "path"}}},
	"write_file":          {"Write", map[string][]string{"file_path": {"file_path"}, "content": {"content"}}},
	"replace":             {"Edit", map[string][]string{"file_path": {"file_path"}, "old_string": {"old_string"}, "new_string": {"new_string"}}},
	"glob":                {"Glob", map[string][]string{"pattern": {"pattern"}, "path": {"dir_path", "path"}}},
	"grep_search":         {"Grep", map[string][]string{"pattern": {"pattern"}, "path": {"dir_path", "path"}, "glob": {"include_pattern", "include"}}},
	"search_file_content": {"Grep", map[string][]string{"pattern": {"pattern"}, "path": {"dir_path", "path"}, "glob": {"include_pattern", "include"}}},
	"list_directory":      {"LS", map[string][]string{"path": {"dir_path", "path"}}},
	"google_web_search":   {"WebSearch", map[string][]string{"query": {"query"}}},
	"web_fetch":           {"WebFetch", nil},
	"read_many_files":     {"read_many_files", nil},
}

// geminiMCPContext is the mcp_context Gemini CLI adds to the hook input of
// an MCP tool.
type geminiMCPContext struct {
	Server string `json:"server_name"`
	Tool   string `json:"tool_name"`
}

// geminiAsClaude returns the Claude Code tool and input of a Gemini call;
// tools it does not know pass as they are. An error means the call cannot
// be read one way only, and fails closed.
func geminiAsClaude(tool string, input json.RawMessage, mcp *geminiMCPContext, cwd string) (string, json.RawMessage, error) {
	if strings.HasPrefix(tool, "mcp_") {
		return geminiMCPName(tool, mcp), input, nil
	}
	m, ok := geminiTools[tool]
	if !ok {
		return tool, input, nil
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(input, &args); err != nil {
		return "", nil, fmt.Errorf("tool_input of Gemini's %s is not a JSON object: %w", tool, err)
	}
	if args == nil {
		args = map[string]json.RawMessage{}
	}
	for _, to := range sortedNames(m.args) {
		v, err := takeOne(tool, args, m.args[to])
		if err != nil {
			return "", nil, err
		}
		if v != nil {
			args[to] = v
		}
	}
	switch tool {
	case "run_shell_command":
		dir, err := takeOne(tool, args, []string{"dir_path", "directory"})
		if err != nil {
			return "", nil, err
		}
		if err := inDir(args, dir, cwd); err != nil {
			return "", nil, err
		}
	case "web_fetch":
		urls := promptURLs(args["prompt"])
		switch len(urls) {
		case 0:
			m.tool = "web_fetch"
		case 1:
			args["url"], _ = marshalPlain(urls[0])
		default:
			return "", nil, fmt.Errorf("the prompt of Gemini's web_fetch names %d URLs (%s): limen decides on one URL at a time, so it does not decide on these; fetch them one per call", len(urls), strings.Join(urls, ", "))
		}
	case "read_many_files":
		if err := mergeLists(args, "include", "paths"); err != nil {
			return "", nil, err
		}
	}
	b, err := marshalPlain(args)
	if err != nil {
		return "", nil, fmt.Errorf("tool_input of Gemini's %s: %w", tool, err)
	}
	return m.tool, b, nil
}

// marshalPlain is json.Marshal without HTML escaping, so that a command's
// && stays readable where limend shows and records it.
func marshalPlain(v any) (json.RawMessage, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(strings.TrimSuffix(b.String(), "\n")), nil
}

func sortedNames(m map[string][]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// takeOne removes every name from args and returns the value they give; two
// different values are an error naming both.
func takeOne(tool string, args map[string]json.RawMessage, names []string) (json.RawMessage, error) {
	var v json.RawMessage
	var from string
	for _, n := range names {
		w, ok := args[n]
		if !ok {
			continue
		}
		delete(args, n)
		if v != nil && !sameJSON(v, w) {
			return nil, fmt.Errorf("tool_input of Gemini's %s gives both %s=%s and %s=%s: limen cannot tell which one Gemini CLI uses, so it does not decide on either; send one", tool, from, v, n, w)
		}
		if v == nil {
			v, from = w, n
		}
	}
	return v, nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// inDir makes a shell command that Gemini runs in dir (dir_path) read as
// `cd 'dir' && command`: the command's relative paths are dir's, and a rule
// or a person must see that it runs in ~/.ssh, not in the workspace. A dir
// that is the call's cwd ("." or the cwd spelled out, as models often send)
// changes nothing and is dropped, so `npm test` stays `npm test` for the
// rules written for it.
func inDir(args map[string]json.RawMessage, dir json.RawMessage, cwd string) error {
	if dir == nil || string(dir) == "null" {
		return nil
	}
	var d string
	if err := json.Unmarshal(dir, &d); err != nil {
		return fmt.Errorf("dir_path of Gemini's run_shell_command is %s, not a string: send the directory's path", dir)
	}
	if strings.TrimSpace(d) == "" {
		return nil // the project root, as Gemini CLI reads an empty dir_path
	}
	if abs := d; cwd != "" && strings.HasPrefix(cwd, "/") {
		if !strings.HasPrefix(abs, "/") {
			abs = cwd + "/" + abs
		}
		if path.Clean(abs) == path.Clean(cwd) {
			return nil
		}
	}
	var cmd string
	if c, ok := args["command"]; ok {
		if err := json.Unmarshal(c, &cmd); err != nil {
			return nil // not a string: Bash's own check refuses it
		}
	}
	args["command"], _ = marshalPlain("cd " + shellQuote(d) + " && " + cmd)
	return nil
}

// shellQuote quotes s for a POSIX shell, in single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// promptURLs returns the URLs in a web_fetch prompt, found at least as
// Gemini CLI finds them: the words containing "://", with words split at
// every space JavaScript's \s knows (U+FEFF included) and every one Go's
// unicode.IsSpace knows (U+0085), so that no split of Gemini's hides a
// second URL inside what limen took for one.
func promptURLs(prompt json.RawMessage) []string {
	var p string
	if json.Unmarshal(prompt, &p) != nil {
		return nil
	}
	var urls []string
	for _, w := range strings.FieldsFunc(p, func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }) {
		if strings.Contains(w, "://") {
			urls = append(urls, w)
		}
	}
	return urls
}

// mergeLists moves the strings of args[from] into args[into], so that one
// list names everything the call reads.
func mergeLists(args map[string]json.RawMessage, into, from string) error {
	extra, ok := args[from]
	if !ok {
		return nil
	}
	var a, b []any
	if v, ok := args[into]; ok {
		if err := json.Unmarshal(v, &a); err != nil {
			return fmt.Errorf("%s of Gemini's read_many_files is %s, not a list of paths and globs", into, v)
		}
	}
	if err := json.Unmarshal(extra, &b); err != nil {
		return fmt.Errorf("%s of Gemini's read_many_files is %s, not a list of paths and globs", from, extra)
	}
	delete(args, from)
	args[into], _ = json.Marshal(append(a, b...))
	return nil
}

// geminiMCPName turns Gemini CLI's MCP tool name mcp_<server>_<tool> into
// Claude Code's mcp__<server>__<tool>, so that rules such as
// mcp__github__* apply. Server and tool names may both hold underscores,
// so the name alone does not say where the server ends: Gemini's
// mcp_context (server_name, tool_name) decides when it spells exactly this
// name; failing that, a name with a single underscore after mcp_ splits
// there. Anything else (mcp_my_db_query with no context, or a name Gemini
// shortened with "...") keeps Gemini's own name: a tool of its own, learned
// only from answers about it, and matched by no mcp__ rule. Guessing a
// split could put the call under another server's rules.
func geminiMCPName(name string, mcp *geminiMCPContext) string {
	if mcp != nil && mcp.Server != "" && mcp.Tool != "" && !strings.Contains(mcp.Server, "__") &&
		"mcp_"+mcp.Server+"_"+mcp.Tool == name {
		return "mcp__" + mcp.Server + "__" + mcp.Tool
	}
	if strings.HasPrefix(name, "mcp__") {
		return name // Claude Code's spelling already
	}
	rest := strings.TrimPrefix(name, "mcp_")
	server, tool, ok := strings.Cut(rest, "_")
	if ok && server != "" && tool != "" && !strings.Contains(tool, "_") {
		return "mcp__" + server + "__" + tool
	}
	return name
}
