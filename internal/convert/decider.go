package convert

import (
	"github.com/limenhq/limen/internal/engine"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// deciders is the one table between the API's deciders and the engine's.
var deciders = [...]struct {
	api    limenv1.Decider
	domain engine.DecidedBy
}{
	{limenv1.Decider_DECIDER_FAILSAFE, engine.ByFailsafe},
	{limenv1.Decider_DECIDER_RULE, engine.ByRule},
	{limenv1.Decider_DECIDER_PREDICTION, engine.ByPrediction},
	{limenv1.Decider_DECIDER_HUMAN, engine.ByHuman},
}

// DecidedBy is the engine's name for what settled a verdict;
// DECIDER_UNSPECIFIED and unknown values are ByFailsafe, which claims
// nothing was weighed.
func DecidedBy(d limenv1.Decider) engine.DecidedBy {
	for _, e := range deciders {
		if e.api == d {
			return e.domain
		}
	}
	return engine.ByFailsafe
}

// APIDecider is the API's name for what settled a verdict; an unknown
// value is DECIDER_FAILSAFE.
func APIDecider(d engine.DecidedBy) limenv1.Decider {
	for _, e := range deciders {
		if e.domain == d {
			return e.api
		}
	}
	return limenv1.Decider_DECIDER_FAILSAFE
}
