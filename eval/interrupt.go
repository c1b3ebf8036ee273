package eval

import (
	"fmt"
	"math/rand/v2"

	"github.com/limenhq/limen/action"
)

// Teaching is what limen takes from an interrupted dialog: an ask whose
// dialog the person left with No and no note, or Esc, or with Yes and then
// Esc while the tool ran. Claude Code sends the same events for all three
// (docs/integrations.md), so limen cannot tell a refusal from an approval
// cut short.
type Teaching int

const (
	// TeachNothing drops the interruption: limen asks again next time.
	TeachNothing Teaching = iota
	// TeachWeakDeny counts it as a denial of the exact action only, not of
	// the broader keys above it.
	TeachWeakDeny
	// TeachDeny counts it as a denial, like a No with a note.
	TeachDeny
)

// Teachings are the ways an interruption can teach, in the order a report
// lists them.
var Teachings = []Teaching{TeachNothing, TeachWeakDeny, TeachDeny}

func (t Teaching) String() string {
	switch t {
	case TeachNothing:
		return "nothing"
	case TeachWeakDeny:
		return "weak deny"
	case TeachDeny:
		return "deny"
	}
	return fmt.Sprintf("Teaching(%d)", int(t))
}

// Interruptions say how often a person's answer in a runtime's dialog
// reaches limen only as an interruption.
type Interruptions struct {
	// OfDenials is the share of denials given without a note (No, Esc),
	// which limen sees only as an interruption.
	OfDenials float64
	// OfApprovals is the share of approvals cut short (Yes, then Esc
	// while it ran), which look the same.
	OfApprovals float64
}

// Interrupted is limen's strategy learning from a dialog in which some
// answers arrive as interruptions, each taught as Teach says. The other
// answers teach as usual. Which answers are interrupted is drawn from its
// own seeded generator, so a replay is reproducible and the draws do not
// shift limen's exploration.
type Interrupted struct {
	*Limen
	Share Interruptions
	Teach Teaching
	rng   *rand.Rand
}

// NewInterrupted returns l learning through interruptions of share, taught
// as teach, with the interruptions drawn from seed.
func NewInterrupted(l *Limen, share Interruptions, teach Teaching, seed uint64) *Interrupted {
	return &Interrupted{Limen: l, Share: share, Teach: teach, rng: rand.New(rand.NewPCG(seed, 0x657363))} // "esc"
}

// Name implements Strategy.
func (s *Interrupted) Name() string { return "limen, interruptions teach " + s.Teach.String() }

// Learn implements Strategy.
func (s *Interrupted) Learn(a Action, approved bool) {
	share := s.Share.OfDenials
	if approved {
		share = s.Share.OfApprovals
	}
	if s.rng.Float64() >= share {
		s.Limen.Learn(a, approved)
		return
	}
	switch s.Teach {
	case TeachDeny:
		s.Limen.Learn(a, false)
	case TeachWeakDeny:
		s.Limen.learnExact(a, false)
	}
}

// learnExact counts an answer on each part's exact key only.
func (s *Limen) learnExact(a Action, approved bool) {
	var exact []action.Ladder
	for _, p := range action.Parts(a.Predictor()) {
		exact = append(exact, p.Keys[len(p.Keys)-1:])
	}
	s.est.Observe(a.User, exact, approved, a.Time)
}
