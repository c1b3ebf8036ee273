package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeWalkthrough runs the README's walk-through against a real
// limend: decide → pending → answer → decide again, then history and status.
func TestReadmeWalkthrough(t *testing.T) {
	run, _ := polDaemon(t)

	out, errOut, code := run("decide", "git", "status")
	if code != exitAsk || !strings.Contains(out, "verdict     ask") {
		t.Fatalf("decide git status = %d\n%s%s\nwant an ask", code, out, errOut)
	}
	if !strings.Contains(out, "limenctl answer 1 --approve") {
		t.Errorf("decide does not tell how to answer the ask:\n%s", out)
	}
	// The README's "A first decision" shows this output, line for line.
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, shown, _ := strings.Cut(string(readme), "## A first decision")
	_, shown, _ = strings.Cut(shown, "$ go run ./cmd/limenctl decide git status\n")
	shown, _, _ = strings.Cut(shown, "exit status 5\n")
	if shown != out {
		t.Errorf("the README's first decision differs from decide's output:\n--- README:\n%s--- decide:\n%s", shown, out)
	}

	out, _, code = run("pending")
	if code != exitOK || !strings.Contains(out, "git status") || !strings.HasPrefix(out, "ID") {
		t.Fatalf("pending = %d\n%s", code, out)
	}
	var pending struct {
		Asks []struct {
			AskID string `json:"ask_id"`
		} `json:"asks"`
	}
	out, _, _ = run("pending", "--json")
	if err := json.Unmarshal([]byte(out), &pending); err != nil || len(pending.Asks) != 1 || pending.Asks[0].AskID != "1" {
		t.Fatalf("pending --json = %v (%v); want one ask with id 1:\n%s", pending, err, out)
	}

	if out, errOut, code = run("answer", "1", "--approve"); code != exitOK || !strings.Contains(out, "ask 1 answered: allow") {
		t.Fatalf("answer = %d\n%s%s", code, out, errOut)
	}
	// One approval answers one ask: it is learned, but no standing
	// permission, so the same command is asked again; a second approval
	// lets limen allow it by itself.
	out, _, code = run("decide", "git", "status")
	if code != exitAsk || !strings.Contains(out, "you have approved Bash:git status only once") {
		t.Errorf("second decide does not ask again, saying it was approved once:\n%s", out)
	}
	if out, errOut, code = run("answer", "2", "--approve"); code != exitOK || !strings.Contains(out, "ask 2 answered: allow") {
		t.Fatalf("answer 2 = %d\n%s%s", code, out, errOut)
	}
	out, _, code = run("decide", "git", "status")
	if code != exitOK || !strings.Contains(out, "2 approved, 0 denied at Bash:git status") {
		t.Errorf("third decide does not allow on the two approvals it learned from:\n%s", out)
	}

	// Flags after the command are the command's, not limenctl's.
	out, errOut, code = run("decide", "git", "push", "--force")
	if code != exitAsk || !strings.Contains(out, "git push --force") || !strings.Contains(out, "destructive") {
		t.Errorf("decide git push --force = %d\n%s%s\nwant the command kept whole, in the destructive class", code, out, errOut)
	}

	out, _, code = run("history")
	if code != exitOK || !strings.Contains(out, "person:") || !strings.Contains(out, "approved") {
		t.Errorf("history = %d\n%s", code, out)
	}
	out, _, code = run("status")
	if code != exitOK || !strings.Contains(out, "SERVING") || !strings.Contains(out, "destructive") {
		t.Errorf("status = %d\n%s", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	run, _ := polDaemon(t)
	tests := []struct {
		name string
		args []string
		code int
		hint string
	}{
		{"unknown flag", []string{"history", "--bogus"}, exitUsage, "--help"},
		{"approve and deny at once", []string{"answer", "1", "--approve", "--deny"}, exitUsage, "--approve or --deny, not both"},
		{"the choices of an ask that is not pending", []string{"answer", "1"}, exitRefused, "ask 1 is not pending"},
		{"input that is not JSON", []string{"decide", "--tool", "Edit", "--input", "{nope"}, exitUsage, "not valid JSON"},
		{"unknown ask", []string{"answer", "4242", "--deny"}, exitRefused, "ask 4242"},
		{"an ask id that is not a number", []string{"answer", "abc", "--deny"}, exitUsage, "not an ask id"},
		{"a session-wide deny", []string{"answer", "1", "--deny", "--session"}, exitUsage, "--session goes with --approve"},
		{"refused tool", []string{"decide", "--tool", "", "--input", "{}"}, exitRefused, "action.tool is empty"},
		{"a blocked action", []string{"decide", "rm", "-rf", "/"}, exitBlock, ""},
		{"daemon down", []string{"--socket", filepath.Join(t.TempDir(), "none.sock"), "status"}, exitUnreachable, "start it with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.hint) {
				t.Fatalf("limenctl %v = %d, %q; want exit %d mentioning %q", tt.args, code, errOut, tt.code, tt.hint)
			}
		})
	}
}

// TestPolicySetRefusesAStaleFile exports the policy, lets someone else
// change it, and sets the old file: it must be refused, not undo the change.
func TestPolicySetRefusesAStaleFile(t *testing.T) {
	run, _ := polDaemon(t)
	exported, _, code := run("policy", "show", "--document")
	if code != exitOK || !strings.HasPrefix(exported, "# limen: exported from policy version 1;") {
		t.Fatalf("policy show --document = %d, starts %q; want a version line", code, exported[:min(len(exported), 60)])
	}
	file := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(file, []byte(strings.Replace(exported, "allow = []", `allow = ["Bash(make test)"]`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run("policy", "set", "--costs", "allow=40"); code != exitOK {
		t.Fatalf("set --costs: %d %s", code, errOut)
	}
	_, errOut, code := run("policy", "set", file)
	if code != exitRefused || !strings.Contains(errOut, "policy diff 1 2") {
		t.Fatalf("setting a file exported from version 1 over version 2 = %d %q; want refused with a hint", code, errOut)
	}
	if strings.Contains(errOut, "rpc error") || strings.Count(errOut, "hint:") != 1 {
		t.Errorf("the refusal is printed raw or with its hint twice: %q", errOut)
	}
	doc, _, _ := run("policy", "show", "--document")
	if !strings.Contains(doc, "allow = 40") {
		t.Fatalf("the refused set changed the policy:\n%s", doc)
	}
	if out, errOut, code := run("policy", "set", "--base-version", "2", file); code != exitOK || !strings.Contains(out, "version 3") {
		t.Fatalf("set --base-version 2 = %d %s%s", code, out, errOut)
	}
	doc, _, _ = run("policy", "show", "--document")
	if strings.Count(doc, "# limen: exported from") != 1 {
		t.Errorf("the version line was stored with the document:\n%s", doc)
	}
}
