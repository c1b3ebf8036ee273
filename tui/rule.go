package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// actionOf decodes an API action into the predictor's form, so the TUI
// splits and matches actions exactly as limend does. A malformed input
// gives an action with no arguments rather than an error: the TUI only
// shows and previews, it never decides.
func actionOf(a *limenv1.Action) action.Action { return convert.Preview(a) }

// envOf is what path patterns are resolved against for an action.
func envOf(a action.Action) policy.Env {
	return convert.Env(a)
}

// suggestRule proposes the rule the editor opens with (policy.Suggest
// has how), or says why there is none in words that point at what the
// person can do here instead.
func suggestRule(d *limenv1.Decision) (string, error) {
	act := actionOf(d.GetAction())
	s, err := policy.Suggest(act, envOf(act))
	var se *policy.SuggestError
	if !errors.As(err, &se) {
		return s, err
	}
	switch se.Reason {
	case policy.Unreadable:
		return "", fmt.Errorf("limen could not parse this command (%s), and no allow rule covers a command limen cannot read; "+
			"write a block rule (tab) or answer the ask without a rule", shorten(se.Subject, 60))
	case policy.NoRule:
		return "", fmt.Errorf("%v; write one below or use limenctl policy edit", se)
	}
	return "", fmt.Errorf("%v: add them in limenctl policy edit, or write one rule below that covers every part", se)
}

// covers reports whether rule r decides the action (policy's Rule.Covers).
func covers(r policy.Rule, a *limenv1.Action) bool {
	act := actionOf(a)
	return r.Covers(action.Parts(act), envOf(act))
}

// checkRule parses the pattern being edited for the ask and returns the
// recent decisions it also covers (besides the ask's own action). The error
// says why the rule cannot be saved: it does not parse, or it does not
// decide the ask the way saving it would (an allow rule that misses a part
// of the ask would still approve the whole ask). An empty pattern whose
// suggestion was refused gets the reason for the refusal.
func checkRule(v policy.Verdict, pattern string, ask *limenv1.Decision, recent []*limenv1.Decision) ([]*limenv1.Decision, error) {
	if strings.TrimSpace(pattern) == "" {
		if _, why := suggestRule(ask); why != nil {
			return nil, why
		}
	}
	r, err := policy.ParseRule(v, pattern)
	if err != nil {
		return nil, err
	}
	covered := preview(r, ask.GetAction(), recent)
	act := actionOf(ask.GetAction())
	missed := r.Misses(action.Parts(act), envOf(act))
	switch {
	case v == policy.Block && !covers(r, ask.GetAction()):
		return covered, fmt.Errorf("%s matches no part of this ask; a rule made here must cover the ask it answers", pattern)
	case v != policy.Block && len(missed) > 0:
		what := "this ask"
		if len(missed) < len(action.Parts(act)) {
			what = "the part " + strings.Join(missed, "; ")
		}
		return covered, fmt.Errorf("%s does not cover %s, yet saving it would approve the whole ask; "+
			"widen the rule, or add one rule per part in limenctl policy edit", pattern, what)
	}
	return covered, nil
}

// preview returns the recent decisions whose actions the rule would
// decide, each action once, newest first, leaving out the ask's own action
// (it is counted apart).
func preview(r policy.Rule, ask *limenv1.Action, recent []*limenv1.Decision) []*limenv1.Decision {
	var out []*limenv1.Decision
	seen := map[string]bool{actionKey(ask): true}
	for _, d := range recent {
		k := actionKey(d.GetAction())
		if seen[k] {
			continue
		}
		seen[k] = true
		if covers(r, d.GetAction()) {
			out = append(out, d)
		}
	}
	return out
}

// actionKey tells actions apart for the preview: the same tool, arguments
// and working directory are the same action.
func actionKey(a *limenv1.Action) string {
	return a.GetTool() + "\x00" + a.GetInputJson() + "\x00" + a.GetCwd()
}

// otherActions counts the distinct actions among recent other than the
// ask's own: what preview chose from, and so what its count is out of
// (the ask's own decision is among the recent ones).
func otherActions(ask *limenv1.Action, recent []*limenv1.Decision) int {
	seen := map[string]bool{actionKey(ask): true}
	for _, d := range recent {
		seen[actionKey(d.GetAction())] = true
	}
	return len(seen) - 1
}
