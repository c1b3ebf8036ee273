package main

import (
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestExitForUnknownVerdict: decide and await exit as for ask on a verdict
// they do not know, never as for allow.
func TestExitForUnknownVerdict(t *testing.T) {
	for v, want := range map[limenv1.Verdict]error{
		limenv1.Verdict_VERDICT_ALLOW:       nil,
		limenv1.Verdict_VERDICT_ASK:         verdictExit{exitAsk},
		limenv1.Verdict_VERDICT_BLOCK:       verdictExit{exitBlock},
		limenv1.Verdict_VERDICT_UNSPECIFIED: verdictExit{exitAsk},
		9:                                   verdictExit{exitAsk},
	} {
		if got := exitFor(v); got != want {
			t.Errorf("exitFor(%v) = %v, want %v", v, got, want)
		}
	}
}
