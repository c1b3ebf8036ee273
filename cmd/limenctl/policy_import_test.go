package main

import (
	"strings"
	"testing"
)

// TestImportClaudeRefusesWholeToolAllows: an allow rule that covers a
// whole tool (Bash(*), common in real settings) would let an agent use it
// without ever asking, since allow rules outrank the prediction: import
// refuses the file and imports nothing, --dry-run warns, and --force
// imports it with the warning. Narrow rules go through as before.
func TestImportClaudeRefusesWholeToolAllows(t *testing.T) {
	for _, tt := range []struct{ rule, what string }{
		{"Bash(*)", "every Bash command"}, {"Bash", "every Bash command"}, {"Bash(:*)", "every Bash command"},
		{"Edit(**)", "every Edit call"}, {"WebFetch(domain:*)", "every WebFetch call"},
		{"mcp__github", "every tool of the MCP server github"}, {"mcp__github__*", "every tool whose name matches mcp__github__*"},
		{"Bash(npm test:*)", ""}, {"Read(./src/**)", ""}, {"mcp__github__create_issue", ""}, {"WebFetch(domain:github.com)", ""},
	} {
		if got := wholeTool(tt.rule); got != tt.what {
			t.Errorf("wholeTool(%q) = %q; want %q", tt.rule, got, tt.what)
		}
	}

	run, api := polDaemon(t)
	settings := polWriteFile(t, "settings.json", `{"permissions": {"allow": ["Bash(*)", "Bash(npm test:*)"]}}`, 0o600)
	_, errOut, code := run("policy", "import-claude", settings)
	want := "limenctl: refused: nothing was imported: Bash(*) allows every Bash command without asking (only a block or ask rule stops one)\nhint: leave it out of " + settings
	if code != exitRefused || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "or pass --force") {
		t.Errorf("import of Bash(*) = %d, %q; want %d, %q and --force", code, errOut, exitRefused, want)
	}
	if v := polCurrent(t, api).GetVersion(); v != 1 {
		t.Fatalf("a refused import set the policy to v%d", v)
	}
	out, _, code := run("policy", "import-claude", "--dry-run", settings)
	if code != exitOK || !strings.Contains(out, "note: Bash(*) allows every Bash command without asking (only a block or ask rule stops one); import refuses it without --force") {
		t.Errorf("dry run = %d:\n%s", code, out)
	}
	out, errOut, code = run("policy", "import-claude", "--force", settings)
	if code != exitOK || !strings.Contains(out, "note: Bash(*) allows every Bash command without asking") || strings.Contains(out, "without --force") {
		t.Errorf("import --force = %d:\n%s%s", code, out, errOut)
	}
	if doc := polCurrent(t, api).GetDocument(); !strings.Contains(doc, `"Bash(*)"`) {
		t.Errorf("--force did not import Bash(*):\n%s", doc)
	}
}
