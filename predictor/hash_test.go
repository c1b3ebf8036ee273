package predictor

import (
	"testing"
	"time"

	"github.com/limenhq/limen/action"
)

// TestCountsHash: the same answers in the same order hash alike even when
// the keys were interned in another order; one answer more, or the same
// answers in another order, hash otherwise.
func TestCountsHash(t *testing.T) {
	git := action.Ladder{"Bash", "Bash:git", "Bash:git push"}
	ls := action.Ladder{"Bash", "Bash:ls", "Bash:ls -la"}
	type answer struct {
		user     string
		ladder   action.Ladder
		approved bool
		at       time.Duration
	}
	stream := []answer{
		{"ana", git, true, 0}, {"ben", ls, false, time.Hour}, {"ana", ls, true, 2 * time.Hour}, {"ana", git, false, 3 * time.Hour},
	}
	build := func(first *action.Ladder, as []answer) *Estimator {
		e := NewEstimator(DefaultConfig())
		if first != nil {
			// Intern first's keys before any answer, counting nothing,
			// so that the key ids differ from the other build's.
			e.mu.Lock()
			for _, k := range *first {
				if _, ok := e.keys[k]; !ok {
					e.addKey(k)
				}
			}
			e.mu.Unlock()
		}
		for _, a := range as {
			e.Observe(a.user, []action.Ladder{a.ladder}, a.approved, t0.Add(a.at))
		}
		return e
	}
	h := build(nil, stream).CountsHash()
	if h2 := build(&ls, stream).CountsHash(); h2 != h {
		t.Errorf("keys interned in another order: hash %x; want %x", h2, h)
	}
	if h2 := build(nil, stream).CountsHash(); h2 != h {
		t.Errorf("same answers again: hash %x; want %x", h2, h)
	}
	if h2 := build(nil, stream[:3]).CountsHash(); h2 == h {
		t.Error("one answer fewer hashes the same")
	}
	swapped := append([]answer{stream[1], stream[0]}, stream[2:]...)
	if h2 := build(nil, swapped).CountsHash(); h2 == h {
		t.Error("two answers of different people swapped hash the same")
	}
	if h2 := NewEstimator(DefaultConfig()).CountsHash(); h2 == h {
		t.Error("an empty estimator hashes like a full one")
	}
}
