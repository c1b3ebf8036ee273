package convert

import (
	"testing"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestVerdicts(t *testing.T) {
	tests := []struct {
		api    limenv1.Verdict
		domain policy.Verdict
		name   string
	}{
		{limenv1.Verdict_VERDICT_ALLOW, policy.Allow, "allow"},
		{limenv1.Verdict_VERDICT_ASK, policy.Ask, "ask"},
		{limenv1.Verdict_VERDICT_BLOCK, policy.Block, "block"},
	}
	for _, tt := range tests {
		if got := Verdict(tt.api); got != tt.domain {
			t.Errorf("Verdict(%v) = %v, want %v", tt.api, got, tt.domain)
		}
		if got := APIVerdict(tt.domain); got != tt.api {
			t.Errorf("APIVerdict(%v) = %v, want %v", tt.domain, got, tt.api)
		}
		if got := VerdictName(tt.api); got != tt.name {
			t.Errorf("VerdictName(%v) = %q, want %q", tt.api, got, tt.name)
		}
		if got := ParseVerdictName(tt.name); got != tt.api {
			t.Errorf("ParseVerdictName(%q) = %v, want %v", tt.name, got, tt.api)
		}
	}
	// Unknown means ask, in every direction.
	for _, v := range []limenv1.Verdict{limenv1.Verdict_VERDICT_UNSPECIFIED, 42, -1} {
		if Verdict(v) != policy.Ask || VerdictName(v) != "ask" {
			t.Errorf("verdict %d: %v %q, want ask", v, Verdict(v), VerdictName(v))
		}
	}
	if got := APIVerdict(policy.Verdict(9)); got != limenv1.Verdict_VERDICT_ASK {
		t.Errorf("APIVerdict(9) = %v, want ASK", got)
	}
	for _, s := range []string{"", "ALLOW", "deny", "yes"} {
		if got := ParseVerdictName(s); got != limenv1.Verdict_VERDICT_ASK {
			t.Errorf("ParseVerdictName(%q) = %v, want ASK", s, got)
		}
	}
}
