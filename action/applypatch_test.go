package action

import (
	"slices"
	"strings"
	"testing"
)

// TestApplyPatchLeniency: Codex's parser trims each hunk header and is
// lenient about the envelope, so limen names every file Codex could write
// however the patch is spelled; a patch it cannot read fully is opaque.
func TestApplyPatchLeniency(t *testing.T) {
	const codex = "/home/ana/.codex/config.toml"
	tests := []struct {
		name   string
		input  map[string]any
		files  []string
		opaque bool // the parts end with (or are) an opaque part
	}{
		{"plain", map[string]any{"command": "*** Begin Patch\n*** Add File: ~/.codex/config.toml\n+x\n*** End Patch\n"}, []string{codex}, false},
		{"indented header", map[string]any{"command": "*** Begin Patch\n  *** Add File: ~/.codex/config.toml\n+x\n*** End Patch\n"}, []string{codex}, false},
		{"tab-indented header", map[string]any{"command": "*** Begin Patch\n\t*** Update File: /home/ana/.codex/hooks.json\n@@\n-a\n+b\n*** End Patch"}, []string{"/home/ana/.codex/hooks.json"}, false},
		{"trailing whitespace", map[string]any{"command": "*** Begin Patch\n*** Delete File: ~/.codex/config.toml \t\n*** End Patch"}, []string{codex}, false},
		{"no-break space", map[string]any{"command": "*** Begin Patch\n\u00a0*** Add File: ~/.codex/config.toml\u3000\n+x\n*** End Patch"}, []string{codex}, false},
		{"CRLF", map[string]any{"command": "*** Begin Patch\r\n*** Add File: a.txt\r\n+x\r\n*** End Patch\r\n"}, []string{"/home/ana/shop/a.txt"}, false},
		{"bare CR", map[string]any{"command": "*** Begin Patch\r*** Add File: ~/.codex/config.toml\r+x\r*** End Patch"}, []string{codex}, false},
		{"no envelope", map[string]any{"command": "*** Update File: ~/.codex/config.toml\n@@\n-a\n+b\n"}, []string{codex}, false},
		{"heredoc", map[string]any{"command": "<<'EOF'\n*** Begin Patch\n*** Delete File: ~/.codex/config.toml\n*** End Patch\nEOF\n"}, []string{codex}, false},
		{"path with spaces", map[string]any{"command": "*** Begin Patch\n*** Add File: my notes/a b.txt\n+x\n*** End Patch"}, []string{"/home/ana/shop/my notes/a b.txt"}, false},
		{"marker in another case", map[string]any{"command": "*** begin patch\n*** ADD FILE: ~/.codex/config.toml\n+x\n*** end patch"}, []string{codex}, false},
		{"move", map[string]any{"command": "*** Begin Patch\n*** Update File: src/a.go\n*** Move to: ~/.codex/config.toml\n@@\n-a\n+b\n*** End Patch"}, []string{"/home/ana/shop/src/a.go", codex}, false},
		{"indented move", map[string]any{"command": "*** Begin Patch\n*** Update File: src/a.go\n   *** Move to: ~/.codex/config.toml\n@@\n-a\n+b\n*** End Patch"}, []string{"/home/ana/shop/src/a.go", codex}, false},
		{"one file twice", map[string]any{"command": "*** Update File: a.go\n@@\n-a\n+b\n*** Update File: a.go\n@@\n-c\n+d\n"}, []string{"/home/ana/shop/a.go"}, false},
		{"markdown rule in context", map[string]any{"command": "*** Begin Patch\n*** Update File: README.md\n@@\n ***\n-a\n+b\n*** End Patch"}, []string{"/home/ana/shop/README.md"}, false},
		{"added line that looks like a header", map[string]any{"command": "*** Begin Patch\n*** Add File: notes.md\n+*** Add File: ~/.codex/config.toml\n*** End Patch"}, []string{"/home/ana/shop/notes.md"}, false},
		{"unknown marker", map[string]any{"command": "*** Begin Patch\n*** Update File: a.go\n@@\n-a\n+b\n*** Rename File: ~/.codex/config.toml\n*** End Patch"}, []string{"/home/ana/shop/a.go"}, true},
		{"marker without its space", map[string]any{"command": "*** Begin Patch\n*** Update File: a.go\n@@\n-a\n+b\n*** Add File:~/.codex/config.toml\n*** End Patch"}, []string{"/home/ana/shop/a.go"}, true},
		{"marker with an empty path", map[string]any{"command": "*** Begin Patch\n*** Add File: \n+x\n*** End Patch"}, nil, true},
		{"argv", map[string]any{"command": []any{"apply_patch", "*** Begin Patch\n*** Add File: ~/.codex/config.toml\n+x\n*** End Patch"}}, []string{codex}, false},
		{"argv with a non-string", map[string]any{"command": []any{"apply_patch", 3.0, "*** Add File: a.txt\n+x"}}, []string{"/home/ana/shop/a.txt"}, true},
		{"not text", map[string]any{"command": 3.0}, nil, true},
		{"command and input", map[string]any{"command": "*** Add File: a.txt\n+x", "input": "*** Add File: ~/.codex/config.toml\n+x"}, []string{"/home/ana/shop/a.txt", codex}, false},
		{"patch field", map[string]any{"patch": "*** Add File: ~/.codex/config.toml\n+x"}, []string{codex}, false},
		{"workdir", map[string]any{"command": "*** Add File: config.toml\n+x", "workdir": "/home/ana/.codex"}, []string{codex}, false},
		{"relative workdir", map[string]any{"command": "*** Add File: x.go\n+x", "workdir": "src"}, []string{"/home/ana/shop/src/x.go"}, false},
		{"cd in the command", map[string]any{"command": "cd ~ && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: .codex/config.toml\n+x\n*** End Patch\nEOF"}, []string{"/home/ana/shop/.codex/config.toml", codex}, false},
		{"no file", map[string]any{"command": "rm -rf /"}, nil, true},
		{"nothing", map[string]any{}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := Parts(Action{User: "ana", Tool: "apply_patch", Input: tt.input, Cwd: "/home/ana/shop"})
			var files []string
			for i, p := range parts {
				if p.Opaque {
					if i != len(parts)-1 {
						t.Errorf("opaque part %d of %d; it belongs last", i, len(parts))
					}
					continue
				}
				if p.Tool == "Bash" && strings.HasPrefix(p.Subject, "rm -- ") {
					continue // a deleted file is also an rm of it (TestThirdPassMarks)
				}
				if p.Tool != "Edit" || p.Keys[0] != "Edit" {
					t.Errorf("part %+v is not an Edit", p)
				}
				files = append(files, p.Subject)
			}
			if !slices.Equal(files, tt.files) {
				t.Errorf("files = %q; want %q", files, tt.files)
			}
			if got := parts[len(parts)-1].Opaque; got != tt.opaque {
				t.Errorf("opaque = %v; want %v (parts %+v)", got, tt.opaque, parts)
			}
		})
	}
}

// A workdir does not move the workspace: an absolute path under a workdir
// of /etc is outside the workspace, not in it.
func TestApplyPatchWorkdirKeepsTheWorkspace(t *testing.T) {
	parts := Parts(Action{User: "ana", Tool: "apply_patch", Cwd: "/home/ana/shop",
		Input: map[string]any{"command": "*** Add File: /etc/cron.d/x\n+x", "workdir": "/etc"}})
	if len(parts) != 1 || parts[0].Keys[1] != "Edit:"+ClassOutside {
		t.Errorf("parts = %+v; want one Edit classed %s", parts, ClassOutside)
	}
}

// TestShellApplyPatch: apply_patch run from a shell writes the files its
// heredoc names, as an Edit of each; one whose patch limen cannot see is
// opaque.
func TestShellApplyPatch(t *testing.T) {
	const codex = "/home/ana/.codex/config.toml"
	tests := []struct {
		name    string
		command string
		files   []string
		opaque  bool
	}{
		{"heredoc", "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ~/.codex/config.toml\n+x\n*** End Patch\nEOF", []string{codex}, false},
		{"bash -lc", "bash -lc \"cd /home/ana && apply_patch <<'EOF'\n*** Begin Patch\n  *** Update File: .codex/config.toml\n@@\n-a\n+b\n*** End Patch\nEOF\"", []string{"/home/ana/shop/.codex/config.toml", codex}, false},
		{"workdir", "apply_patch <<'EOF'\n*** Add File: config.toml\n+x\nEOF", []string{"/home/ana/shop/config.toml", codex}, false},
		{"built by printf", `printf '%s\n' "$P" | apply_patch`, nil, true},
		{"other name", "applypatch < p.diff", nil, true},
		{"sudo", "sudo apply_patch < p.diff", nil, true},
		{"named, not run", "grep -rn apply_patch src/", nil, false},
		{"no patch", "git status", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]any{"command": tt.command}
			if tt.name == "workdir" {
				in["workdir"] = "~/.codex"
			}
			parts := Parts(Action{User: "ana", Tool: "Bash", Input: in, Cwd: "/home/ana/shop"})
			var files []string
			opaque := false
			for _, p := range parts {
				if p.Tool == "Edit" {
					files = append(files, p.Subject)
				}
				if p.Opaque && p.Keys[1] == "Bash:<patch unread>" {
					opaque = true
				}
			}
			if !slices.Equal(files, tt.files) || opaque != tt.opaque {
				t.Errorf("edits %q, unread %v; want %q, %v", files, opaque, tt.files, tt.opaque)
			}
		})
	}
}
