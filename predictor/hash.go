package predictor

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
)

// CountsHash returns a hash of everything the estimator has counted: every
// person's counts at every key, the organisation's first answers to each
// key and its pooled novelty. Two estimators that were given the same
// answers in the same order hash alike, bit for bit, whatever order they
// interned their keys in (the hash walks keys and people by name, not by
// id); one answer more, fewer or in another order almost surely changes
// it. A team's limend replicas compare it to show they learned the same
// (issue 17): decayed counts are floating point, so only the same answers
// applied in the same order give equal counts.
func (e *Estimator) CountsHash() uint64 {
	e.mu.RLock()
	defer e.mu.RUnlock()
	names := make([]string, len(e.info))
	for k, id := range e.keys {
		names[id] = k
	}
	byName := make([]int32, len(names))
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortFunc(byName, func(a, b int32) int {
		switch {
		case names[a] < names[b]:
			return -1
		case names[a] > names[b]:
			return 1
		}
		return 0
	})
	h := fnv.New64a()
	var buf [8]byte
	num := func(v uint64) {
		binary.BigEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	str := func(s string) {
		num(uint64(len(s)))
		h.Write([]byte(s))
	}
	cnt := func(c counts) {
		num(math.Float64bits(c.a))
		num(math.Float64bits(c.d))
		num(uint64(c.updated))
	}
	for _, id := range byName {
		str(names[id])
		inf := e.info[id]
		cnt(inf.first)
		if inf.novel > 0 {
			nv := e.novel[inf.novel-1]
			cnt(nv.root)
			for _, pair := range nv.byParent {
				cnt(pair[0])
				cnt(pair[1])
			}
		}
	}
	users := make([]string, 0, len(e.users))
	for u := range e.users {
		users = append(users, u)
	}
	slices.Sort(users)
	for _, u := range users {
		str(u)
		who := e.users[u]
		for _, id := range byName {
			n := who.node(id)
			if n == nil {
				continue
			}
			str(names[id])
			cnt(n.own)
			cnt(n.kids)
			num(math.Float64bits(n.risky))
		}
	}
	return h.Sum64()
}
