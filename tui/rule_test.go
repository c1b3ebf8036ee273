package tui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestSuggestRule(t *testing.T) {
	tests := []struct {
		name string
		act  *limenv1.Action
		key  string
		want string
	}{
		{"program and subcommand", bashAction("ana", "", "", "git push --force origin main", "/home/ana/shop"), "", "Bash(git push:*)"},
		{"program alone when the next word is a flag", bashAction("ana", "", "", "ls -la", "/home/ana"), "", "Bash(ls:*)"},
		{"program alone when the next word is a path", bashAction("ana", "", "", "cat /etc/hosts", "/home/ana"), "", "Bash(cat:*)"},
		{"the wrapper that raises privileges stays", bashAction("ana", "", "", "sudo apt update", "/home/ana"), "", "Bash(sudo apt update:*)"},
		{"the part that decided, in a compound command", bashAction("ana", "", "", "make build && terraform apply", "/home/ana"), "Bash:terraform apply", "Bash(terraform apply:*)"},
		{"a file tool gets its path", &limenv1.Action{User: "ana", Tool: "Edit", InputJson: `{"file_path":"/home/ana/shop/main.go"}`, Cwd: "/home/ana/shop"}, "", "Edit(/home/ana/shop/main.go)"},
		{"a fetch gets its domain", &limenv1.Action{User: "ana", Tool: "WebFetch", InputJson: `{"url":"https://docs.github.com/x"}`}, "", "WebFetch(domain:docs.github.com)"},
		{"an MCP tool gets its name", &limenv1.Action{User: "ana", Tool: "mcp__github__create_issue", InputJson: `{"title":"x"}`}, "", "mcp__github__create_issue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := suggestRule(&limenv1.Decision{Action: tt.act, Key: tt.key})
			if got != tt.want {
				t.Errorf("suggestRule = %q; want %q", got, tt.want)
			}
			// Every suggestion parses and covers the action it came from.
			r, err := policy.ParseRule(policy.Allow, got)
			if err != nil {
				t.Fatalf("suggestion does not parse: %v", err)
			}
			if !strings.Contains(tt.act.GetInputJson(), "&&") && !covers(r, tt.act) {
				t.Errorf("suggestion %s does not cover the action", got)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	allow, _ := policy.ParseRule(policy.Allow, "Bash(git:*)")
	block, _ := policy.ParseRule(policy.Block, "Bash(git:*)")
	compound := bashAction("ana", "", "", "git pull && rm -rf build", "/home/ana")
	if covers(allow, compound) {
		t.Error("an allow rule covers a compound command one of whose parts it does not match")
	}
	if !covers(block, compound) {
		t.Error("a block rule misses a compound command one of whose parts it matches")
	}
	if covers(allow, bashAction("ana", "", "", "sudo git pull", "/home/ana")) {
		t.Error("an allow rule without sudo covers the command under sudo")
	}
}

// TestNoColor: NO_COLOR (or --no-color) gives a renderer with no colour,
// even on a terminal that has it.
func TestNoColor(t *testing.T) {
	t.Run("NO_COLOR", func(t *testing.T) {
		t.Setenv("NO_COLOR", "1")
		r := NewRenderer(&bytes.Buffer{}, false, termenv.WithProfile(termenv.TrueColor), termenv.WithTTY(true))
		if r.ColorProfile() != termenv.Ascii {
			t.Errorf("profile %v under NO_COLOR; want Ascii", r.ColorProfile())
		}
		if s := DefaultStyles(r).Block.Render("x"); strings.Contains(s, "\x1b[3") || strings.Contains(s, "\x1b[38") {
			t.Errorf("styled text has colour codes: %q", s)
		}
	})
	t.Run("--no-color", func(t *testing.T) {
		t.Setenv("NO_COLOR", "")
		r := NewRenderer(&bytes.Buffer{}, true, termenv.WithProfile(termenv.TrueColor))
		if r.ColorProfile() != termenv.Ascii {
			t.Errorf("profile %v with noColor; want Ascii", r.ColorProfile())
		}
	})
	t.Run("colour otherwise", func(t *testing.T) {
		t.Setenv("NO_COLOR", "")
		t.Setenv("CLICOLOR_FORCE", "1")
		r := NewRenderer(&bytes.Buffer{}, false, termenv.WithProfile(termenv.TrueColor), termenv.WithTTY(true))
		r.SetColorProfile(termenv.TrueColor)
		if s := DefaultStyles(r).Block.Render("x"); !strings.Contains(s, "\x1b[") {
			t.Errorf("no colour codes with colour on: %q", s)
		}
	})
}
