package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestForget, against a real limend: two denials of make deploy block
// it; a dry run lists them and changes nothing; forgetting one by its ask
// id unblocks it (one refusal blocks nothing), and history shows it as
// forgotten; forgetting by action takes the other; --last takes back an
// approval for the session, whose grant ends with it.
func TestForget(t *testing.T) {
	run, _ := polDaemon(t)
	ask := func(cmd, choice string, extra ...string) {
		t.Helper()
		out, errOut, code := run(append([]string{"--json", "decide", "--session", "s1"}, cmd)...)
		var d struct {
			AskID string `json:"ask_id"`
		}
		if code != exitAsk || json.Unmarshal([]byte(out), &d) != nil || d.AskID == "" {
			t.Fatalf("decide %s = %d: %s%s; want an ask", cmd, code, out, errOut)
		}
		if _, errOut, code := run(append([]string{"answer", d.AskID, choice}, extra...)...); code != exitOK {
			t.Fatalf("answer %s %s = %d: %s", d.AskID, choice, code, errOut)
		}
	}
	ask("make deploy", "--deny")
	ask("make deploy", "--deny")
	if _, _, code := run("decide", "make deploy"); code != exitBlock {
		t.Fatalf("make deploy after two denials = %d; want block", code)
	}

	// A flag after the command would be part of it, and the forget real:
	// refused, with the order that works, and nothing forgotten.
	if _, errOut, code := run("forget", "make", "deploy", "--dry-run"); code != exitUsage || !strings.Contains(errOut, "limenctl forget --dry-run make deploy") {
		t.Fatalf("forget make deploy --dry-run = %d: %s; want a usage error naming the order that works", code, errOut)
	}
	if _, _, code := run("decide", "make deploy"); code != exitBlock {
		t.Fatalf("make deploy after a refused forget = %d; want block still", code)
	}
	out, errOut, code := run("forget", "--key", "Bash:make deploy", "--dry-run")
	if code != exitOK {
		t.Fatalf("forget --dry-run = %d: %s", code, errOut)
	}
	polContains(t, "forget --dry-run", out, "would forget 2 answers (dry run: nothing was forgotten)", "deny", "Bash:make deploy")
	if _, _, code := run("decide", "make deploy"); code != exitBlock {
		t.Fatalf("make deploy after a dry run = %d; want block still", code)
	}
	var dry struct {
		Answers []struct {
			AskID string `json:"ask_id"`
		} `json:"answers"`
		DryRun bool `json:"dry_run"`
	}
	out, _, _ = run("--json", "forget", "--key", "Bash:make deploy", "--dry-run")
	if err := json.Unmarshal([]byte(out), &dry); err != nil || len(dry.Answers) != 2 || !dry.DryRun {
		t.Fatalf("forget --json --dry-run = %+v (%v):\n%s", dry, err, out)
	}

	out, errOut, code = run("forget", "--ask", dry.Answers[0].AskID)
	if code != exitOK {
		t.Fatalf("forget --ask = %d: %s", code, errOut)
	}
	polContains(t, "forget --ask", out, "forgot 1 answer; limen's counts are rebuilt without them")
	if out, _, code := run("decide", "make deploy"); code == exitBlock {
		t.Errorf("make deploy after one of its two denials was forgotten = block; want ask:\n%s", out)
	}
	out, _, _ = run("history", "--asks")
	polContains(t, "history", out, "denied (forgotten)")

	out, _, code = run("forget", "make deploy")
	if code != exitOK || !strings.Contains(out, "forgot 1 answer") {
		t.Errorf("forget make deploy = %d:\n%s\nwant the other denial forgotten", code, out)
	}

	ask("make build", "--approve", "--session")
	if _, _, code := run("decide", "--session", "s1", "make build"); code != exitOK {
		t.Fatalf("make build in s1 after an approval for the session = %d; want allow", code)
	}
	if out, errOut, code = run("forget", "--last"); code != exitOK || !strings.Contains(out, "approve (session)") {
		t.Fatalf("forget --last = %d: %s%s; want the approval for the session", code, out, errOut)
	}
	if _, _, code := run("decide", "--session", "s1", "make build"); code != exitAsk {
		t.Errorf("make build in s1 after its session approval was forgotten = %d; want ask", code)
	}
	if _, errOut, code := run("forget"); code != exitUsage || !strings.Contains(errOut, "say which answers to forget") {
		t.Errorf("forget with no selector = %d: %s; want a usage error", code, errOut)
	}
}

// TestForgetSaysTheRuleStays: forgetting an answer given with --always
// unlearns it but leaves the rule made with it; forget says so, and how
// to take the rule out (the trial thought undo had taken it back too).
// An answer made with no rule says nothing of one.
func TestForgetSaysTheRuleStays(t *testing.T) {
	run, api := polDaemon(t)
	for _, cmd := range []string{"npm test", "make lint"} {
		if _, errOut, code := run("decide", cmd); code != exitAsk {
			t.Fatalf("decide %s = %d: %s", cmd, code, errOut)
		}
	}
	if out, errOut, code := run("answer", "1", "--approve", "--always"); code != exitOK {
		t.Fatalf("answer --always = %d: %s%s", code, out, errOut)
	}
	if out, errOut, code := run("answer", "2", "--approve"); code != exitOK {
		t.Fatalf("answer = %d: %s%s", code, out, errOut)
	}
	rule := ""
	for _, r := range []string{"Bash(npm test:*)", "Bash(npm test)", "Bash(npm test *)"} {
		if strings.Contains(polCurrent(t, api).GetDocument(), r) {
			rule = r
		}
	}
	if rule == "" {
		t.Fatalf("no rule for npm test in the policy:\n%s", polCurrent(t, api).GetDocument())
	}
	out, errOut, code := run("forget", "--dry-run", "--ask", "1")
	want := "the rule " + rule + " made with ask 1 would stay in the policy, which forgetting does not change: remove it with limenctl policy edit"
	if code != exitOK || !strings.Contains(out, want) {
		t.Errorf("forget --dry-run = %d, %s%s\nwant %q", code, out, errOut, want)
	}
	out, errOut, code = run("forget", "--ask", "1", "--ask", "2")
	want = "the rule " + rule + " made with ask 1 stays in the policy"
	if code != exitOK || !strings.Contains(out, want) || strings.Count(out, "the rule ") != 1 {
		t.Errorf("forget = %d, %s%s\nwant %q, once", code, out, errOut, want)
	}
	if !strings.Contains(polCurrent(t, api).GetDocument(), rule) {
		t.Errorf("forget took the rule out")
	}
}
