package predictor

import (
	"math"
	"sync"
	"time"
)

// Config tunes the estimator. The zero value is not useful; start from
// DefaultConfig.
type Config struct {
	// Strength is how many answers' worth of weight a level's starting
	// estimate carries against the level's own answers. It is small: one
	// answer at a key should nearly settle that key, since a person answers
	// the same action the same way.
	Strength float64
	// ChildStrength is the weight, in distinct children, of the
	// organisation's novelty rate against what this person answered to
	// other children of the same parent (the other subcommands of git,
	// say) when a child is new to them.
	ChildStrength float64
	// Carry is the share of the novelty rate that follows the parent's
	// estimate: a new child of an approved parent starts from the rate at
	// which new children of approved parents were approved, a child of a
	// denied parent from the denied rate, and Carry blends that with the
	// unconditional rate. Below 1 it keeps a novel, specific action from
	// inheriting all the confidence of its general ancestors: a hundred
	// approved `git status` do not vouch for `git push --force`.
	Carry float64
	// OrgStrength is the weight, in people, of the novelty rate against
	// how other people answered the same key when it was new to them.
	OrgStrength float64
	// PriorMean and PriorStrength are the organisation prior used before any
	// pooled answers exist, and the weight it keeps against them.
	PriorMean     float64
	PriorStrength float64
	// HalfLife is how fast old answers fade; zero keeps them forever.
	HalfLife time.Duration
}

// DefaultConfig returns the settings limen ships with.
func DefaultConfig() Config {
	return Config{
		Strength:      0.1,
		ChildStrength: 4,
		Carry:         1,
		OrgStrength:   6,
		PriorMean:     0.85,
		PriorStrength: 4,
		HalfLife:      90 * 24 * time.Hour,
	}
}

// counts are decayed approvals and denials as of updated (Unix nanoseconds).
type counts struct {
	a, d    float64
	updated int64
}

// node is one key of one person: the answers at the key, and the first
// answers to each of its children that were new when the key was known
// (how this person treats novelty under this key).
type node struct {
	own, kids counts
}

// decay returns the factor old counts are multiplied by after age.
func decay(age, halfLife time.Duration) float64 {
	if halfLife <= 0 || age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

// at returns the counts decayed to now.
func (c counts) at(now int64, halfLife time.Duration) (a, d float64) {
	if c.a == 0 && c.d == 0 {
		return 0, 0
	}
	f := decay(time.Duration(now-c.updated), halfLife)
	return c.a * f, c.d * f
}

// bump adds one answer at time at. Answers replayed out of order (clock
// skew) are counted undecayed rather than moving the reference time back.
func (c *counts) bump(approved bool, at int64, halfLife time.Duration) {
	if c.a == 0 && c.d == 0 {
		c.updated = at
	} else if at > c.updated {
		f := decay(time.Duration(at-c.updated), halfLife)
		c.a *= f
		c.d *= f
		c.updated = at
	}
	if approved {
		c.a++
	} else {
		c.d++
	}
}

// maxDepth bounds the ladder depths novelty is pooled at; deeper levels
// share the last depth.
const maxDepth = 6

// novelty is the organisation's experience, pooled over everyone, with
// keys new to a person below one root: the first answers to them, by
// slot (the key's depth, and whether it is the exact, most specific key of
// its ladder: a new argument list is not a new subcommand) and by whether
// the person's answers at the parent were mostly approvals (1) or not (0).
type novelty struct {
	root     counts
	byParent [2 * maxDepth][2]counts
}

// noNovelty stands in, read only, for a root nobody has answered yet.
var noNovelty novelty

// slot is the novelty slot of depth i of a ladder of n keys.
func slot(i, n int) int {
	s := 2 * min(i, maxDepth-1)
	if i == n-1 {
		s++
	}
	return s
}

// person is one user's answers, per key id, in an open-addressing hash
// table: cells is a power of two long, and a key's slot is found by
// probing forward from its hash. A person has a few hundred keys, so a
// lookup is usually one cache line, and the table holds no pointer, so the
// garbage collector never scans it, however many answers there are.
type person struct {
	cells []cell
	used  int
}

// cell holds one key's node; key is the key id plus one, 0 when empty.
type cell struct {
	key  int32
	node node
}

func (p *person) home(id int32) int {
	return int((uint32(id) * 0x9e3779b1) >> 7 & uint32(len(p.cells)-1))
}

// node returns the person's node of key id, or nil.
func (p *person) node(id int32) *node {
	if p == nil || id < 0 || len(p.cells) == 0 {
		return nil
	}
	mask := len(p.cells) - 1
	for i := p.home(id); ; i = (i + 1) & mask {
		switch p.cells[i].key {
		case id + 1:
			return &p.cells[i].node
		case 0:
			return nil
		}
	}
}

// add returns the person's node of key id, making an empty one if needed.
// Unless room was reserved, it may move every node: no *node survives it.
func (p *person) add(id int32) *node {
	if (p.used+1)*4 > len(p.cells)*3 {
		p.grow()
	}
	mask := len(p.cells) - 1
	i := p.home(id)
	for {
		switch p.cells[i].key {
		case id + 1:
			return &p.cells[i].node
		case 0:
			p.cells[i].key = id + 1
			p.used++
			return &p.cells[i].node
		}
		i = (i + 1) & mask
	}
}

// reserve makes room for n more keys, so that the next n adds move no node.
func (p *person) reserve(n int) {
	for (p.used+n)*4 > len(p.cells)*3 {
		p.grow()
	}
}

func (p *person) grow() {
	old := p.cells
	p.cells = make([]cell, max(16, 2*len(old)))
	mask := len(p.cells) - 1
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		i := p.home(s.key - 1)
		for p.cells[i].key != 0 {
			i = (i + 1) & mask
		}
		p.cells[i] = s
	}
}

// Estimator is the online hierarchical Beta–Bernoulli predictor of
// DESIGN.md §2. Each user's answers are counted at every key of the
// action's ladder. A key's estimate is its own answers shrunk towards a
// starting estimate; for a key new to the person that starting estimate is
// all there is. The start of a key blends how the person treated other new
// children of its parent with how new children are treated across the
// organisation, given the parent's own estimate; the root starts from the
// organisation prior (everyone's first answers pooled at that root). It is
// safe for concurrent use.
type Estimator struct {
	mu    sync.RWMutex
	cfg   Config
	users map[string]*person
	novel map[string]*novelty // root key → pooled novelty
	// keys interns every key ever answered, with everyone's first answer
	// to it: how people answer that key when it is new to them. Both sit in
	// the map's value, so one lookup finds them.
	keys   map[string]keyRec
	nextID int32
}

// keyRec is what the organisation knows of one key.
type keyRec struct {
	id    int32
	first counts
}

// NewEstimator returns an empty estimator.
func NewEstimator(cfg Config) *Estimator {
	return &Estimator{
		cfg:   cfg,
		users: make(map[string]*person),
		novel: make(map[string]*novelty),
		keys:  make(map[string]keyRec),
	}
}

// Config returns the estimator's settings.
func (e *Estimator) Config() Config {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cfg
}

// SetHalfLife changes how fast old answers fade, from the next prediction on.
func (e *Estimator) SetHalfLife(h time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg.HalfLife = h
}

// intern returns the id of key k, giving it one if it has none.
func (e *Estimator) intern(k string) int32 {
	if r, ok := e.keys[k]; ok {
		return r.id
	}
	id := e.nextID
	e.nextID++
	e.keys[k] = keyRec{id: id}
	return id
}

// Observe records one answer of user for an action made of parts. Every key
// of every ladder is counted once, even when two parts share it.
func (e *Estimator) Observe(user string, parts []Ladder, approved bool, at time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	who := e.users[user]
	if who == nil {
		who = &person{}
		e.users[user] = who
	}
	now, hl := at.UnixNano(), e.cfg.HalfLife
	if !approved && len(parts) > 1 {
		parts = e.blame(who, parts)
	}

	// Collect each distinct key once, with what was known before this
	// answer, so that two parts sharing a key neither count it twice nor
	// see each other's update as old news. Room for every key is made
	// first, so that the node pointers stay put while they are used.
	type step struct {
		key    string
		node   *node
		known  bool
		parent *node // the key above, when it was known before this answer
		pa     bool  // the parent leaned towards approval
		root   string
		slot   int
	}
	var buf [32]step
	steps := buf[:0]
	var seen map[string]bool // only for actions with many keys
	total := 0
	for _, l := range parts {
		total += len(l)
	}
	if total > len(buf) {
		seen = make(map[string]bool, total)
	}
	who.reserve(total)
	for pi, l := range parts {
		var parent *node
		for i, k := range l {
			n := who.add(e.intern(k))
			if seenKey(parts, pi, i, k, seen) {
				parent = n
				continue
			}
			s := step{key: k, node: n, known: n.own.a > 0 || n.own.d > 0, root: l[0], slot: slot(i, len(l))}
			if parent != nil && parent.own.a+parent.own.d > 0 {
				s.parent = parent
				s.pa = parent.own.a >= parent.own.d
			}
			steps = append(steps, s)
			parent = n
		}
	}
	for _, s := range steps {
		if !s.known {
			nv := e.novel[s.root]
			if nv == nil {
				nv = &novelty{}
				e.novel[s.root] = nv
			}
			if s.slot < 2 {
				nv.root.bump(approved, now, hl)
			} else {
				r := e.keys[s.key]
				r.first.bump(approved, now, hl)
				e.keys[s.key] = r
				if s.parent != nil {
					nv.byParent[s.slot][b2i(s.pa)].bump(approved, now, hl)
					s.parent.kids.bump(approved, now, hl)
				}
			}
		}
		s.node.own.bump(approved, now, hl)
	}
}

// blame returns the parts a denial of the whole action is counted on:
// every part but those the person has approved exactly before and never
// refused (all parts, if that leaves none). Refusing `cd src && rm -rf .`
// says nothing against an approved `cd src`, and counting it there would
// make the person's next harmless `cd src && make` look refused.
func (e *Estimator) blame(who *person, parts []Ladder) []Ladder {
	out := make([]Ladder, 0, len(parts))
	for _, l := range parts {
		if r, ok := e.keys[l.Exact()]; ok {
			if n := who.node(r.id); n != nil && n.own.a > 0 && n.own.d == 0 {
				continue
			}
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return parts
	}
	return out
}

// seenKey reports whether key k, at position i of ladder pi, already
// appeared earlier in the action. With many keys it uses (and fills) seen.
func seenKey(parts []Ladder, pi, i int, k string, seen map[string]bool) bool {
	if seen != nil {
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	}
	for p := 0; p <= pi; p++ {
		l := parts[p]
		if p == pi {
			l = l[:i]
		}
		for _, o := range l {
			if o == k {
				return true
			}
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Predict returns the approval probability of an action made of parts: the
// probability of its least likely part, with that part's evidence.
func (e *Estimator) Predict(user string, parts []Ladder, now time.Time) Prediction {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if len(parts) == 0 {
		return Prediction{P: e.cfg.PriorMean, Level: "prior", Effective: e.cfg.PriorStrength}
	}
	who := e.users[user]
	var worst Prediction
	for i, ladder := range parts {
		p := e.predictLadder(who, ladder, now.UnixNano())
		if i == 0 || p.P < worst.P {
			worst = p
		}
	}
	return worst
}

// PredictEach returns one prediction per ladder, in order, so that each part
// of a compound action can be held to its own risk class's thresholds.
func (e *Estimator) PredictEach(user string, parts []Ladder, now time.Time) []Prediction {
	e.mu.RLock()
	defer e.mu.RUnlock()
	who := e.users[user]
	out := make([]Prediction, len(parts))
	for i, ladder := range parts {
		out[i] = e.predictLadder(who, ladder, now.UnixNano())
	}
	return out
}

// rate is a Beta mean: a and d shrunk towards mean with weight w.
func rate(a, d, mean, w float64) float64 { return (a + w*mean) / (a + d + w) }

func (e *Estimator) predictLadder(who *person, ladder Ladder, now int64) Prediction {
	cfg := e.cfg
	hl := cfg.HalfLife
	if len(ladder) == 0 {
		return Prediction{P: cfg.PriorMean, Level: "prior", Effective: cfg.PriorStrength}
	}
	nv := e.novel[ladder[0]]
	if nv == nil {
		nv = &noNovelty
	}
	// The root starts from the organisation's answers to roots new to a
	// person, shrunk towards the configured prior.
	a, d := nv.root.at(now, hl)
	start := rate(a, d, cfg.PriorMean, cfg.PriorStrength)
	pred := Prediction{P: start, Level: "prior", Effective: cfg.PriorStrength + a + d}
	var est float64
	var parent node
	var hasParent bool
	for i, k := range ladder {
		r, known := e.keys[k]
		id := r.id
		if !known {
			id = -1
		}
		if i > 0 {
			start = e.childStart(nv, r.first, parent, hasParent, slot(i, len(ladder)), est, now)
		}
		np := who.node(id)
		var n node
		if np != nil {
			n = *np
		}
		ok := np != nil
		est = start
		if ok {
			a, d := n.own.at(now, hl)
			if a+d > 0 {
				est = rate(a, d, start, cfg.Strength)
				pred.Level, pred.Approvals, pred.Denials = k, a, d
				pred.Effective = a + d + cfg.Strength
			}
		}
		parent, hasParent = n, ok
	}
	pred.P = clampOpen(est)
	pred.Key = ladder.Exact()
	return pred
}

// childStart is the starting estimate of a key below parent, whose own
// estimate is pe: the organisation's rate of approving new keys at this
// depth, given how the parent leans, refined by this person's answers to
// the parent's other new children.
func (e *Estimator) childStart(nv *novelty, first counts, parent node, hasParent bool, s int, pe float64, now int64) float64 {
	cfg := e.cfg
	hl := cfg.HalfLife
	ya, yd := nv.byParent[s][1].at(now, hl)
	na, nd := nv.byParent[s][0].at(now, hl)
	all := rate(ya+na, yd+nd, cfg.PriorMean, cfg.PriorStrength)
	// Without answers at this slot a child of an approving parent starts
	// at the prior, a child of a denying one at its mirror image, and a
	// child of a parent that is itself new follows the parent's estimate.
	yes := rate(ya, yd, cfg.PriorMean, cfg.PriorStrength)
	no := rate(na, nd, 1-cfg.PriorMean, cfg.PriorStrength)
	// The parent's estimate says how it leans. A child of an approving
	// parent is never taken as less likely approved than a child of a
	// denying one, which keeps p monotone in the answers.
	lean := pe
	m := min(yes, no) + lean*(max(yes, no)-min(yes, no))
	m = cfg.Carry*m + (1-cfg.Carry)*all
	// How everyone else answered this very key when it was new to them.
	fa, fd := first.at(now, hl)
	m = rate(fa, fd, m, cfg.OrgStrength)
	if !hasParent {
		return m
	}
	ka, kd := parent.kids.at(now, hl)
	return rate(ka, kd, m, cfg.ChildStrength)
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
