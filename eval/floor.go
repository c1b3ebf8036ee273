package eval

import (
	"context"
	"errors"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// Oracle is a strategy that is told each action's true answer just before
// it decides it. No real strategy can be one: an oracle measures a floor,
// the least any strategy that asks the way it does could cost, and its
// result says how much of a real strategy's cost is its guessing.
type Oracle interface {
	Strategy
	// Foresee gives the answer the person would give to a, the action
	// about to be decided.
	Foresee(a Action, approve bool)
}

// FloorRules are the security rules a Floor pays for, so that one run can
// tell the price of each from the price of guessing.
type FloorRules struct {
	// ExactRisky makes a part that reads a secret or installs a package
	// its own key, asked at its first exact meeting, as limen's engine
	// allows it only on the person's approval of that exact action.
	ExactRisky bool
	// BlockAfter, if above 0, blocks a refused action only after the
	// person refused a part's block key (its risk marks' level, else its
	// exact key) that many times when asked; before that it asks, as
	// limen's engine does (two refusals) because a block asks nobody.
	BlockAfter int
	// Coarse keys an ordinary part at the second level of its ladder
	// below the tool (Bash:git push, Read:workspace:./src/), or its risk
	// marks' level if that is deeper, instead of the level just above the
	// exact key: about the depth the stream's own answers are consistent
	// at, to tell how much finer limen's keys are than the data's.
	Coarse bool
}

// Floor is the oracle of limen's own key function: it asks exactly at the
// first meeting of each (person, key) and then allows or blocks by the
// truth. A part's key is the level of its ladder just above the exact key
// (Bash:git push, Bash:rm [-f -r], Read:workspace:./src/*.go), where limen
// generalises one answer to the next action; an opaque part, or a ladder
// with no level between the tool and the exact key (a web search's query),
// is keyed by its exact text, since limen allows it only on the person's
// approval of that very text. The policy's hard rules and limen's controls
// decide first, through engine.Decide, as for limen.
type Floor struct {
	name  string
	pol   *policy.Policy
	rules FloorRules
	ctx   context.Context

	met     map[string]bool // user + key, once asked
	refused map[string]int  // user + block key: refusals asked

	truth   bool
	seq     int
	open    []action.Part // the parts no rule decided, of action seq
	openSeq int
}

// NewFloor returns the floor of limen's keys under pol, paying for rules.
func NewFloor(name string, pol *policy.Policy, rules FloorRules) *Floor {
	return &Floor{name: name, pol: pol, rules: rules, ctx: context.Background(),
		met: make(map[string]bool), refused: make(map[string]int), seq: -1, openSeq: -1}
}

// Name implements Strategy.
func (f *Floor) Name() string { return f.name }

// Foresee implements Oracle.
func (f *Floor) Foresee(a Action, approve bool) { f.seq, f.truth = a.Seq, approve }

// errOpen ends engine.Decide where the prediction would start: the rules
// have not decided.
var errOpen = errors.New("no rule decided")

// Decide implements Strategy.
func (f *Floor) Decide(a Action) Decision {
	if a.Seq != f.seq {
		// Never foreseen: nothing to be a floor with.
		return Decision{Verdict: policy.Ask}
	}
	pa := a.Predictor()
	parts := action.Parts(pa)
	in := engine.Input{Parts: parts, Env: policy.Env{Cwd: pa.Cwd, Home: action.HomeDir(pa)}, Policy: f.pol, Draw: 1}
	var ladders []action.Ladder
	res := engine.Decide(f.ctx, in, func(_ context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
		ladders = ls
		return nil, errOpen
	})
	if res.DecidedBy != engine.ByFailsafe || ladders == nil {
		return Decision{Verdict: res.Verdict}
	}
	f.open, f.openSeq = f.open[:0], a.Seq
	for _, l := range ladders {
		f.open = append(f.open, partOf(parts, l))
	}
	for _, p := range f.open {
		if !f.met[a.User+"\x00"+f.key(p)] {
			return Decision{Verdict: policy.Ask}
		}
	}
	if f.truth {
		return Decision{Verdict: policy.Allow}
	}
	if f.rules.BlockAfter > 0 {
		for _, p := range f.open {
			if f.refused[a.User+"\x00"+blockKey(p)] >= f.rules.BlockAfter {
				return Decision{Verdict: policy.Block}
			}
		}
		return Decision{Verdict: policy.Ask}
	}
	return Decision{Verdict: policy.Block}
}

// Learn implements Strategy: every open part's key is met, and a refusal
// counts at every open part's block key.
func (f *Floor) Learn(a Action, approved bool) {
	if a.Seq != f.openSeq {
		return // decided by a rule's ask: no key was in question
	}
	for _, p := range f.open {
		f.met[a.User+"\x00"+f.key(p)] = true
		if !approved {
			f.refused[a.User+"\x00"+blockKey(p)]++
		}
	}
}

// key is the (person-less) key a part is first met at.
func (f *Floor) key(p action.Part) string {
	l := p.Keys
	if p.Opaque || len(l) < 3 || f.rules.ExactRisky && (action.ReadsSecret(p) || action.InstallsPackage(p)) {
		return l.Exact()
	}
	if f.rules.Coarse {
		return l[max(min(2, len(l)-2), action.MarkLevel(l))]
	}
	return l[len(l)-2]
}

// blockKey is the key whose refusals let limen block a part: its risk
// marks' level, else its exact key.
func blockKey(p action.Part) string {
	if m := action.MarkLevel(p.Keys); m > 0 {
		return p.Keys[m]
	}
	return p.Keys.Exact()
}

// partOf finds the part whose ladder engine.Decide handed over as l.
func partOf(parts []action.Part, l action.Ladder) action.Part {
	for _, p := range parts {
		if len(p.Keys) == len(l) && len(l) > 0 && &p.Keys[0] == &l[0] {
			return p
		}
	}
	return action.Part{Keys: l, Opaque: true} // unknown: the strictest key
}
