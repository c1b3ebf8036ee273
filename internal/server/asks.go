package server

import (
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// ask is one pending ask held in memory. done is closed once the ask is
// answered or expired; final is set before that and never changes after.
type ask struct {
	id    uint64
	msg   *limenv1.PendingAsk
	done  chan struct{}
	final *limenv1.AwaitResponse
	timer *time.Timer
}

// asks is the in-memory view of the pending asks: who waits on them and who
// watches them. The store is the durable copy; this is rebuilt from it at
// start.
type asks struct {
	mu       sync.Mutex
	byID     map[uint64]*ask
	perUser  map[string]int
	watchers map[chan *limenv1.WatchPendingResponse]struct{}
}

func newAsks() *asks {
	return &asks{byID: make(map[uint64]*ask), perUser: make(map[string]int), watchers: make(map[chan *limenv1.WatchPendingResponse]struct{})}
}

// add makes an ask pending, tells every watcher, and arms expire to run
// once the ask's wait is over. The timer is set under the lock that
// resolve stops it under: an answer racing with the add cannot miss it.
func (a *asks) add(id uint64, msg *limenv1.PendingAsk, wait time.Duration, expire func(id uint64)) {
	k := &ask{id: id, msg: msg, done: make(chan struct{})}
	a.mu.Lock()
	defer a.mu.Unlock()
	k.timer = time.AfterFunc(max(wait, 0), func() { expire(id) })
	a.byID[id] = k
	a.perUser[userOf(msg)]++
	a.broadcast(&limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: msg})
}

func (a *asks) get(id uint64) *ask {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.byID[id]
}

// resolve settles an ask: it wakes every Await and tells every watcher. It
// is idempotent; the store decides which of two racing answers wins, so the
// caller only resolves after the store accepted it.
func (a *asks) resolve(id uint64, final *limenv1.AwaitResponse) {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := a.byID[id]
	if k == nil {
		return
	}
	delete(a.byID, id)
	if a.perUser[userOf(k.msg)]--; a.perUser[userOf(k.msg)] <= 0 {
		delete(a.perUser, userOf(k.msg))
	}
	if k.timer != nil {
		k.timer.Stop()
	}
	k.final = final
	close(k.done)
	a.broadcast(&limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_REMOVED, Ask: k.msg, Outcome: final.GetOutcome()})
}

// list returns the pending asks, oldest first (ids grow with time).
func (a *asks) list() []*limenv1.PendingAsk {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.listLocked()
}

func (a *asks) listLocked() []*limenv1.PendingAsk {
	ids := make([]uint64, 0, len(a.byID))
	for id := range a.byID {
		ids = append(ids, id)
	}
	sortIDs(ids)
	out := make([]*limenv1.PendingAsk, len(ids))
	for i, id := range ids {
		out[i] = proto.CloneOf(a.byID[id].msg)
	}
	return out
}

// countUser returns how many asks wait for one user.
func (a *asks) countUser(user string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.perUser[user]
}

func userOf(p *limenv1.PendingAsk) string { return p.GetDecision().GetAction().GetUser() }

func (a *asks) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.byID)
}

// watch subscribes to changes. The snapshot of what is pending now is queued
// first, atomically with the subscription, so no change falls between them.
// A watcher that falls behind by a full buffer is dropped (its channel is
// closed) rather than ever slowing down a decision; it reconnects and gets a
// fresh snapshot.
func (a *asks) watch() (ch chan *limenv1.WatchPendingResponse, cancel func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	snap := a.listLocked()
	ch = make(chan *limenv1.WatchPendingResponse, len(snap)+256)
	for _, p := range snap {
		ch <- &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: p}
	}
	ch <- &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_SYNCED}
	a.watchers[ch] = struct{}{}
	return ch, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if _, ok := a.watchers[ch]; ok {
			delete(a.watchers, ch)
			close(ch)
		}
	}
}

func (a *asks) broadcast(ev *limenv1.WatchPendingResponse) {
	for ch := range a.watchers {
		select {
		case ch <- ev:
		default:
			delete(a.watchers, ch)
			close(ch)
		}
	}
}

func sortIDs(ids []uint64) { slices.Sort(ids) }
