package convert_test

import (
	"testing"

	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/describe"
	"github.com/limenhq/limen/internal/hookfmt"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestUnknownVerdictIsAskEverywhere: the tools that name or act on a
// verdict read an unspecified or unknown one as ask, through the one
// table (limenctl's exit codes are checked in cmd/limenctl).
func TestUnknownVerdictIsAskEverywhere(t *testing.T) {
	for _, v := range []limenv1.Verdict{limenv1.Verdict_VERDICT_UNSPECIFIED, 7} {
		if got := describe.Verdict(v); got != "ask" {
			t.Errorf("describe.Verdict(%d) = %q, want ask", v, got)
		}
		// hookapi sends convert.VerdictName on the wire; limen-hook's side
		// reads it with hookfmt.FromLimen.
		if got := hookfmt.FromLimen(convert.VerdictName(v)); got != hookfmt.Ask {
			t.Errorf("hook verdict of %d = %v, want ask", v, got)
		}
	}
	for _, w := range []string{"", "?", "unspecified", "ALLOW"} {
		if got := hookfmt.FromLimen(w); got != hookfmt.Ask {
			t.Errorf("hookfmt.FromLimen(%q) = %v, want ask", w, got)
		}
	}
	for w, want := range map[string]hookfmt.Verdict{"allow": hookfmt.Allow, "ask": hookfmt.Ask, "block": hookfmt.Deny, "deny": hookfmt.Deny} {
		if got := hookfmt.FromLimen(w); got != want {
			t.Errorf("hookfmt.FromLimen(%q) = %v, want %v", w, got, want)
		}
	}
}
