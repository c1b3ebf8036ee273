package predictor

import (
	"math"
	"testing"
	"time"

	"github.com/limenhq/limen/action"
	"pgregory.net/rapid"
)

// propLadders is a small universe of ladders that share roots and
// parents, so that random histories exercise novelty, children and the
// pooled first answers, not just independent keys.
var propLadders = []action.Ladder{
	{"Bash", "Bash:git", "Bash:git status"},
	{"Bash", "Bash:git", "Bash:git push", "Bash:git push origin main"},
	{"Bash", "Bash:git", "Bash:git push", "Bash:git push [-f]", "Bash:git push --force origin main"},
	{"Bash", "Bash:rm", "Bash:rm [-f -r]", "Bash:rm -rf build"},
	{"Bash", "Bash:ls", "Bash:ls -la"},
	{"Read", "Read:workspace", "Read:workspace:./src/", "Read:workspace:./src/*.go", "Read:/w/src/a.go"},
	{"Read", "Read:secret", "Read:secret:./", "Read:secret:./*.env", "Read:/w/.env"},
	{"mcp__github", "mcp__github__create_issue", "mcp__github__create_issue:{}"},
}

// event is one answer in a random history.
type event struct {
	user     string
	parts    []action.Ladder
	approved bool
	at       time.Time
}

// genHistory draws a history of answers by a few users, in time order,
// and returns it with the time of its last answer.
func genHistory(t *rapid.T) ([]event, time.Time) {
	n := rapid.IntRange(0, 40).Draw(t, "answers")
	at := t0
	evs := make([]event, 0, n)
	for i := range n {
		at = at.Add(time.Duration(rapid.IntRange(0, 72).Draw(t, "hours")) * time.Hour)
		evs = append(evs, event{
			user:     rapid.SampledFrom([]string{"ana", "ben", "cy"}).Draw(t, "user"),
			parts:    genParts(t, i),
			approved: rapid.Bool().Draw(t, "approved"),
			at:       at,
		})
	}
	return evs, at
}

func genParts(t *rapid.T, _ int) []action.Ladder {
	k := rapid.IntRange(1, 3).Draw(t, "parts")
	out := make([]action.Ladder, k)
	for i := range out {
		out[i] = rapid.SampledFrom(propLadders).Draw(t, "ladder")
	}
	return out
}

func genConfig(t *rapid.T) Config {
	cfg := DefaultConfig()
	if rapid.Bool().Draw(t, "tweak config") {
		cfg.Strength = rapid.Float64Range(0.01, 10).Draw(t, "strength")
		cfg.ChildStrength = rapid.Float64Range(0.01, 20).Draw(t, "child strength")
		cfg.OrgStrength = rapid.Float64Range(0.01, 20).Draw(t, "org strength")
		cfg.Carry = rapid.Float64Range(0, 1).Draw(t, "carry")
		cfg.PriorMean = rapid.Float64Range(0.01, 0.99).Draw(t, "prior mean")
		cfg.PriorStrength = rapid.Float64Range(0.01, 20).Draw(t, "prior strength")
		cfg.HalfLife = time.Duration(rapid.IntRange(0, 1000).Draw(t, "half-life hours")) * time.Hour
	}
	return cfg
}

func replay(cfg Config, evs []event) *Estimator {
	e := NewEstimator(cfg)
	for _, ev := range evs {
		e.Observe(ev.user, ev.parts, ev.approved, ev.at)
	}
	return e
}

// tolerance absorbs floating-point rounding in the Beta means.
const tolerance = 1e-12

func TestEstimatorMoreApprovalsNeverLowerP(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		evs, last := genHistory(t)
		parts := genParts(t, 0)
		now := last.Add(time.Duration(rapid.IntRange(0, 48).Draw(t, "later")) * time.Hour)
		e := replay(cfg, evs)
		before := e.Predict("ana", parts, now).P
		e.Observe("ana", parts, true, now)
		if after := e.Predict("ana", parts, now).P; after < before-tolerance {
			t.Fatalf("an approval lowered p from %v to %v", before, after)
		}
	})
}

func TestEstimatorDenialNeverRaisesP(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		evs, last := genHistory(t)
		parts := genParts(t, 0)
		now := last.Add(time.Duration(rapid.IntRange(0, 48).Draw(t, "later")) * time.Hour)
		e := replay(cfg, evs)
		before := e.Predict("ana", parts, now).P
		e.Observe("ana", parts, false, now)
		if after := e.Predict("ana", parts, now).P; after > before+tolerance {
			t.Fatalf("a denial raised p from %v to %v", before, after)
		}
	})
}

// Another person's answers may move p (they feed the organisation's
// pooled rates), but never in the wrong direction.
func TestEstimatorOthersAnswersMoveTheRightWay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		evs, last := genHistory(t)
		parts := genParts(t, 0)
		approved := rapid.Bool().Draw(t, "approved")
		e := replay(cfg, evs)
		before := e.Predict("ana", parts, last).P
		e.Observe("zed", parts, approved, last)
		after := e.Predict("ana", parts, last).P
		if approved && after < before-tolerance || !approved && after > before+tolerance {
			t.Fatalf("another person's answer (approved=%v) moved p from %v to %v", approved, before, after)
		}
	})
}

func TestEstimatorPStrictlyInside(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		evs, last := genHistory(t)
		e := replay(cfg, evs)
		// Many identical answers push towards the edges.
		edge := rapid.SampledFrom(propLadders).Draw(t, "hammered")
		approved := rapid.Bool().Draw(t, "hammer approves")
		for i := range rapid.IntRange(0, 2000).Draw(t, "hammer") {
			e.Observe("ana", []action.Ladder{edge}, approved, last.Add(time.Duration(i)*time.Second))
		}
		now := last.Add(time.Duration(rapid.IntRange(0, 1e6).Draw(t, "later")) * time.Hour)
		for _, l := range append(propLadders, action.Ladder{"NeverSeen", "NeverSeen:x"}) {
			for _, user := range []string{"ana", "ben", "nobody"} {
				p := e.Predict(user, []action.Ladder{l}, now).P
				if !(p > 0 && p < 1) || math.IsNaN(p) {
					t.Fatalf("p(%s, %v) = %v; want strictly inside (0, 1)", user, l, p)
				}
			}
		}
		if p := e.Predict("ana", nil, now).P; !(p > 0 && p < 1) {
			t.Fatalf("p of an action without parts = %v", p)
		}
	})
}

// Decay fades every count by the same factor, so time alone never changes
// which of two keys has more evidence behind it.
func TestEstimatorDecayKeepsEvidenceOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.HalfLife = time.Duration(rapid.IntRange(1, 2000).Draw(t, "half-life hours")) * time.Hour
		e := NewEstimator(cfg)
		x, y := propLadders[0], propLadders[4]
		at := t0
		e.Observe("ana", []action.Ladder{x}, rapid.Bool().Draw(t, "x first"), at)
		e.Observe("ana", []action.Ladder{y}, rapid.Bool().Draw(t, "y first"), at)
		for range rapid.IntRange(0, 60).Draw(t, "answers") {
			at = at.Add(time.Duration(rapid.IntRange(0, 500).Draw(t, "hours")) * time.Hour)
			l := x
			if rapid.Bool().Draw(t, "y") {
				l = y
			}
			e.Observe("ana", []action.Ladder{l}, rapid.Bool().Draw(t, "approved"), at)
		}
		evidence := func(l action.Ladder, now time.Time) float64 {
			p := e.Predict("ana", []action.Ladder{l}, now)
			if p.Level != l.Exact() {
				return 0 // faded below what a float64 holds
			}
			return p.Approvals + p.Denials
		}
		t1 := at.Add(time.Duration(rapid.IntRange(0, 1000).Draw(t, "first look")) * time.Hour)
		t2 := t1.Add(time.Duration(rapid.IntRange(1, 10000).Draw(t, "second look")) * time.Hour)
		x1, y1 := evidence(x, t1), evidence(y, t1)
		x2, y2 := evidence(x, t2), evidence(y, t2)
		if x2 > x1 || y2 > y1 {
			t.Fatalf("evidence grew with time alone: x %v→%v, y %v→%v", x1, x2, y1, y2)
		}
		// Compare with a relative tolerance: equal evidence may differ in
		// the last bits after different decay paths.
		if cmp(x1, y1) != 0 && cmp(x2, y2) != 0 && cmp(x1, y1) != cmp(x2, y2) {
			t.Fatalf("decay flipped the order: at t1 x=%v y=%v, at t2 x=%v y=%v", x1, y1, x2, y2)
		}
	})
}

func cmp(a, b float64) int {
	if math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) {
		return 0
	}
	if a < b {
		return -1
	}
	return 1
}
