package server

import (
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/engine"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/storev1"
)

// apiParts are res's parts as the API shows them. A part is marked as the
// one that decided only when the verdict is still its own: a check made
// after the engine (a part beyond the caps, an input nested too deep) may
// have decided with a key of its own.
func apiParts(res engine.Result) []*limenv1.Part {
	if len(res.Parts) == 0 {
		return nil
	}
	out := make([]*limenv1.Part, len(res.Parts))
	for i, p := range res.Parts {
		out[i] = &limenv1.Part{Text: p.Text, Key: p.Key, RiskClass: p.Class, Rule: p.Rule,
			Predicted: p.Predicted, P: p.P, Decided: p.Decided && p.Key == res.Key}
		if p.Weighed {
			out[i].Verdict = convert.APIVerdict(p.Verdict)
		}
	}
	return out
}

// storeParts and apiStoredParts convert a decision's parts to and from
// the store's records (field for field).
func storeParts(in []*limenv1.Part) []*storev1.Part {
	return convertAll(in, func(p *limenv1.Part) *storev1.Part {
		return &storev1.Part{Text: p.GetText(), Key: p.GetKey(), RiskClass: p.GetRiskClass(), Verdict: storev1.Verdict(p.GetVerdict()),
			P: p.GetP(), Predicted: p.GetPredicted(), Rule: p.GetRule(), Decided: p.GetDecided()}
	})
}

func apiStoredParts(in []*storev1.Part) []*limenv1.Part {
	return convertAll(in, func(p *storev1.Part) *limenv1.Part {
		return &limenv1.Part{Text: p.GetText(), Key: p.GetKey(), RiskClass: p.GetRiskClass(), Verdict: limenv1.Verdict(p.GetVerdict()),
			P: p.GetP(), Predicted: p.GetPredicted(), Rule: p.GetRule(), Decided: p.GetDecided()}
	})
}
