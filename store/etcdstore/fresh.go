package etcdstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/limenhq/limen/store"
)

// A limend that cannot reach a quorum of etcd must not go on allowing: its
// decision log would not be written, and other limends may have changed
// what it knows. The store remembers when a request last reached a
// quorum (a commit, or the prober's linearizable read), and LogErr
// reports it once that is longer ago than Options.Staleness.

// reached notes that a request reached a quorum just now.
func (s *Store) reached() { s.lastReached.Store(time.Now().UnixNano()) }

// staleErr is LogErr's finding on freshness.
func (s *Store) staleErr() error {
	since := time.Duration(time.Now().UnixNano() - s.lastReached.Load())
	if since <= s.opts.Staleness {
		return nil
	}
	return fmt.Errorf("%w: etcd not reached for %v (more than %v): every allow is ask until it is", store.ErrLogUnwritable, since.Round(time.Millisecond), s.opts.Staleness)
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
		_, err := s.cli.Get(ctx, s.keys.schema)
		cancel()
		if err == nil {
			s.reached()
		}
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
func (s *Store) watched(rev int64) {
	for {
		cur := s.watchRev.Load()
		if rev <= cur || s.watchRev.CompareAndSwap(cur, rev) {
			return
		}
	}
}

// WatchedRevision is the etcd revision up to which WatchAnswers has
// delivered every answer (0 before it starts).
func (s *Store) WatchedRevision() int64 { return s.watchRev.Load() }
