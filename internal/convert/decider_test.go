package convert

import (
	"testing"

	"github.com/limenhq/limen/internal/engine"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestDeciders(t *testing.T) {
	for _, d := range []engine.DecidedBy{engine.ByFailsafe, engine.ByRule, engine.ByPrediction, engine.ByHuman} {
		if got := DecidedBy(APIDecider(d)); got != d {
			t.Errorf("DecidedBy(APIDecider(%v)) = %v", d, got)
		}
	}
	// Nothing unknown claims a rule, a prediction or a person decided.
	if got := DecidedBy(limenv1.Decider_DECIDER_UNSPECIFIED); got != engine.ByFailsafe {
		t.Errorf("DecidedBy(UNSPECIFIED) = %v, want ByFailsafe", got)
	}
	if got := APIDecider(engine.DecidedBy(42)); got != limenv1.Decider_DECIDER_FAILSAFE {
		t.Errorf("APIDecider(42) = %v, want FAILSAFE", got)
	}
}
