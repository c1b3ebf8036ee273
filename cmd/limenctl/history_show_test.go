package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestExplainThePast, against a real limend: a block on two denials is
// explained, after both denials were forgotten, by history show and by
// policy explain --decision with the evidence of its time (the two
// denials, counted as they were then), while the same action decided now
// is asked.
func TestExplainThePast(t *testing.T) {
	run, _ := polDaemon(t)
	for _, id := range []string{"1", "2"} {
		if _, _, code := run("decide", "make deploy"); code != exitAsk {
			t.Fatalf("decide %s = %d; want ask", id, code)
		}
		if _, errOut, code := run("answer", id, "--deny"); code != exitOK {
			t.Fatalf("answer %s = %d: %s", id, code, errOut)
		}
	}
	if _, _, code := run("decide", "make deploy"); code != exitBlock {
		t.Fatalf("decision 3 = %d; want block on two denials", code)
	}
	if out, errOut, code := run("forget", "--key", "Bash:make deploy"); code != exitOK || !strings.Contains(out, "forgot 2 answers") {
		t.Fatalf("forget = %d: %s%s", code, out, errOut)
	}
	if out, _, code := run("decide", "make deploy"); code != exitAsk {
		t.Fatalf("make deploy now = %d; want ask, its denials forgotten:\n%s", code, out)
	}

	out, errOut, code := run("history", "show", "3")
	if code != exitOK {
		t.Fatalf("history show 3 = %d: %s", code, errOut)
	}
	polContains(t, "history show 3", out,
		"verdict   block, decided by prediction",
		"as it stood then: 2 answers given before it (2 of the answers before it were forgotten since; they are counted here, as they were then)",
		"deciding part  Bash:make deploy (unknown)")
	if !regexp.MustCompile(`evidence\s+Bash:make deploy: 0\.0 approved, 2\.0 denied`).MatchString(out) {
		t.Errorf("history show 3 does not show the two denials of its time:\n%s", out)
	}
	if !regexp.MustCompile(`▶\s+make deploy\s+unknown\s+block`).MatchString(out) {
		t.Errorf("history show 3 does not show its part:\n%s", out)
	}
	if strings.Contains(out, "replayed, it would be") {
		t.Errorf("the replay of decision 3 differs from the record:\n%s", out)
	}

	out, errOut, code = run("policy", "explain", "--decision", "3")
	if code != exitOK {
		t.Fatalf("policy explain --decision 3 = %d: %s", code, errOut)
	}
	polContains(t, "policy explain --decision 3", out,
		"decision 3 at", "recorded as block by prediction; decided again on the evidence of its time",
		"verdict  block  (decided by prediction, policy v1)", "deciding part  Bash:make deploy",
		"expected cost of each verdict", "← chosen", "as it stood then: 2 answers")

	out, _, code = run("history", "show", "1")
	if code != exitOK || !strings.Contains(out, "denied (forgotten) by") || !strings.Contains(out, "as it stood then: 0 answers") {
		t.Errorf("history show 1 = %d; want its deny shown as forgotten, on no earlier answers:\n%s", code, out)
	}
	if _, errOut, code := run("history", "show", "x"); code != exitUsage || !strings.Contains(errOut, "not a decision id") {
		t.Errorf("history show x = %d: %s; want a usage error", code, errOut)
	}
	if _, errOut, code := run("history", "show", "99"); code == exitOK || !strings.Contains(errOut, "99") {
		t.Errorf("history show 99 = %d: %s; want not found", code, errOut)
	}
}
