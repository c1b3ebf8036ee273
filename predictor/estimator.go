// Package predictor estimates how likely a person is to approve an action,
// from that person's own past answers to the keys of its ladders
// (package action builds the ladders).
//
// It is a domain package: it takes and returns plain Go values and does no
// I/O, so it is fast to test and to benchmark. The server converts between
// API messages and these types.
package predictor

import (
	"math"
	"sync"
	"time"

	"github.com/limenhq/limen/action"
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
	// risky is the part of own.d, decayed with it, that refused a riskier
	// variant below this key (rm [-f -r] under rm): it lowers p here, but
	// is no refusal of this key itself, so it does not let a prediction
	// block here.
	risky float64
}

// bumpOwn counts one answer at the node; risky marks a denial of a
// riskier variant below it.
func (n *node) bumpOwn(approved, risky bool, at int64, halfLife time.Duration) {
	if n.risky > 0 && at > n.own.updated {
		n.risky *= decay(time.Duration(at-n.own.updated), halfLife)
	}
	n.own.bump(approved, at, halfLife)
	if risky {
		n.risky++
	}
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
	// clean is the part of byParent[s][1] whose parent the person had
	// approved and never refused: a new child of a key someone has only
	// ever approved is approved more often than one of a key they have
	// also refused (a new `curl URL` after approved curls, against a new
	// `psql …` after a refused one).
	clean [2 * maxDepth]counts
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
	// keys interns every key ever answered; its id indexes info, so one
	// lookup by text finds everything the organisation knows of a key.
	keys  map[string]int32
	info  []keyInfo
	novel []*novelty // pooled novelty of a root, by keyInfo.novel-1
}

// keyInfo is what the organisation knows of one key.
type keyInfo struct {
	// first is everyone's first answer to the key: how people answer it
	// when it is new to them.
	first counts
	// novel is 1 + the index in Estimator.novel of the key's pooled
	// novelty when it is the root of a ladder that was answered, else 0.
	novel int32
}

// NewEstimator returns an empty estimator.
func NewEstimator(cfg Config) *Estimator {
	return &Estimator{
		cfg:   cfg,
		users: make(map[string]*person),
		keys:  make(map[string]int32),
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

// text is a key or user name, as a string or as bytes decoded in place.
// Looking one up as m[string(b)] does not copy it; only a key or user seen
// for the first time is copied into a string of its own.
type text interface{ ~string | ~[]byte }

// Observe records one answer of user for an action made of parts. Every key
// of every ladder is counted once, even when two parts share it.
func (e *Estimator) Observe(user string, parts []action.Ladder, approved bool, at time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	observe(e, user, parts, approved, at.UnixNano())
}

// ObserveBytes is Observe for a caller that holds the user and the keys as
// bytes, such as answers decoded in place from the store: parts[i][j] is
// key j of ladder i. The bytes are copied only when the user or a key is
// new, so replaying stored answers allocates almost nothing. The estimator
// keeps no reference to the slices.
func (e *Estimator) ObserveBytes(user []byte, parts [][][]byte, approved bool, at time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	observe(e, user, parts, approved, at.UnixNano())
}

// observe turns the user and the keys into their person and key ids and
// counts the answer. The caller holds e.mu.
func observe[T text, L ~[]T](e *Estimator, user T, parts []L, approved bool, now int64) {
	who := e.users[string(user)]
	if who == nil {
		who = &person{}
		e.users[string(user)] = who
	}
	if !approved && len(parts) > 1 {
		var buf [8]L
		parts = blame(e, who, parts, buf[:0])
	}
	// Most actions have one part of a handful of keys: keep them on the
	// stack.
	var idBuf [32]int32
	var endBuf, markBuf, poolBuf [8]int
	ids, ends, marks, pools := idBuf[:0], endBuf[:0], markBuf[:0], poolBuf[:0]
	for _, l := range parts {
		marks = append(marks, markLevel(l))
		pools = append(pools, poolLevel(l))
		for _, k := range l {
			id, ok := e.keys[string(k)]
			if !ok {
				id = e.addKey(string(k))
			}
			ids = append(ids, id)
		}
		ends = append(ends, len(ids))
	}
	e.count(who, ids, ends, marks, pools, approved, now)
}

// poolLevel is the level of a ladder whose pooled novelty its keys share:
// the root, except for ladders whose second level is a name limen made up
// rather than a program, path or host (Bash:<opaque>, Bash:<unparsed>,
// Bash:<assign>, Read:<too many paths>), which pool at that level, apart
// from the tool's. Above all the ladders of what limen could not read:
// their answers say nothing about the new commands it can read (a refused
// `curl … | sh` is no evidence against a new `curl URL`), and they are
// allowed only on their own exact approval whatever they pool with.
func poolLevel[T text, L ~[]T](l L) int {
	if len(l) < 2 {
		return 0
	}
	r, k := l[0], l[1]
	if n := len(r); len(k) > n+2 && string(k[:n]) == string(r) && k[n] == ':' && k[n+1] == '<' && k[len(k)-1] == '>' {
		return 1
	}
	return 0
}

// markLevel is action.MarkLevel for keys as strings or bytes: the index
// of the ladder's level that holds its risk marks ("Bash:rm [-f -r]"), or
// -1. It must agree with action.MarkLevel (a test holds it to that).
func markLevel[T text, L ~[]T](l L) int {
	for i := 1; i < len(l)-1; i++ {
		k := l[i]
		if n := len(k); n == 0 || k[n-1] != ']' {
			continue
		}
		for j := 0; j+1 < len(k); j++ {
			if k[j] == ' ' && k[j+1] == '[' {
				return i
			}
		}
	}
	return -1
}

// addKey interns a new key.
func (e *Estimator) addKey(k string) int32 {
	id := int32(len(e.info))
	e.info = append(e.info, keyInfo{})
	e.keys[k] = id
	return id
}

// count records one answer of who: ids are the key ids of every ladder of
// the action, one after the other, ends[i] is where ladder i ends,
// marks[i] is its mark level (-1 without one) and pools[i] its pool level.
func (e *Estimator) count(who *person, ids []int32, ends, marks, pools []int, approved bool, now int64) {
	hl := e.cfg.HalfLife
	// Collect each distinct key once, with what was known before this
	// answer, so that two parts sharing a key neither count it twice nor
	// see each other's update as old news. Room for every key is made
	// first, so that the node pointers stay put while they are used.
	type step struct {
		id     int32
		root   int32
		slot   int
		node   *node
		parent *node // the key above, when it was known before this answer
		known  bool
		pa     bool // the parent leaned towards approval
		clean  bool // the parent was approved and never refused
		risky  bool // the key is above the ladder's risk marks
	}
	var buf [32]step
	steps := buf[:0]
	var seen map[int32]bool // only for actions with many keys
	if len(ids) > len(buf) {
		seen = make(map[int32]bool, len(ids))
	}
	who.reserve(len(ids))
	start := 0
	for j, end := range ends {
		l := ids[start:end]
		var parent *node
		for i, id := range l {
			n := who.add(id)
			if seenID(ids, start+i, seen) {
				parent = n
				continue
			}
			s := step{id: id, root: l[pools[j]], slot: slot(i, len(l)), node: n, known: n.own.a > 0 || n.own.d > 0,
				risky: !approved && i < marks[j]}
			if parent != nil && parent.own.a+parent.own.d > 0 {
				s.parent = parent
				s.pa = parent.own.a >= parent.own.d
				s.clean = parent.own.d == 0
			}
			steps = append(steps, s)
			parent = n
		}
		start = end
	}
	for i := range steps {
		s := &steps[i]
		if !s.known {
			nv := e.novelty(s.root)
			if s.slot < 2 {
				nv.root.bump(approved, now, hl)
			} else {
				e.info[s.id].first.bump(approved, now, hl)
				if s.parent != nil {
					nv.byParent[s.slot][b2i(s.pa)].bump(approved, now, hl)
					if s.clean {
						nv.clean[s.slot].bump(approved, now, hl)
					}
					s.parent.kids.bump(approved, now, hl)
				}
			}
		}
		s.node.bumpOwn(approved, s.risky, now, hl)
	}
}

// novelty returns the pooled novelty of root, making it if needed.
func (e *Estimator) novelty(root int32) *novelty {
	if i := e.info[root].novel; i > 0 {
		return e.novel[i-1]
	}
	nv := &novelty{}
	e.novel = append(e.novel, nv)
	e.info[root].novel = int32(len(e.novel))
	return nv
}

// blame returns the parts a denial of the whole action is counted on:
// the parts with risk marks, when there are any, else every part; in
// either case but those the person has approved exactly before and never
// refused (all parts, if that leaves none). Refusing `cd src && rm -rf .`
// says nothing against an approved `cd src`, and counting it there would
// make the person's next harmless `cd src && make` look refused; refusing
// `find . -name x | xargs rm -rf` is about the rm -rf, not the find.
// The parts kept are appended to out.
func blame[T text, L ~[]T](e *Estimator, who *person, parts, out []L) []L {
	marked := false
	for _, l := range parts {
		if markLevel(l) >= 0 {
			marked = true
			break
		}
	}
	for _, l := range parts {
		if marked && markLevel(l) < 0 {
			continue
		}
		var exact T // an empty ladder's exact key is ""
		if len(l) > 0 {
			exact = l[len(l)-1]
		}
		if id, ok := e.keys[string(exact)]; ok {
			if n := who.node(id); n != nil && n.own.a > 0 && n.own.d == 0 {
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

// seenID reports whether the key at position i of ids already appeared
// earlier in the action. With many keys it uses (and fills) seen.
func seenID(ids []int32, i int, seen map[int32]bool) bool {
	if seen != nil {
		if seen[ids[i]] {
			return true
		}
		seen[ids[i]] = true
		return false
	}
	for _, o := range ids[:i] {
		if o == ids[i] {
			return true
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
func (e *Estimator) Predict(user string, parts []action.Ladder, now time.Time) Prediction {
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
func (e *Estimator) PredictEach(user string, parts []action.Ladder, now time.Time) []Prediction {
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

func (e *Estimator) predictLadder(who *person, ladder action.Ladder, now int64) Prediction {
	cfg := e.cfg
	hl := cfg.HalfLife
	if len(ladder) == 0 {
		return Prediction{P: cfg.PriorMean, Level: "prior", Effective: cfg.PriorStrength}
	}
	// Look every key up before any arithmetic: with a million answers most
	// of these reads miss the cache, and issued together they overlap.
	type keyLook struct {
		first counts
		node  *node
	}
	var buf [8]keyLook
	looks := buf[:0]
	if len(ladder) > len(buf) {
		looks = make([]keyLook, 0, len(ladder))
	}
	nv := &noNovelty
	pool := poolLevel(ladder)
	for i, k := range ladder {
		var l keyLook
		if id, ok := e.keys[k]; ok {
			l.first, l.node = e.info[id].first, who.node(id)
			if i == pool && e.info[id].novel > 0 {
				nv = e.novel[e.info[id].novel-1]
			}
		}
		looks = append(looks, l)
	}
	// The root starts from the organisation's answers to roots new to a
	// person, shrunk towards the configured prior.
	a, d := nv.root.at(now, hl)
	start := rate(a, d, cfg.PriorMean, cfg.PriorStrength)
	pred := Prediction{P: start, Level: "prior", Effective: cfg.PriorStrength + a + d}
	var est float64
	var parent *node
	for i, l := range looks {
		if i > 0 {
			start = e.childStart(nv, l.first, parent, slot(i, len(ladder)), est, now)
		}
		est = start
		if i > 0 && (l.first.a > 0 || l.first.d > 0 || l.node != nil && (l.node.own.a > 0 || l.node.own.d > 0)) {
			pred.Specific = true
		}
		if l.node != nil {
			a, d := l.node.own.at(now, hl)
			if a+d > 0 {
				est = rate(a, d, start, cfg.Strength)
				pred.Level, pred.Approvals, pred.Denials = ladder[i], a, d
				pred.RiskyDenials = 0
				if r := l.node.risky; r > 0 {
					pred.RiskyDenials = min(d, r*decay(time.Duration(now-l.node.own.updated), hl))
				}
				pred.Effective = a + d + cfg.Strength
				pred.OwnDepth = i
				pred.OwnExact = i == len(ladder)-1 && a > 0 && l.node.own.d == 0
			}
		}
		parent = l.node
	}
	pred.P = clampOpen(est)
	pred.Key = ladder.Exact()
	return pred
}

// childStart is the starting estimate of a key below parent, whose own
// estimate is pe: the organisation's rate of approving new keys at this
// depth, given how the parent leans, refined by this person's answers to
// the parent's other new children.
func (e *Estimator) childStart(nv *novelty, first counts, parent *node, s int, pe float64, now int64) float64 {
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
	if parent != nil && parent.own.d == 0 && parent.own.a > 0 {
		// A parent never refused starts its children from the rate of
		// children of such parents, shrunk towards all approving
		// parents'; never below the latter, so that the person's first
		// refusal there can only lower p.
		ca, cd := nv.clean[s].at(now, hl)
		yes = max(yes, rate(ca, cd, yes, cfg.PriorStrength))
	}
	// The parent's estimate says how it leans. A child of an approving
	// parent is never taken as less likely approved than a child of a
	// denying one, which keeps p monotone in the answers.
	lean := pe
	m := min(yes, no) + lean*(max(yes, no)-min(yes, no))
	m = cfg.Carry*m + (1-cfg.Carry)*all
	// How everyone else answered this very key when it was new to them.
	fa, fd := first.at(now, hl)
	m = rate(fa, fd, m, cfg.OrgStrength)
	if parent == nil {
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
