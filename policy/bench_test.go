package policy

import (
	"testing"

	"github.com/limenhq/limen/action"
)

// BenchmarkClassOf measures the class lookup every part of every decision
// goes through: the default policy holds well over a hundred class rules.
func BenchmarkClassOf(b *testing.B) {
	p := Default()
	env := Env{Cwd: "/home/ana/shop", Home: "/home/ana"}
	var parts []action.Part
	for _, a := range []action.Action{
		{Tool: "Bash", Input: map[string]any{"command": "git status"}, Cwd: env.Cwd},
		{Tool: "Bash", Input: map[string]any{"command": "make build"}, Cwd: env.Cwd},
		{Tool: "Bash", Input: map[string]any{"command": "sudo rm -rf /var/cache/x"}, Cwd: env.Cwd},
		{Tool: "Read", Input: map[string]any{"file_path": "src/main.go"}, Cwd: env.Cwd},
		{Tool: "mcp__github__create_issue", Input: map[string]any{"owner": "acme"}, Cwd: env.Cwd},
	} {
		parts = append(parts, action.Parts(a)...)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, part := range parts {
			p.ClassOf(part, env)
			p.RuleFor(part, env)
		}
	}
}
