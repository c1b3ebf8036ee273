package etcdstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/limenhq/limen/store"
)

// A limend that cannot reach a quorum of etcd must not go on allowing: its
// decision log would not be written, and other limends may have changed
// what it knows. The store remembers when a request last reached a
// quorum (a commit, or the prober's linearizable read), and LogErr
// reports it once that is longer ago than Options.Staleness.

//
// Once WatchAnswers runs, reaching a quorum is not enough: the replica's
// view must be provably fresh. The prober's linearizable read at time T
// returns etcd's revision R then; once the answer watch has delivered
// every answer up to R (its events, or a progress notification the
// prober requests, say so), the view is known to have been complete at
// T. The store is fresh while the last such T is within Staleness; a
// watch that falls behind (a slow or partitioned member, a stuck
// consumer) makes it stale as surely as a lost quorum does.

// reached notes that a request reached a quorum just now.
func (s *Store) reached() { s.lastReached.Store(time.Now().UnixNano()) }

// freshSince is when the view was last proven fresh (Unix nanoseconds):
// when a request last reached a quorum, or, once WatchAnswers runs, the
// time of the last linearizable read whose revision the watch has
// delivered.
func (s *Store) freshSince() int64 {
	if s.watchRev.Load() == 0 {
		return s.lastReached.Load()
	}
	return s.proven.Load()
}

// Freshness says how long ago the store's view was last proven fresh, and
// whether that is within Options.Staleness (so that limend may allow).
func (s *Store) Freshness() (age time.Duration, fresh bool) {
	age = time.Duration(time.Now().UnixNano() - s.freshSince())
	return age, age <= s.opts.Staleness
}

// reachErr is the finding on reaching a quorum alone: what writes that do
// not depend on this replica's view (ids, asks, expiries, the policy's
// compare-and-set, the decision log) check, to fail at once rather than
// wait out a timeout. They must go on while the view is only behind, and
// while limend stops (its watches end first).
func (s *Store) reachErr() error {
	since := time.Duration(time.Now().UnixNano() - s.lastReached.Load())
	if since <= s.opts.Staleness {
		return nil
	}
	return fmt.Errorf("%w: etcd not reached for %v (more than %v): every allow is ask until it is", store.ErrLogUnwritable, since.Round(time.Millisecond), s.opts.Staleness)
}

// staleErr is LogErr's finding on freshness, which Answer checks too (an
// answer here must be applied here before it returns).
func (s *Store) staleErr() error {
	since, fresh := s.Freshness()
	if fresh {
		return nil
	}
	if s.watchRev.Load() != 0 && time.Duration(time.Now().UnixNano()-s.lastReached.Load()) <= s.opts.Staleness {
		return fmt.Errorf("%w: this limend's view of etcd was last proven fresh %v ago (more than %v; its watches of etcd are behind): every allow is ask until it catches up", store.ErrLogUnwritable, since.Round(time.Millisecond), s.opts.Staleness)
	}
	return fmt.Errorf("%w: etcd not reached for %v (more than %v): every allow is ask until it is", store.ErrLogUnwritable, since.Round(time.Millisecond), s.opts.Staleness)
}

// probe is a linearizable read's revision and the time it was sent: the
// view is fresh as of then once the answer watch has delivered rev.
type probe struct {
	rev int64
	at  int64
}

// prove records a linearizable read, and proves the view fresh at once
// if the watch is already there.
func (s *Store) prove(p probe) {
	s.probeMu.Lock()
	s.lastProbe = p
	s.probeMu.Unlock()
	s.checkProof()
}

// checkProof moves proven to the last probe's time if the answer watch
// has delivered its revision.
func (s *Store) checkProof() {
	s.probeMu.Lock()
	p := s.lastProbe
	s.probeMu.Unlock()
	if p.rev == 0 || s.viewRev() < p.rev {
		return
	}
	s.provenAt(p.at)
}

// provenAt notes that the view was complete at time at (Unix nanoseconds).
func (s *Store) provenAt(at int64) {
	for {
		cur := s.proven.Load()
		if at <= cur || s.proven.CompareAndSwap(cur, at) {
			return
		}
	}
}

// staleness is what the prober last told OnLogHealth.
type staleness struct {
	mu       sync.Mutex
	reported bool
}

// runProber reads from etcd every Staleness/5 (a linearizable read: it
// needs the leader and a quorum), so that an idle store stays fresh while
// etcd is reachable and turns stale within Staleness when it is not, and
// tells OnLogHealth of each change.
func (s *Store) runProber() {
	defer close(s.proberDone)
	every := s.opts.Staleness / 5
	tick := time.NewTicker(every)
	defer tick.Stop()
	stop, cancelStop := context.WithCancel(context.Background())
	defer cancelStop()
	go func() {
		<-s.stopProber
		cancelStop() // Close does not wait out a probe of an etcd that is gone
	}()
	for {
		select {
		case <-stop.Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(stop, s.opts.Staleness)
		sent := time.Now().UnixNano()
		resp, err := s.cli.Get(ctx, s.keys.schema)
		if err == nil {
			s.reached()
			if s.watchRev.Load() != 0 {
				// The watches ask for progress notifications themselves
				// (watchFrom), so an idle answer watch shows it has
				// reached this revision too.
				s.prove(probe{rev: resp.Header.Revision, at: sent})
			}
		}
		cancel()
		s.reportStale()
	}
}

// reportStale tells OnLogHealth when freshness changes.
func (s *Store) reportStale() {
	err := s.staleErr()
	s.stale.mu.Lock()
	defer s.stale.mu.Unlock()
	if (err != nil) == s.stale.reported || s.opts.OnLogHealth == nil {
		s.stale.reported = err != nil
		return
	}
	s.stale.reported = err != nil
	// Fresh again is healthy only if the decision log is too: report
	// LogErr, not just this finding.
	s.opts.OnLogHealth(store.LogHealth{Err: s.LogErr()})
}

// watched notes that WatchAnswers has delivered every answer committed up
// to revision rev.
func (s *Store) watched(rev int64) { s.watchedOn(&s.watchRev, rev) }

// watchedOn notes that the watch whose revision is at w has delivered
// everything up to revision rev.
func (s *Store) watchedOn(w *atomic.Int64, rev int64) {
	for {
		cur := w.Load()
		if rev <= cur || w.CompareAndSwap(cur, rev) {
			break
		}
	}
	s.checkProof()
}

// viewRev is the revision up to which the view is complete: the least of
// what the answer watch and, once they run, the policy and grant watches
// have delivered. A policy or a grant's end not yet seen is as stale as an
// answer not yet seen: either may turn an allow into an ask or a block.
func (s *Store) viewRev() int64 {
	rev := s.watchRev.Load()
	for _, w := range []*atomic.Int64{&s.policyRev, &s.grantsRev} {
		if r := w.Load(); r != 0 {
			rev = min(rev, r)
		}
	}
	return rev
}

// WatchedRevision is the etcd revision up to which WatchAnswers has
// delivered every answer (0 before it starts).
func (s *Store) WatchedRevision() int64 { return s.watchRev.Load() }
