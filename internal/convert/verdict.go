package convert

import (
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// verdicts is the one table between the API's verdicts and the policy's.
// Their names ("allow", "ask", "block") are policy.Verdict's String, so an
// API verdict is named, and read back from a name, through the policy.
var verdicts = [...]struct {
	api    limenv1.Verdict
	domain policy.Verdict
}{
	{limenv1.Verdict_VERDICT_ASK, policy.Ask},
	{limenv1.Verdict_VERDICT_ALLOW, policy.Allow},
	{limenv1.Verdict_VERDICT_BLOCK, policy.Block},
}

// Verdict is the policy verdict of an API verdict. VERDICT_UNSPECIFIED and
// any value this build does not know are Ask: an unknown verdict never
// allows and never blocks without a person.
func Verdict(v limenv1.Verdict) policy.Verdict {
	for _, e := range verdicts {
		if e.api == v {
			return e.domain
		}
	}
	return policy.Ask
}

// APIVerdict is the API verdict of a policy verdict; an unknown one is
// VERDICT_ASK.
func APIVerdict(v policy.Verdict) limenv1.Verdict {
	for _, e := range verdicts {
		if e.domain == v {
			return e.api
		}
	}
	return limenv1.Verdict_VERDICT_ASK
}

// VerdictName is "allow", "ask" or "block"; "ask" for an unspecified or
// unknown verdict, which is how limen treats it.
func VerdictName(v limenv1.Verdict) string { return Verdict(v).String() }

// ParseVerdictName is the API verdict a name stands for: "allow", "ask" or
// "block" (policy.ParseVerdict's words); anything else is VERDICT_ASK.
func ParseVerdictName(s string) limenv1.Verdict {
	v, _ := policy.ParseVerdict(s) // Ask on error
	return APIVerdict(v)
}
