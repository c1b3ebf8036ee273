package eval

import (
	"context"
	"math/rand/v2"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/internal/written"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
)

// Limen is limen's own strategy, made of the same pieces as the daemon:
// action.Parts, the policy's rules and classes, the Estimator and
// engine.Decide. Exploration draws come from a seeded generator, so a
// replay is reproducible.
type Limen struct {
	pol *policy.Policy
	est *predictor.Estimator
	rng *rand.Rand
	ctx context.Context

	// last holds the ladders of the action just decided, so that Learn
	// counts exactly the keys the decision saw.
	lastSeq     int
	lastLadders []action.Ladder
	lastParts   []action.Part

	// written is what each user's agents wrote and no approval has run
	// since, kept as limend keeps it (engine.Input.Wrote).
	written *written.Record
	// approvedIn holds, by user and session, the exact keys approved
	// there (engine.Input.ApprovedInSession).
	approvedIn map[[2]string]map[string]bool
}

// NewLimen returns limen's strategy under pol with a fresh estimator of
// cfg (its half-life taken from the policy, as limend does) and exploration
// drawn from seed.
func NewLimen(pol *policy.Policy, cfg predictor.Config, seed uint64) *Limen {
	cfg.HalfLife = pol.HalfLife
	return &Limen{
		pol:        pol,
		est:        predictor.NewEstimator(cfg),
		rng:        rand.New(rand.NewPCG(seed, 0x6c696d656e)), // "limen"
		ctx:        context.Background(),
		lastSeq:    -1,
		written:    written.New(written.MaxPerUser, nil),
		approvedIn: make(map[[2]string]map[string]bool),
	}
}

// Name implements Strategy.
func (*Limen) Name() string { return "limen" }

// Decide implements Strategy.
func (s *Limen) Decide(a Action) Decision {
	pa := a.Predictor()
	parts := action.Parts(pa)
	before := written.Before(parts, nil)
	in := engine.Input{
		Parts:             parts,
		Env:               policy.Env{Cwd: pa.Cwd, Home: action.HomeDir(pa)},
		Policy:            s.pol,
		Wrote:             func(i int, run string) bool { return s.written.Wrote(a.User, run, before[i]) },
		ApprovedInSession: func(key string) bool { return s.approvedIn[[2]string{a.User, a.Session + "\x00" + a.Cwd}][key] },
		Draw:              s.rng.Float64(),
	}
	res := engine.Decide(s.ctx, in, func(_ context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
		return s.est.PredictEach(a.User, ls, a.Time), nil
	})
	s.written.Note(a.User, parts, nil) // what it writes, a later action may run
	s.lastSeq = a.Seq
	s.lastParts = parts
	s.lastLadders = s.lastLadders[:0]
	for _, p := range parts {
		s.lastLadders = append(s.lastLadders, p.Keys)
	}
	d := Decision{Verdict: res.Verdict, Failsafe: res.DecidedBy == engine.ByFailsafe}
	if res.DecidedBy == engine.ByPrediction {
		d.P, d.HasP = res.Prediction.P, true
	}
	return d
}

// Learn implements Strategy: the answer is counted on every key of every
// part, as limend counts a person's answer.
func (s *Limen) Learn(a Action, approved bool) {
	ladders := s.lastLadders
	if a.Seq != s.lastSeq {
		ladders = nil
		for _, p := range action.Parts(a.Predictor()) {
			ladders = append(ladders, p.Keys)
		}
	}
	s.est.Observe(a.User, ladders, approved, a.Time)
	if approved && a.Seq == s.lastSeq {
		k := [2]string{a.User, a.Session + "\x00" + a.Cwd}
		if s.approvedIn[k] == nil {
			s.approvedIn[k] = make(map[string]bool)
		}
		for _, p := range s.lastParts {
			s.approvedIn[k][p.Keys.Exact()] = true
		}
		for _, p := range s.lastParts {
			s.written.Allowed(a.User, p.Runs) // the person allowed running them
		}
	}
}

// Estimator returns the strategy's estimator, for inspection after a run.
func (s *Limen) Estimator() *predictor.Estimator { return s.est }
