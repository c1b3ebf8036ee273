package main

import (
	"strconv"
	"strings"

	"github.com/limenhq/limen/eval"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// parseInterruptions reads --interrupted: deny=SHARE,approve=SHARE, each a
// share in [0, 1].
func parseInterruptions(s string) (eval.Interruptions, error) {
	var in eval.Interruptions
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return in, usagef("--interrupted: %q is not name=share; write deny=0.5,approve=0.02", kv)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || x < 0 || x > 1 {
			return in, usagef("--interrupted %s: %q is not a share between 0 and 1", k, v)
		}
		switch strings.TrimSpace(k) {
		case "deny":
			in.OfDenials = x
		case "approve":
			in.OfApprovals = x
		default:
			return in, usagef("--interrupted: unknown %q; the names are deny (denials given without a note) and approve (approvals cut short)", k)
		}
	}
	return in, nil
}

// interruptedStrategies are limen's strategy once per way an interruption
// can teach, each replaying the same interruptions.
func interruptedStrategies(pol *policy.Policy, in eval.Interruptions, seed uint64) []eval.Strategy {
	var out []eval.Strategy
	for _, t := range eval.Teachings {
		out = append(out, eval.NewInterrupted(eval.NewLimen(pol, predictor.DefaultConfig(), seed), in, t, seed))
	}
	return out
}
