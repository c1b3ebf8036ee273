package main

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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

// TestClassifyUnauthenticated: limend refusing a caller without its token
// is a refusal (exit 4), as a permission denial is, not a failure.
func TestClassifyUnauthenticated(t *testing.T) {
	code, msg := classify(status.Error(codes.Unauthenticated, "send the bearer token"), "", "limenctl pending")
	if code != exitRefused || msg != "refused: send the bearer token" {
		t.Errorf("classify(Unauthenticated) = %d %q, want %d \"refused: send the bearer token\"", code, msg, exitRefused)
	}
}
