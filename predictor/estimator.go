package predictor

import (
	"math"
	"sync"
	"time"
)

// Config tunes the estimator. The zero value is not useful; start from
// DefaultConfig.
type Config struct {
	// Strength is how many answers' worth of weight a level's parent carries
	// when the level's own counts are shrunk towards it.
	Strength float64
	// Carry is the share of a parent's estimate (the rest comes from the
	// organisation prior) that a child level starts from. Below 1 it keeps a
	// novel, specific action from inheriting all the confidence of its
	// general ancestors: a hundred approved `git status` do not vouch for
	// `git push --force`.
	Carry float64
	// PriorMean and PriorStrength are the organisation prior used before any
	// pooled answers exist, and the weight the pooled answers are given.
	PriorMean     float64
	PriorStrength float64
	// HalfLife is how fast old answers fade; zero keeps them forever.
	HalfLife time.Duration
}

// DefaultConfig returns the settings limen ships with.
func DefaultConfig() Config {
	return Config{
		Strength:      2,
		Carry:         0.9,
		PriorMean:     0.8,
		PriorStrength: 2,
		HalfLife:      90 * 24 * time.Hour,
	}
}

// counts are decayed approvals and denials at one key, as of updated.
type counts struct {
	approvals, denials float64
	updated            time.Time
}

// at returns the counts decayed to now.
func (c *counts) at(now time.Time, halfLife time.Duration) (approvals, denials float64) {
	f := decay(now.Sub(c.updated), halfLife)
	return c.approvals * f, c.denials * f
}

func decay(age, halfLife time.Duration) float64 {
	if halfLife <= 0 || age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

// Estimator is the online hierarchical Beta–Bernoulli predictor of
// DESIGN.md §2. Each user's answers are counted at every key of the action's
// ladder; a level's estimate is its own counts shrunk towards its parent's
// estimate, and the root's towards the organisation prior (everyone's
// answers pooled at that root). It is safe for concurrent use.
type Estimator struct {
	cfg Config

	mu     sync.RWMutex
	users  map[string]map[string]*counts // user → key → counts
	pooled map[string]*counts            // root key → everyone's counts
}

// NewEstimator returns an empty estimator.
func NewEstimator(cfg Config) *Estimator {
	return &Estimator{
		cfg:    cfg,
		users:  make(map[string]map[string]*counts),
		pooled: make(map[string]*counts),
	}
}

// Config returns the estimator's settings.
func (e *Estimator) Config() Config { return e.cfg }

// Observe records one answer of user for an action made of parts. Every key
// of every ladder is counted once, even when two parts share it.
func (e *Estimator) Observe(user string, parts []Ladder, approved bool, at time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	keys := e.users[user]
	if keys == nil {
		keys = make(map[string]*counts)
		e.users[user] = keys
	}
	seen := make(map[string]bool, 8)
	for _, ladder := range parts {
		for _, k := range ladder {
			if seen[k] {
				continue
			}
			seen[k] = true
			e.bump(keys, k, approved, at)
		}
		if len(ladder) > 0 && !seen["\x00"+ladder[0]] {
			seen["\x00"+ladder[0]] = true
			e.bump(e.pooled, ladder[0], approved, at)
		}
	}
}

func (e *Estimator) bump(m map[string]*counts, key string, approved bool, at time.Time) {
	c := m[key]
	if c == nil {
		c = &counts{updated: at}
		m[key] = c
	}
	// Answers replayed out of order (clock skew) are counted undecayed
	// rather than moving the reference time backwards.
	if at.After(c.updated) {
		f := decay(at.Sub(c.updated), e.cfg.HalfLife)
		c.approvals *= f
		c.denials *= f
		c.updated = at
	}
	if approved {
		c.approvals++
	} else {
		c.denials++
	}
}

// Predict returns the approval probability of an action made of parts: the
// probability of its least likely part, with that part's evidence.
func (e *Estimator) Predict(user string, parts []Ladder, now time.Time) Prediction {
	e.mu.RLock()
	defer e.mu.RUnlock()
	keys := e.users[user]
	var worst Prediction
	for i, ladder := range parts {
		p := e.predictLadder(keys, ladder, now)
		if i == 0 || p.P < worst.P {
			worst = p
		}
	}
	if len(parts) == 0 {
		worst = Prediction{P: e.cfg.PriorMean, Effective: e.cfg.PriorStrength}
	}
	return worst
}

// PredictEach returns one prediction per ladder, in order, so that each part
// of a compound action can be held to its own risk class's thresholds.
func (e *Estimator) PredictEach(user string, parts []Ladder, now time.Time) []Prediction {
	e.mu.RLock()
	defer e.mu.RUnlock()
	keys := e.users[user]
	out := make([]Prediction, len(parts))
	for i, ladder := range parts {
		out[i] = e.predictLadder(keys, ladder, now)
	}
	return out
}

// SetHalfLife changes how fast old answers fade, from the next prediction on.
func (e *Estimator) SetHalfLife(h time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg.HalfLife = h
}

func (e *Estimator) predictLadder(keys map[string]*counts, ladder Ladder, now time.Time) Prediction {
	cfg := e.cfg
	// The organisation prior: everyone's answers at this root, shrunk
	// towards the configured prior mean.
	prior, priorWeight := cfg.PriorMean, cfg.PriorStrength
	if len(ladder) > 0 {
		if c := e.pooled[ladder[0]]; c != nil {
			a, d := c.at(now, cfg.HalfLife)
			prior = (a + cfg.PriorStrength*cfg.PriorMean) / (a + d + cfg.PriorStrength)
			priorWeight = cfg.PriorStrength + a + d
		}
	}
	pred := Prediction{P: prior, Level: "prior", Effective: priorWeight}
	mean, weight := prior, cfg.Strength
	for depth, k := range ladder {
		start := mean
		if depth > 0 {
			start = cfg.Carry*mean + (1-cfg.Carry)*prior
		}
		var a, d float64
		if c := keys[k]; c != nil {
			a, d = c.at(now, cfg.HalfLife)
		}
		n := a + d
		mean = (a + weight*start) / (n + weight)
		if n > 0 {
			pred.Level, pred.Approvals, pred.Denials = k, a, d
			pred.Effective = n + weight
		}
	}
	pred.P = clampOpen(mean)
	pred.Key = ladder.Exact()
	return pred
}

// clampOpen keeps p strictly inside (0, 1): no amount of evidence makes an
// approval certain or impossible.
func clampOpen(p float64) float64 {
	const eps = 1e-9
	switch {
	case math.IsNaN(p):
		return 0.5
	case p < eps:
		return eps
	case p > 1-eps:
		return 1 - eps
	}
	return p
}
