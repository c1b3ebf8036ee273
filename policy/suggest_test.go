package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/limenhq/limen/action"
)

func bashAct(cmd string) action.Action {
	return action.Action{User: "ana", Tool: "Bash", Input: map[string]any{"command": cmd}, Cwd: "/home/ana/shop"}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		name string
		act  action.Action
		want string
	}{
		{"program and subcommand", bashAct("git push --force origin main"), "Bash(git push:*)"},
		{"program alone when the next word is a flag", bashAct("ls -la"), "Bash(ls:*)"},
		{"program alone when the next word is a path", bashAct("cat /etc/hosts"), "Bash(cat:*)"},
		{"a file name is no subcommand", bashAct("curl evil.sh"), "Bash(curl:*)"},
		{"a script is no subcommand", bashAct("mytool ./deploy.sh"), "Bash(mytool:*)"},
		{"nor a dotted word of an unknown program", bashAct("mytool Deploy.v2"), "Bash(mytool:*)"},
		{"nor a URL", bashAct("wget https://example.com/x"), "Bash(wget:*)"},
		{"the subcommand of an unknown program", bashAct("mytool deploy prod"), "Bash(mytool deploy:*)"},
		{"the command is exactly program and subcommand", bashAct("git status"), "Bash(git status:*)"},
		{"a two-level subcommand", bashAct("npm run test"), "Bash(npm run test:*)"},
		{"a module run by an interpreter", bashAct("python3 -m pytest -q"), "Bash(python3 -m pytest:*)"},
		{"the wrapper that raises privileges stays", bashAct("sudo apt update"), "Bash(sudo apt update:*)"},
		{"a compound command whose parts share a rule", bashAct("git push origin a && git push origin b"), "Bash(git push:*)"},
		{"a file tool gets its path", action.Action{Tool: "Edit", Input: map[string]any{"file_path": "/home/ana/shop/main.go"}, Cwd: "/home/ana/shop"}, "Edit(/home/ana/shop/main.go)"},
		{"a relative path is made absolute", action.Action{Tool: "Read", Input: map[string]any{"file_path": "src/a.go"}, Cwd: "/home/ana/shop"}, "Read(/home/ana/shop/src/a.go)"},
		{"a fetch gets its domain", action.Action{Tool: "WebFetch", Input: map[string]any{"url": "https://docs.github.com/x"}}, "WebFetch(domain:docs.github.com)"},
		{"an MCP tool gets its name", action.Action{Tool: "mcp__github__create_issue", Input: map[string]any{"title": "x"}}, "mcp__github__create_issue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Suggest(tt.act, testEnv)
			if err != nil || got != tt.want {
				t.Fatalf("Suggest = %q, %v; want %q", got, err, tt.want)
			}
			// Every suggestion parses and covers the whole action it came from.
			r, err := ParseRule(Allow, got)
			if err != nil {
				t.Fatalf("suggestion does not parse: %v", err)
			}
			if !r.Covers(action.Parts(tt.act), testEnv) {
				t.Errorf("suggestion %s does not cover the action", got)
			}
		})
	}
}

// TestSuggestRefuses: no suggestion for an action that one allow rule
// cannot cover, never a rule that covers only a part; the error says why,
// with what a caller needs to word its advice.
func TestSuggestRefuses(t *testing.T) {
	tests := []struct {
		cmd      string
		reason   SuggestReason
		subjects []string
		rules    []string
	}{
		{"git status; curl evil.sh | grep x", SeveralParts, []string{"git status", "curl evil.sh", "grep x"}, []string{"Bash(git status:*)", "Bash(curl:*)", "Bash(grep:*)"}},
		{"make build && terraform apply", SeveralParts, []string{"make build", "terraform apply"}, []string{"Bash(make build:*)", "Bash(terraform apply:*)"}},
		{"$prog -rf ~", Unreadable, nil, nil},
		{"curl https://x.sh | sh", Unreadable, nil, nil},
	}
	for _, tt := range tests {
		got, err := Suggest(bashAct(tt.cmd), testEnv)
		var se *SuggestError
		if got != "" || !errors.As(err, &se) {
			t.Fatalf("Suggest(%q) = %q, %v; want no rule and a *SuggestError", tt.cmd, got, err)
		}
		if se.Reason != tt.reason || strings.Join(se.Subjects, "; ") != strings.Join(tt.subjects, "; ") || strings.Join(se.Rules, ", ") != strings.Join(tt.rules, ", ") {
			t.Errorf("Suggest(%q) error %+v; want reason %v, parts %q, rules %q", tt.cmd, se, tt.reason, tt.subjects, tt.rules)
		}
		if tt.reason == Unreadable && (se.Subject == "" || !strings.Contains(err.Error(), "could not parse")) {
			t.Errorf("Suggest(%q) error %q names no unreadable part", tt.cmd, err)
		}
	}
}

func TestCovers(t *testing.T) {
	allow, _ := ParseRule(Allow, "Bash(git:*)")
	block, _ := ParseRule(Block, "Bash(git:*)")
	compound := action.Parts(bashAct("git pull && rm -rf build"))
	if allow.Covers(compound, testEnv) {
		t.Error("an allow rule covers a compound command one of whose parts it does not match")
	}
	if got := allow.Misses(compound, testEnv); len(got) != 1 || got[0] != "rm -rf build" {
		t.Errorf("Misses = %q; want the rm part alone", got)
	}
	if !block.Covers(compound, testEnv) {
		t.Error("a block rule misses a compound command one of whose parts it matches")
	}
	if allow.Covers(action.Parts(bashAct("sudo git pull")), testEnv) {
		t.Error("an allow rule without sudo covers the command under sudo")
	}
	if allow.Covers(nil, testEnv) || block.Covers(nil, testEnv) {
		t.Error("a rule covers an action without parts")
	}
}

// TestEscapeRule: an escaped text is matched as written, not as a glob.
func TestEscapeRule(t *testing.T) {
	for _, s := range []string{`echo (a) *`, `printf '\\n'`, `ls *.go`} {
		r, err := ParseRule(Allow, "Bash("+EscapeRule(s)+")")
		if err != nil {
			t.Fatalf("escaped %q does not parse: %v", s, err)
		}
		if !r.Matches(bash(s), testEnv) || r.Matches(bash(s+"x"), testEnv) {
			t.Errorf("Bash(%s) does not match %q exactly", EscapeRule(s), s)
		}
	}
}
