package engine

import (
	"fmt"
	"math"
	"strings"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/policy"
)

// Decided is what a decision said, as ExplainDecision reads it back.
type Decided struct {
	Verdict   policy.Verdict
	DecidedBy DecidedBy
	Class     string  // the risk class of the deciding part
	P         float64 // the deciding part's p, when the prediction decided
	Reason    string
}

// PartReading is one part of an action as the policy reads it: its
// subject, most specific key, risk class and, if one matches, hard rule
// ("block Bash(rm -rf /)").
type PartReading struct {
	Part, Key, Class, Rule string
}

// VerdictCosts are the costs, or expected costs, of the three verdicts.
type VerdictCosts struct {
	Allow, Ask, Block float64
}

// Explanation is how the policy reaches a decision's verdict, for
// limenctl policy explain: the parts, and when the prediction decided,
// the class's costs, the expected cost of each verdict at p, the cheapest
// one and why the chosen verdict won.
type Explanation struct {
	Parts    []PartReading
	Costs    *VerdictCosts // nil when no cost was weighed
	Expected *VerdictCosts // nil when no cost was weighed
	Cheapest policy.Verdict
	Why      string
}

// ExplainDecision works out how pol, the policy the decision was made
// under (nil when it does not parse), reaches d's verdict on an action of
// the given parts, matched in env.
func ExplainDecision(pol *policy.Policy, parts []action.Part, env policy.Env, d Decided) Explanation {
	ex := Explanation{Parts: []PartReading{}}
	if pol == nil {
		ex.Why = "the policy in force does not parse, so limen asks a person about everything (failing closed)"
		return ex
	}
	for _, part := range parts {
		pr := PartReading{Part: part.Subject, Key: part.Keys.Exact(), Class: pol.ClassOf(part, env).Name}
		if pr.Part == "" {
			pr.Part = part.Tool
		}
		if r, ok := pol.RuleFor(part, env); ok {
			pr.Rule = r.Verdict.String() + " " + r.Pattern
		}
		ex.Parts = append(ex.Parts, pr)
	}

	switch d.DecidedBy {
	case ByRule:
		ex.Why = "a hard rule decides before any cost is weighed: block rules win over ask rules, ask rules over allow rules, and allow rules over the prediction"
		return ex
	case ByHuman:
		ex.Why = "a person already approved this action for the session"
		return ex
	case ByPrediction:
	default:
		ex.Why = "nothing was weighed: " + d.Reason
		return ex
	}
	class := pol.Class(d.Class)
	if class == nil {
		ex.Why = d.Reason
		return ex
	}
	allow, ask, block := class.Costs.Expected(d.P)
	ex.Costs = &VerdictCosts{Allow: class.Costs.Allow, Ask: class.Costs.Ask, Block: class.Costs.Block}
	ex.Expected = &VerdictCosts{Allow: allow, Ask: ask, Block: block}
	ex.Cheapest = cheapest(allow, ask, block)
	cost := map[policy.Verdict]float64{policy.Allow: allow, policy.Ask: ask, policy.Block: block}
	chosen := d.Verdict
	others := func(v policy.Verdict) string {
		var s []string
		for _, o := range []policy.Verdict{policy.Allow, policy.Ask, policy.Block} {
			if o != v {
				s = append(s, fmt.Sprintf("%s (%.3f)", o, cost[o]))
			}
		}
		return strings.Join(s, " and ")
	}
	switch {
	case chosen != ex.Cheapest:
		ex.Why = fmt.Sprintf("%s would be the cheapest (%.3f), but %s: %s", ex.Cheapest, cost[ex.Cheapest], chosen, d.Reason)
	case chosen == policy.Ask && (tie(allow, ask) || tie(block, ask)):
		with := "allow"
		if !tie(allow, ask) || (tie(block, ask) && block < allow) {
			with = "block"
		}
		if tie(allow, ask) && tie(block, ask) {
			with = "allow and block"
		}
		ex.Why = fmt.Sprintf("ask and %s cost the same (%.3f), and ties go to ask: a person decides", with, ask)
	default:
		ex.Why = fmt.Sprintf("%s costs %.3f, less than %s", chosen, cost[chosen], others(chosen))
	}
	if len(ex.Parts) > 1 {
		ex.Why += "; the action gets the most cautious verdict of its parts, and this part decided it"
	}
	return ex
}

// cheapest is the verdict of least expected cost, ask on a tie. Costs
// within a rounding error of each other tie: at p = 0.8 and C_allow = 5,
// (1-p)·C_allow is 0.9999999999999998, and the thresholds, which limend
// compares p with, say the costs of allow and ask are equal.
func cheapest(allow, ask, block float64) policy.Verdict {
	switch {
	case less(allow, ask) && less(allow, block):
		return policy.Allow
	case less(block, ask) && less(block, allow):
		return policy.Block
	}
	return policy.Ask
}

// tie reports whether a and b are equal up to a rounding error.
func tie(a, b float64) bool { return !less(a, b) && !less(b, a) }

// less reports whether a is below b by more than a rounding error.
func less(a, b float64) bool { return a < b-1e-9*max(1, math.Abs(a), math.Abs(b)) }
