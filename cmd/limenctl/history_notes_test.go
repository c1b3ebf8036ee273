package main

import (
	"bytes"
	"strings"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestHistoryNotes(t *testing.T) {
	var out bytes.Buffer
	ds := []*limenv1.Decision{
		{DecisionId: "2", Outcome: &limenv1.AskOutcome{Note: "claude-code prompt, inferred from PostToolBatch of toolu_1 (session s); the person said: not\nhere"}},
		{DecisionId: "1"},
	}
	if err := printNotes(&app{out: &out}, ds); err != nil {
		t.Fatal(err)
	}
	if want := "\nnotes:\n  2  claude-code prompt, inferred from PostToolBatch of toolu_1 (session s); the person said: not here\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	out.Reset()
	printNotes(&app{out: &out}, ds[1:])
	if strings.Contains(out.String(), "notes") {
		t.Errorf("printed %q for decisions without notes", out.String())
	}
}
