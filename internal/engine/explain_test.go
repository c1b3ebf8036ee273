package engine

import (
	"strings"
	"testing"

	"github.com/limenhq/limen/policy"
)

// TestExplainDecision pins the reasoning for each way a verdict comes
// about, on decisions made up here.
func TestExplainDecision(t *testing.T) {
	pol := policy.Default()
	env := policy.Env{Cwd: "/home/ana/shop", Home: "/home/ana"}
	pred := func(class string, p float64, v policy.Verdict, reason string) Decided {
		return Decided{Verdict: v, DecidedBy: ByPrediction, Class: class, P: p, Reason: reason}
	}
	tests := []struct {
		name     string
		cmd      string
		d        Decided
		cheapest policy.Verdict
		why      string
	}{
		{"a tie at the allow threshold goes to ask", "git status", pred("read-only", 0.95, policy.Ask, ""), policy.Ask,
			"ask and allow cost the same (1.000), and ties go to ask: a person decides"},
		{"ask is cheapest", "git push --force", pred("destructive", 0.8, policy.Ask, ""), policy.Ask,
			"ask costs 1.000, less than allow (40.000) and block (1.600)"},
		{"allow is cheapest", "make build", pred("unknown", 0.99, policy.Allow, ""), policy.Allow,
			"allow costs 0.200, less than ask (1.000) and block (1.980)"},
		{"block is cheapest", "make build", pred("unknown", 0.1, policy.Block, ""), policy.Block,
			"block costs 0.200, less than allow (18.000) and ask (1.000)"},
		{"asked although allow is cheapest", "ls", pred("read-only", 0.99, policy.Ask, "limen could not parse this command"), policy.Allow,
			"allow would be the cheapest (0.200), but ask: limen could not parse this command"},
		{"a compound action says which part decided", "ls && rm -rf build", pred("destructive", 0.8, policy.Ask, ""), policy.Ask,
			"ask costs 1.000, less than allow (40.000) and block (1.600); the action gets the most cautious verdict of its parts, and this part decided it"},
		{"a rule", "rm -rf /", Decided{Verdict: policy.Block, DecidedBy: ByRule}, policy.Ask,
			"a hard rule decides before any cost is weighed: block rules win over ask rules, ask rules over allow rules, and allow rules over the prediction"},
		{"a session grant", "make", Decided{Verdict: policy.Allow, DecidedBy: ByHuman}, policy.Ask,
			"a person already approved this action for the session"},
		{"the failsafe", "make", Decided{Verdict: policy.Ask, DecidedBy: ByFailsafe, Reason: "the prediction took longer than 20ms"}, policy.Ask,
			"nothing was weighed: the prediction took longer than 20ms"},
		{"a class the policy lacks", "make", pred("gone", 0.5, policy.Ask, "as recorded"), policy.Ask, "as recorded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := ExplainDecision(pol, parts(t, "Bash", tt.cmd), env, tt.d)
			if ex.Why != tt.why || ex.Cheapest != tt.cheapest {
				t.Errorf("cheapest %v, why %q\nwant %v, %q", ex.Cheapest, ex.Why, tt.cheapest, tt.why)
			}
			if (ex.Expected != nil) != (tt.d.DecidedBy == ByPrediction && tt.d.Class != "gone") {
				t.Errorf("expected costs %+v for a decision by %v", ex.Expected, tt.d.DecidedBy)
			}
		})
	}

	ex := ExplainDecision(pol, parts(t, "Bash", "ls && rm -rf /"), env, Decided{Verdict: policy.Block, DecidedBy: ByRule})
	if len(ex.Parts) != 2 || ex.Parts[0].Rule != "" || ex.Parts[1].Rule != "block Bash(rm -rf /)" || ex.Parts[1].Class != "destructive" {
		t.Errorf("parts = %+v; want ls unruled and rm -rf / under its block rule", ex.Parts)
	}
	if ex := ExplainDecision(nil, parts(t, "Bash", "ls"), env, pred("read-only", 0.9, policy.Ask, "")); !strings.Contains(ex.Why, "does not parse") || len(ex.Parts) != 0 {
		t.Errorf("under a policy that does not parse: %+v", ex)
	}
}
