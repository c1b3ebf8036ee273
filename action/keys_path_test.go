package action

import (
	"slices"
	"strings"
	"testing"
)

// TestFileToolsReadWhatTheyCanRead keys file tools by path and glob: a
// search that could read a secret has the secret class, whatever tool name
// it arrives under, and an ordinary one does not.
func TestFileToolsReadWhatTheyCanRead(t *testing.T) {
	const cwd = "/home/ana/shop"
	act := func(tool string, in map[string]any) Action {
		return Action{User: "ana", Tool: tool, Cwd: cwd, Input: in}
	}
	tests := []struct {
		name   string
		a      Action
		secret bool
	}{
		{"Grep TODO in ./src", act("Grep", map[string]any{"pattern": "TODO", "path": "src"}), false},
		{"Grep with a *.go glob", act("Grep", map[string]any{"pattern": "TODO", "glob": "*.go"}), false},
		{"Grep with glob .env*", act("Grep", map[string]any{"pattern": ".", "glob": ".env*", "output_mode": "content"}), true},
		{"Grep with glob .en?", act("Grep", map[string]any{"pattern": "KEY", "glob": ".en?"}), true},
		{"Grep with glob **/*.pem", act("Grep", map[string]any{"pattern": "BEGIN", "glob": "**/*.pem"}), true},
		{"Grep with glob {*.go,.env}", act("Grep", map[string]any{"pattern": "x", "glob": "{*.go,.env}"}), true},
		{"Grep with an exclusion only", act("Grep", map[string]any{"pattern": "x", "glob": "!*.md"}), false},
		{"Grep of a .env file by path", act("Grep", map[string]any{"pattern": "KEY", "path": ".env"}), true},
		{"Grep of the home directory", act("Grep", map[string]any{"pattern": "token", "path": "~"}), true},
		{"Grep of ~/.config", act("Grep", map[string]any{"pattern": "token", "path": "/home/ana/.config"}), true},
		{"Grep of ~/.[s]sh", act("Grep", map[string]any{"pattern": ".", "path": "~/.[s]sh"}), true},
		{"Grep of the home with a *.go glob", act("Grep", map[string]any{"pattern": "x", "path": "~", "glob": "*.go"}), false},
		{"Glob **/*.go", act("Glob", map[string]any{"pattern": "**/*.go"}), false},
		{"Glob .env*", act("Glob", map[string]any{"pattern": ".env*"}), true},
		{"Glob **/.env*", act("Glob", map[string]any{"pattern": "**/.env*"}), true},
		{"Glob of ~/.ssh", act("Glob", map[string]any{"pattern": "*", "path": "~/.ssh"}), true},
		{"Glob that climbs out of the workspace", act("Glob", map[string]any{"pattern": "../.ssh/*"}), true},
		{"Glob that climbs out through **", act("Glob", map[string]any{"pattern": "**/../../.aws/*", "path": "src"}), true},
		{"Grep glob that climbs out", act("Grep", map[string]any{"pattern": "x", "glob": "../.npmrc"}), true},
		{"Glob of an absolute secret pattern", act("Glob", map[string]any{"pattern": "/home/*/.aws/*"}), true},
		// Gemini's glob and read_many_files match hidden names with
		// wildcards (dot: true); ripgrep's Grep does not.
		{"glob **/*rc reads .npmrc", act("glob", map[string]any{"pattern": "**/*rc"}), true},
		{"read_many_files **/*rc", act("read_many_files", map[string]any{"include": []any{"**/*rc"}}), true},
		{"read_many_files ~/*/id_*", act("read_many_files", map[string]any{"paths": []any{"~/*/id_*"}}), true},
		{"read_many_files *env.local", act("read_many_files", map[string]any{"include": []any{"*env.local"}}), true},
		{"glob ?env.production", act("glob", map[string]any{"pattern": "**/?env.production"}), true},
		{"glob **/*.ts does not read .env.ts", act("glob", map[string]any{"pattern": "**/*.ts"}), false},
		{"read_many_files **/*.md", act("read_many_files", map[string]any{"include": []any{"**/*.md"}}), false},
		{"Grep glob *npmrc skips hidden files", act("Grep", map[string]any{"pattern": "x", "glob": "*npmrc"}), false},
		{"glob *npmrc reads .npmrc", act("glob", map[string]any{"pattern": "*npmrc"}), true},
		{"LS of the workspace", act("LS", map[string]any{"path": cwd}), false},
		{"LS of ~/.ssh", act("LS", map[string]any{"path": "~/.ssh"}), true},
		{"Read of gh's token", act("Read", map[string]any{"file_path": "~/.config/gh/hosts.yml"}), true},
		{"Read of /proc/self/environ", act("Read", map[string]any{"file_path": "/proc/self/environ"}), true},
		// Gemini CLI, unmapped or mapped.
		{"read_many_files of sources", act("read_many_files", map[string]any{"paths": []any{"src/**/*.ts", "README.md"}}), false},
		{"read_many_files include **/.env*", act("read_many_files", map[string]any{"include": []any{"**/.env*"}}), true},
		{"read_many_files mapped to Read, include .env*", act("Read", map[string]any{"include": []any{"docs/*.md", ".env*"}}), true},
		{"read_many_files of the home directory", act("read_many_files", map[string]any{"paths": []any{"~/.aws"}}), true},
		{"grep_search include .env*", act("grep_search", map[string]any{"pattern": "KEY", "include": ".env*"}), true},
		{"grep_search in src", act("grep_search", map[string]any{"pattern": "KEY", "dir_path": "src", "include": "*.ts"}), false},
		{"search_file_content include", act("search_file_content", map[string]any{"pattern": "KEY", "include": "**/.npmrc"}), true},
		{"glob **/.env*", act("glob", map[string]any{"pattern": "**/.env*"}), true},
		{"list_directory ~/.gnupg", act("list_directory", map[string]any{"dir_path": "/home/ana/.gnupg"}), true},
		{"read_file absolute_path", act("read_file", map[string]any{"absolute_path": "/home/ana/.codex/auth.json"}), true},
		{"read_file of a source", act("read_file", map[string]any{"absolute_path": cwd + "/main.go"}), false},
		// Codex.
		{"grep_files include .env*", act("grep_files", map[string]any{"pattern": "KEY", "include": ".env*"}), true},
		{"list_dir ~/.kube", act("list_dir", map[string]any{"dir_path": "/home/ana/.kube"}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := Parts(tt.a)
			secret := false
			for _, p := range parts {
				if p.Opaque {
					t.Fatalf("opaque part %q", p.Keys)
				}
				if strings.HasSuffix(p.Keys[1], ":"+ClassSecret) {
					secret = true
				}
			}
			if secret != tt.secret {
				t.Errorf("secret = %v, want %v; ladders %q", secret, tt.secret, ladders(parts))
			}
		})
	}
}

// TestSearchKeysShareNothingBelowTheRoot checks that the approval of an
// ordinary Grep is no evidence for a Grep of secrets in the same place:
// their ladders share only the tool.
func TestSearchKeysShareNothingBelowTheRoot(t *testing.T) {
	const cwd = "/home/ana/shop"
	todo := Parts(Action{User: "ana", Tool: "Grep", Cwd: cwd, Input: map[string]any{"pattern": "TODO", "path": "src"}})[0]
	env := Parts(Action{User: "ana", Tool: "Grep", Cwd: cwd, Input: map[string]any{"pattern": ".", "path": "src", "glob": ".env*", "output_mode": "content"}})[0]
	want := []string{"Grep", "Grep:secret", "Grep:secret:/home/ana/shop/src", "Grep:secret:/home/ana/shop/src glob=.env* output_mode=content"}
	if !slices.Equal(env.Keys, want) {
		t.Errorf("Grep .env* keys %q, want %q", env.Keys, want)
	}
	for _, k := range todo.Keys[1:] {
		if slices.Contains(env.Keys, k) {
			t.Errorf("key %q is shared by Grep TODO and Grep of .env*", k)
		}
	}
	content := Parts(Action{User: "ana", Tool: "Grep", Cwd: cwd, Input: map[string]any{"pattern": "TODO", "path": "src", "output_mode": "content"}})[0]
	if content.Keys.Exact() == todo.Keys.Exact() {
		t.Errorf("output_mode content has the same exact key as the default: %q", content.Keys.Exact())
	}
}

func TestReadManyFilesIsOnePartPerPath(t *testing.T) {
	a := Action{User: "ana", Tool: "read_many_files", Cwd: "/home/ana/shop", Input: map[string]any{
		"paths": []any{"README.md", "src/**/*.ts"}, "include": []any{"docs/*.md"}, "exclude": []any{"**/*.log"}}}
	parts := Parts(a)
	var subjects []string
	for _, p := range parts {
		if p.Tool != "Read" {
			t.Errorf("part tool %q, want Read", p.Tool)
		}
		subjects = append(subjects, p.Subject)
	}
	want := []string{"/home/ana/shop/README.md", "/home/ana/shop/src/**/*.ts", "/home/ana/shop/docs/*.md"}
	if !slices.Equal(subjects, want) {
		t.Errorf("subjects %q, want %q", subjects, want)
	}
	many := make([]any, maxFileParts+5)
	for i := range many {
		many[i] = "f.txt"
	}
	parts = Parts(Action{User: "ana", Tool: "read_many_files", Cwd: "/home/ana/shop", Input: map[string]any{"paths": many}})
	if len(parts) != maxFileParts+1 || !parts[maxFileParts].Opaque {
		t.Errorf("%d paths: %d parts, want %d ending opaque", len(many), len(parts), maxFileParts+1)
	}
	if p := Parts(Action{User: "ana", Tool: "read_many_files", Cwd: "/home/ana/shop", Input: map[string]any{}}); len(p) != 1 || !p[0].Opaque {
		t.Errorf("read_many_files with nothing to read: %q, want one opaque part", ladders(p))
	}
}

// BenchmarkPartsFiles keys the file tool calls and shell reads of everyday
// work, whose secret check runs on every path they name.
func BenchmarkPartsFiles(b *testing.B) {
	const cwd = "/home/ana/shop"
	for _, a := range []Action{
		{User: "ana", Tool: "Read", Cwd: cwd, Input: map[string]any{"file_path": cwd + "/src/internal/cart/cart.go"}},
		{User: "ana", Tool: "Grep", Cwd: cwd, Input: map[string]any{"pattern": "TODO", "path": "src", "glob": "*.go"}},
		{User: "ana", Tool: "Bash", Cwd: cwd, Input: map[string]any{"command": "cat src/main.go README.md | grep -n TODO"}},
	} {
		b.Run(a.Tool, func(b *testing.B) {
			Parts(a)
			b.ReportAllocs()
			for b.Loop() {
				Parts(a)
			}
		})
	}
}

// TestMCPFileToolsReadSecrets keys an MCP tool given a secret path a level
// of its own below the tool, so reading files with it vouches for nothing
// about reading secrets with it.
func TestMCPFileToolsReadSecrets(t *testing.T) {
	const cwd = "/home/ana/shop"
	tests := []struct {
		tool   string
		in     map[string]any
		secret bool
	}{
		{"mcp__filesystem__read_text_file", map[string]any{"path": "~/.ssh/id_ed25519"}, true},
		{"mcp__filesystem__read_file", map[string]any{"path": "file:///home/ana/.config/gh/hosts.yml"}, true},
		{"mcp__filesystem__read_multiple_files", map[string]any{"paths": []any{"src/a.go", "/proc/self/environ"}}, true},
		{"mcp__filesystem__move_file", map[string]any{"source": ".env", "destination": "/tmp/x"}, true},
		{"mcp__filesystem__search_files", map[string]any{"path": cwd, "pattern": ".en?"}, true},
		{"mcp__filesystem__directory_tree", map[string]any{"path": "/home/ana"}, true},
		{"mcp__filesystem__list_directory", map[string]any{"path": "/home/ana"}, false},
		{"mcp__filesystem__read_text_file", map[string]any{"path": cwd + "/src/main.go"}, false},
		{"mcp__filesystem__search_files", map[string]any{"path": cwd, "pattern": "*.go"}, false},
		{"mcp__slack__post_message", map[string]any{"channel": "dev", "text": "cat .env"}, false},
	}
	for _, tt := range tests {
		p := Parts(Action{User: "ana", Tool: tt.tool, Cwd: cwd, Input: tt.in})[0]
		if got := slices.Contains(p.Keys, tt.tool+":"+ClassSecret); got != tt.secret {
			t.Errorf("%s %v: secret level %v, want %v; keys %q", tt.tool, tt.in, got, tt.secret, p.Keys)
		}
	}
}
