package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/store"
	storev1 "github.com/limenhq/limen/store/storev1"
)

// SchemaVersion is the version of the key schema drawn in doc.go that this
// build writes and reads.
const SchemaVersion = 1

// DefaultPrefix is where the keys live when Options.Prefix is empty.
const DefaultPrefix = "/limen/"

// Options configure Open.
type Options struct {
	// Client is the etcd client, required. The store does not close it.
	Client *clientv3.Client
	// Prefix is prepended to every key; it lets several limens (or tests)
	// share one etcd cluster. Default DefaultPrefix.
	Prefix string
	// Timeout bounds every request to etcd (Staleness too, if shorter).
	// Default 5s.
	Timeout time.Duration
	// FlushInterval is the longest a LogDecision record waits before the
	// batcher commits it. Default 50ms.
	FlushInterval time.Duration
	// MaxBatch is the most records the batcher commits at once. Default
	// 512; they are written in transactions of logTxnRecords.
	MaxBatch int
	// OnLogHealth, if set, hears when the decision log starts failing and
	// when it recovers, as store.Options.OnLogHealth. It runs on the
	// batcher's or the prober's goroutine and must not call back into the
	// store.
	OnLogHealth func(store.LogHealth)
	// LogRecords and LogRetention bound the decision log kept in etcd:
	// the oldest records beyond LogRecords, and those older than
	// LogRetention, are deleted (retention.go). Default 1,000,000 records
	// and 90 days.
	LogRecords   int
	LogRetention time.Duration
	// LogMaxDB is the size of etcd's database past which no decision
	// record is written, so that answers keep room below etcd's quota.
	// Default 1 GiB (half etcd's default quota).
	LogMaxDB int64
	// GrantTTL is how long a session grant lives in etcd (its lease):
	// etcd deletes it then, and every limend forgets it. Default 24h.
	GrantTTL time.Duration
	// Staleness is how long the store may go without a request that
	// reached a quorum before LogErr reports it: limend then turns allows
	// into asks, as for a decision log that cannot be written. A prober
	// makes such a request every Staleness/5 when nothing else does.
	// Default 5s.
	Staleness time.Duration
}

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = 50 * time.Millisecond
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 512
	}
	if o.Staleness <= 0 {
		o.Staleness = 5 * time.Second
	}
	if o.GrantTTL <= 0 {
		o.GrantTTL = 24 * time.Hour
	}
	if o.LogRecords <= 0 {
		o.LogRecords = 1_000_000
	}
	if o.LogRetention <= 0 {
		o.LogRetention = 90 * 24 * time.Hour
	}
	if o.LogMaxDB <= 0 {
		o.LogMaxDB = 1 << 30
	}
	return o
}

// ErrSchemaTooNew is store.ErrSchemaTooNew for a prefix whose schema
// version is newer than this build knows.
var ErrSchemaTooNew = store.ErrSchemaTooNew

// idBlock is how many ids one reservation in etcd covers.
const idBlock = 4096

// Store is limen's durable state in etcd. It implements store.Backend; its
// methods are safe for concurrent use, and several Stores (one per limend
// server) may share one prefix.
type Store struct {
	cli  *clientv3.Client
	opts Options
	keys keys

	// idMu guards the block of ids this Store hands out, [next, limit),
	// and the one reserved ahead of it, [spareNext, spareLimit) (empty:
	// none), which a background reservation fills once half the block
	// is used (prefetching), so that no decision waits for etcd's round
	// trip when a block runs out.
	idMu                  sync.Mutex
	next, limit           uint64
	spareNext, spareLimit uint64
	prefetching           bool

	// logMu guards closed against records handed to the batcher after
	// Close, as in store.Store.
	logMu       sync.RWMutex
	closed      bool
	log         chan logItem
	batcherDone chan struct{}
	batcherErr  error
	health      health

	// pendingRev is the revision the last Pending read at; own holds the
	// asks this Store is adding or resolving, whose changes WatchPending
	// does not report (watch.go).
	pendingRev atomic.Int64
	own        ownChanges

	// lastReached is when (UnixNano) a request last reached a quorum;
	// the prober keeps it fresh (fresh.go).
	lastReached atomic.Int64
	stale       staleness
	stopProber  chan struct{}
	proberDone  chan struct{}

	// watchRev is the revision up to which WatchAnswers has delivered
	// every answer; proven is when the view was last proven fresh, from
	// the prober's lastProbe (fresh.go).
	watchRev  atomic.Int64
	policyRev atomic.Int64 // what WatchPolicy has delivered, likewise
	grantsRev atomic.Int64 // what WatchGrants has delivered, likewise
	proven    atomic.Int64
	probeMu   sync.Mutex
	lastProbe probe
	// watches numbers the watches, each on a stream of its own (watch.go).
	watches atomic.Uint64

	// db is etcd's database size, measured by runRetention, which
	// closes retentionDone when it ends (retention.go).
	db            dbSize
	retentionDone chan struct{}
	report        reportLease // cluster.go

	closeOnce sync.Once
	closeErr  error
}

var _ store.Backend = (*Store)(nil)

// Open opens the store under opts.Prefix, writing the schema version if
// the prefix is new, and refusing one written by a newer limen.
func Open(ctx context.Context, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if opts.Client == nil {
		return nil, errors.New("open etcd store: Options.Client is nil: give an etcd client (clientv3.New)")
	}
	s := &Store{
		cli:         opts.Client,
		opts:        opts,
		keys:        newKeys(opts.Prefix),
		log:         make(chan logItem, max(opts.MaxBatch*2, 1024)),
		batcherDone: make(chan struct{}),
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err := s.checkSchema(ctx); err != nil {
		return nil, fmt.Errorf("open etcd store %s: %w", opts.Prefix, err)
	}
	s.reached()
	s.proberDone = make(chan struct{})
	s.stopProber = make(chan struct{})
	s.retentionDone = make(chan struct{})
	go s.runBatcher()
	go s.runProber()
	go s.runRetention()
	return s, nil
}

// checkSchema writes the schema version on a new prefix and checks it on
// an old one, in one transaction.
func (s *Store) checkSchema(ctx context.Context) error {
	k := s.keys.schema
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, strconv.Itoa(SchemaVersion))).
		Else(clientv3.OpGet(k)).
		Commit()
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if resp.Succeeded {
		return nil
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(kvs) != 1 {
		return fmt.Errorf("read schema version: %s vanished", k)
	}
	v, err := strconv.ParseUint(string(kvs[0].Value), 10, 64)
	if err != nil {
		return fmt.Errorf("schema version at %s is %q, not a number: %w", k, kvs[0].Value, store.ErrCorrupt)
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w: schema version %d, this build knows up to %d", ErrSchemaTooNew, v, SchemaVersion)
	}
	return nil
}

// ctx returns a context bounded by Options.Timeout, or Options.Staleness
// if that is shorter: a request that takes longer leaves the store stale
// anyway, and what waits on it (Close's last flush, a Decide's ask) should
// not wait longer.
func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), min(s.opts.Timeout, s.opts.Staleness))
}

// isClosed reports whether Close has begun.
func (s *Store) isClosed() bool {
	s.logMu.RLock()
	defer s.logMu.RUnlock()
	return s.closed
}

// Close flushes the decision log, stops the batcher and gives back the
// unused ids of this Store's block when nobody reserved after it. The
// client stays open (it is the caller's).
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.logMu.Lock()
		s.closed = true
		close(s.log)
		s.logMu.Unlock()
		<-s.batcherDone
		close(s.stopProber)
		<-s.proberDone
		<-s.retentionDone
		var errs []error
		if s.batcherErr != nil {
			errs = append(errs, fmt.Errorf("close etcd store: flush decision log: %w", s.batcherErr))
		}
		if err := s.releaseIDs(); err != nil {
			errs = append(errs, fmt.Errorf("close etcd store: %w", err))
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// NextID returns a new decision id. Ids are reserved in blocks of idBlock
// with a compare-and-set on meta/id_reserved, so the Stores sharing a
// prefix never hand out the same id; each Store's ids increase, and ids
// are never reused, not even after a crash. A block costs one etcd round
// trip, taken in the background once half the block before it is used;
// the ids in it cost a mutex.
func (s *Store) NextID() (uint64, error) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	if s.next >= s.limit {
		switch {
		case s.spareLimit > s.spareNext:
			s.next, s.limit = s.spareNext, s.spareLimit
			s.spareNext, s.spareLimit = 0, 0
		case s.isClosed():
			return 0, fmt.Errorf("next id: %w", store.ErrClosed)
		default:
			base, limit, err := s.reserve()
			if err != nil {
				return 0, fmt.Errorf("next id: %w", err)
			}
			s.next, s.limit = base, limit
		}
	}
	id := s.next
	s.next++
	if s.limit-s.next < idBlock/2 && s.spareLimit == 0 && !s.prefetching && !s.isClosed() {
		s.prefetching = true
		go s.prefetchIDs()
	}
	return id, nil
}

// prefetchIDs reserves the block after this Store's current one. A
// failure leaves NextID to reserve one itself when the block runs out.
func (s *Store) prefetchIDs() {
	base, limit, err := s.reserve()
	s.idMu.Lock()
	defer s.idMu.Unlock()
	s.prefetching = false
	if err == nil && base >= s.limit {
		s.spareNext, s.spareLimit = base, limit
	}
}

// reserve takes the next block of ids in etcd. It holds no lock: each
// reservation is its own compare-and-set.
func (s *Store) reserve() (base, limit uint64, err error) {
	if err := s.reachErr(); err != nil {
		return 0, 0, fmt.Errorf("reserve ids: %w", err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	k := s.keys.idReserved
	for {
		resp, err := s.cli.Txn(ctx).Then(
			clientv3.OpGet(k),
			clientv3.OpGet(s.keys.decisions, clientv3.WithLastKey()...),
		).Commit()
		if err != nil {
			return 0, 0, fmt.Errorf("reserve ids: %w", err)
		}
		base, rev := uint64(1), int64(0) // 0 is never an id: it means "unset"
		if kvs := resp.Responses[0].GetResponseRange().GetKvs(); len(kvs) == 1 {
			v, err := strconv.ParseUint(string(kvs[0].Value), 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("reserve ids: %s is %q, not a number: %w", k, kvs[0].Value, store.ErrCorrupt)
			}
			base, rev = max(base, v), kvs[0].ModRevision
		}
		// Belt and braces: never hand out an id that already has a record.
		if kvs := resp.Responses[1].GetResponseRange().GetKvs(); len(kvs) == 1 {
			if last, ok := s.keys.id(s.keys.decisions, kvs[0].Key); ok {
				base = max(base, last+1)
			}
		}
		limit := base + idBlock
		put, err := s.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", rev)).
			Then(clientv3.OpPut(k, strconv.FormatUint(limit, 10))).
			Commit()
		if err != nil {
			return 0, 0, fmt.Errorf("reserve ids: %w", err)
		}
		if put.Succeeded {
			return base, limit, nil
		}
		// Another Store reserved a block first: take the one after it.
	}
}

// releaseIDs gives back the unused rest of this Store's block, if it is
// still the last one reserved, so that ids go on from where they stopped.
func (s *Store) releaseIDs() error {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	if s.spareLimit > s.spareNext {
		// The last block reserved is the spare: give back all of it,
		// and the rest of the current block with it when they meet.
		if s.spareNext != s.limit {
			s.next = s.spareNext // the current block's rest stays a gap
		}
		s.limit = s.spareLimit
		s.spareNext, s.spareLimit = 0, 0
	}
	if s.next >= s.limit {
		return nil
	}
	if err := s.reachErr(); err != nil {
		return fmt.Errorf("release unused ids: %w", err) // they stay reserved: a gap, never a reuse
	}
	ctx, cancel := s.ctx()
	defer cancel()
	k := s.keys.idReserved
	_, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(k), "=", strconv.FormatUint(s.limit, 10))).
		Then(clientv3.OpPut(k, strconv.FormatUint(s.next, 10))).
		Commit()
	if err != nil {
		return fmt.Errorf("release unused ids: %w", err)
	}
	s.limit = s.next
	return nil
}

// AddPending records an ask: the decision that asked and the pending ask,
// in one transaction, as store.Store.AddPending. An ask that already has
// an outcome is refused with store.ErrResolved.
func (s *Store) AddPending(d *storev1.Decision, p *storev1.PendingAsk) error {
	id, err := store.ParseID(d.GetDecisionId())
	if err != nil {
		return fmt.Errorf("add pending: %w", err)
	}
	if p.GetAskId() != d.GetDecisionId() {
		return fmt.Errorf("add pending %d: ask id %q is not the decision id %q", id, p.GetAskId(), d.GetDecisionId())
	}
	if p.GetDecision() == nil {
		p = proto.CloneOf(p)
		p.Decision = d
	}
	dv, err := proto.Marshal(d)
	if err != nil {
		return fmt.Errorf("add pending %d: %w", id, err)
	}
	pv, err := proto.Marshal(p)
	if err != nil {
		return fmt.Errorf("add pending %d: %w", id, err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.reachErr(); err != nil {
		return fmt.Errorf("add pending %d: %w", id, err) // at once: Decide must not wait out a timeout
	}
	dk, pk := s.keys.decision(id), s.keys.pending(id)
	s.own.mark(id, false)
	for {
		got, err := s.cli.Get(ctx, dk)
		if err != nil {
			s.own.unmark(id, false)
			return fmt.Errorf("add pending %d: %w", id, err)
		}
		var rev int64
		if len(got.Kvs) == 1 {
			var prev storev1.Decision
			if err := unmarshal(got.Kvs[0].Value, &prev); err != nil {
				s.own.unmark(id, false)
				return fmt.Errorf("add pending %d: decode stored decision: %w", id, err)
			}
			if prev.GetOutcome() != nil {
				s.own.unmark(id, false)
				return fmt.Errorf("add pending %d: %w", id, store.ErrResolved)
			}
			rev = got.Kvs[0].ModRevision
		}
		resp, err := s.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(dk), "=", rev)).
			Then(clientv3.OpPut(dk, string(dv)), clientv3.OpPut(pk, string(pv))).
			Commit()
		if err != nil {
			// Perhaps committed: then the watch reports it as another's,
			// and the caller, told it failed, learns of it that way.
			s.own.unmark(id, false)
			return fmt.Errorf("add pending %d: %w", id, err)
		}
		if resp.Succeeded {
			return nil
		}
		// The decision changed under us (answered, expired): look again.
	}
}

// Pending returns the asks that wait for a person, oldest first.
func (s *Store) Pending() ([]*storev1.PendingAsk, error) {
	out, rev, err := s.pending()
	if err != nil {
		return nil, fmt.Errorf("list pending: %w", err)
	}
	s.pendingRev.Store(rev) // where WatchPending starts
	return out, nil
}

// pending lists the pending asks and the revision it read them at.
func (s *Store) pending() ([]*storev1.PendingAsk, int64, error) {
	var out []*storev1.PendingAsk
	rev, err := s.scanRev(s.keys.pendingAsks, false, 0, func(k, v []byte) (bool, error) {
		p := new(storev1.PendingAsk)
		if err := proto.Unmarshal(v, p); err != nil {
			return false, fmt.Errorf("decode pending ask %s: %w", k, err)
		}
		out = append(out, p)
		return true, nil
	})
	return out, rev, err
}

// taken is an ask read for Answer or Expire: its decision, and the
// revisions its transaction compares.
type taken struct {
	d          *storev1.Decision
	pendingRev int64
	decRev     int64 // 0: no decision record (the pending copy stands in)
	seq        uint64
	seqRev     int64
}

// take reads ask askID, the decision and the answer counter in one
// snapshot, or explains why it is not pending.
// takeWith is take, with the ask's decision given outcome and encoded:
// what an answer and an expiry both write in place of the pending ask.
func (s *Store) takeWith(ctx context.Context, askID uint64, outcome *storev1.AskOutcome) (*taken, *storev1.Decision, []byte, error) {
	t, err := s.take(ctx, askID)
	if err != nil {
		return nil, nil, nil, err
	}
	d := proto.CloneOf(t.d)
	d.Outcome = outcome
	dv, err := proto.Marshal(d)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("encode decision: %w", err)
	}
	return t, d, dv, nil
}

func (s *Store) take(ctx context.Context, askID uint64) (*taken, error) {
	resp, err := s.cli.Txn(ctx).Then(
		clientv3.OpGet(s.keys.pending(askID)),
		clientv3.OpGet(s.keys.decision(askID)),
		clientv3.OpGet(s.keys.answerSeq),
	).Commit()
	if err != nil {
		return nil, err
	}
	pkv := resp.Responses[0].GetResponseRange().GetKvs()
	dkv := resp.Responses[1].GetResponseRange().GetKvs()
	skv := resp.Responses[2].GetResponseRange().GetKvs()
	t := &taken{d: new(storev1.Decision)}
	if len(skv) == 1 {
		if t.seq, err = strconv.ParseUint(string(skv[0].Value), 10, 64); err != nil {
			return nil, fmt.Errorf("%s is %q, not a number: %w", s.keys.answerSeq, skv[0].Value, store.ErrCorrupt)
		}
		t.seqRev = skv[0].ModRevision
	}
	if len(dkv) == 1 {
		if err := unmarshal(dkv[0].Value, t.d); err != nil {
			return nil, fmt.Errorf("decode decision: %w", err)
		}
		t.decRev = dkv[0].ModRevision
	}
	if len(pkv) == 0 {
		switch {
		case len(dkv) == 0:
			return nil, store.ErrNotFound
		case t.d.GetOutcome() != nil:
			return nil, fmt.Errorf("%w: %s", store.ErrResolved, t.d.GetOutcome().GetState())
		default:
			return nil, fmt.Errorf("decision %d is not an ask (verdict %s): %w", askID, t.d.GetVerdict(), store.ErrNotFound)
		}
	}
	t.pendingRev = pkv[0].ModRevision
	if len(dkv) == 0 { // not expected: AddPending writes both; fall back to the pending copy
		var p storev1.PendingAsk
		if err := proto.Unmarshal(pkv[0].Value, &p); err != nil {
			return nil, fmt.Errorf("decode pending ask: %w", err)
		}
		if t.d = p.GetDecision(); t.d == nil {
			t.d = &storev1.Decision{DecisionId: store.FormatID(askID)}
		}
	}
	return t, nil
}

// unchanged are the comparisons that make a transaction on t fail if
// anyone touched the ask since take read it.
func (s *Store) unchanged(askID uint64, t *taken) []clientv3.Cmp {
	return []clientv3.Cmp{
		clientv3.Compare(clientv3.ModRevision(s.keys.pending(askID)), "=", t.pendingRev),
		clientv3.Compare(clientv3.ModRevision(s.keys.decision(askID)), "=", t.decRev),
	}
}

// Answer records a person's answer to a pending ask in one etcd
// transaction, committed by a majority before it returns: the pending ask
// is removed, rec is appended to the answer log (rec.Seq set to its
// position, an empty rec.AskId to askID) and the decision's outcome is
// set. The transaction compares the revisions it read, so of two answers
// (on any limend sharing the prefix) exactly one wins; the other fails
// with store.ErrResolved. An unknown id fails with store.ErrNotFound.
// Nothing is stored when it fails.
func (s *Store) Answer(askID uint64, rec *storev1.AnswerRecord) (*storev1.Decision, error) {
	return s.answer(askID, rec, nil)
}

// answer is Answer, putting ops in the same transaction (grants.go).
func (s *Store) answer(askID uint64, rec *storev1.AnswerRecord, ops []clientv3.Op) (*storev1.Decision, error) {
	if err := s.staleErr(); err != nil {
		return nil, fmt.Errorf("answer ask %d: %w; the answer is not stored, give it again once limend reaches etcd", askID, err)
	}
	outcome := store.AnswerOutcome(rec)
	oldSeq, oldAskID := rec.GetSeq(), rec.GetAskId()
	ctx, cancel := s.ctx()
	defer cancel()
	s.own.mark(askID, true)
	for {
		t, d, dv, err := s.takeWith(ctx, askID, outcome)
		if err != nil {
			s.own.unmark(askID, true)
			return nil, fmt.Errorf("answer ask %d: %w", askID, err)
		}
		seq := t.seq + 1
		rec.Seq = seq
		if rec.AskId == "" {
			rec.AskId = store.FormatID(askID)
		}
		rv, err := proto.Marshal(rec)
		rec.Seq, rec.AskId = oldSeq, oldAskID // set for good only once committed
		if err != nil {
			s.own.unmark(askID, true)
			return nil, fmt.Errorf("answer ask %d: encode answer: %w", askID, err)
		}
		cmps := append(s.unchanged(askID, t), clientv3.Compare(clientv3.ModRevision(s.keys.answerSeq), "=", t.seqRev))
		resp, err := s.cli.Txn(ctx).If(cmps...).Then(append([]clientv3.Op{
			clientv3.OpDelete(s.keys.pending(askID)),
			clientv3.OpPut(s.keys.decision(askID), string(dv)),
			clientv3.OpPut(s.keys.answer(seq), string(rv)),
			clientv3.OpPut(s.keys.answerSeq, strconv.FormatUint(seq, 10)),
		}, ops...)...).Commit()
		if err != nil {
			// Not known to be committed or not: the caller must not
			// take it as answered; a retry of the answer finds out, and
			// so does the watch.
			s.own.unmark(askID, true)
			return nil, fmt.Errorf("answer ask %d: %w", askID, err)
		}
		if resp.Succeeded {
			rec.Seq = seq
			if rec.AskId == "" {
				rec.AskId = store.FormatID(askID)
			}
			return d, nil
		}
		// The ask, its decision or the answer log moved: read again (an
		// answer elsewhere makes take fail with ErrResolved).
	}
}

// Expire ends a pending ask that nobody answered, in one transaction: the
// pending ask is removed and the decision's outcome set (state
// ASK_STATE_EXPIRED unless outcome has one). Nothing is added to the
// answer log. Any limend's timer may run it: the loser of a race with an
// answer or another expiry fails with store.ErrResolved.
func (s *Store) Expire(askID uint64, outcome *storev1.AskOutcome) (*storev1.Decision, error) {
	if err := s.reachErr(); err != nil {
		return nil, fmt.Errorf("expire ask %d: %w", askID, err)
	}
	outcome = store.ExpiryOutcome(outcome)
	ctx, cancel := s.ctx()
	defer cancel()
	s.own.mark(askID, true)
	for {
		t, d, dv, err := s.takeWith(ctx, askID, outcome)
		if err != nil {
			s.own.unmark(askID, true)
			return nil, fmt.Errorf("expire ask %d: %w", askID, err)
		}
		resp, err := s.cli.Txn(ctx).If(s.unchanged(askID, t)...).Then(
			clientv3.OpDelete(s.keys.pending(askID)),
			clientv3.OpPut(s.keys.decision(askID), string(dv)),
		).Commit()
		if err != nil {
			s.own.unmark(askID, true)
			return nil, fmt.Errorf("expire ask %d: %w", askID, err)
		}
		if resp.Succeeded {
			return d, nil
		}
	}
}

// Answers calls fn for every stored answer, in the order they were given,
// decoded in full. It reads in pages at one revision, so it sees the log as
// it was when it began. The same message is reused for every record: fn
// must not keep it. An error from fn stops the walk and is returned as is.
func (s *Store) Answers(fn func(rec *storev1.AnswerRecord) error) error {
	rec := new(storev1.AnswerRecord)
	var fnErr error
	err := s.scan(s.keys.answers, false, 0, func(k, v []byte) (bool, error) {
		if err := proto.Unmarshal(v, rec); err != nil {
			return false, fmt.Errorf("decode answer %s: %w", k, err)
		}
		if fnErr = fn(rec); fnErr != nil {
			return false, fnErr
		}
		return true, nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("read answers: %w", err)
	}
	return nil
}

// AnswerViews is Answers decoded as store.Store.AnswerViews decodes: only
// the fields of store.AnswerView, in place. The view is reused and points
// into the page read: fn must not keep it.
func (s *Store) AnswerViews(fn func(v *store.AnswerView) error) error {
	var v store.AnswerView
	var fnErr error
	err := s.scan(s.keys.answers, false, 0, func(k, b []byte) (bool, error) {
		seq, ok := s.keys.id(s.keys.answers, k)
		if !ok {
			return false, fmt.Errorf("answer key %s is not a sequence number", k)
		}
		if err := v.Decode(seq, b); err != nil {
			return false, fmt.Errorf("decode answer %s: %w", k, err)
		}
		if fnErr = fn(&v); fnErr != nil {
			return false, fnErr
		}
		return true, nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("read answers: %w", err)
	}
	return nil
}

// scanPage is how many keys scan reads per request: well inside etcd's
// request limits for records of a few KiB. Tests make it small.
var scanPage int64 = 256

// scan calls fn for the keys under prefix, in key order (newest first if
// desc; below before only, if before is not 0), in pages, all read at the
// revision of the first page. fn returns false to stop.
func (s *Store) scan(prefix string, desc bool, before uint64, fn func(k, v []byte) (bool, error)) error {
	_, err := s.scanRev(prefix, desc, before, fn)
	return err
}

// scanRev is scan, and returns the revision it read at.
func (s *Store) scanRev(prefix string, desc bool, before uint64, fn func(k, v []byte) (bool, error)) (int64, error) {
	if s.isClosed() {
		return 0, store.ErrClosed
	}
	ctx, cancel := s.ctx()
	defer cancel()
	from, end := prefix, clientv3.GetPrefixRangeEnd(prefix)
	if before != 0 {
		end = s.keys.key(prefix, before)
	}
	var rev int64
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(scanPage)}
		if desc {
			opts = append(opts, clientv3.WithSort(clientv3.SortByKey, clientv3.SortDescend))
		}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := s.cli.Get(ctx, from, opts...)
		if err != nil {
			return rev, err
		}
		rev = resp.Header.Revision
		for _, kv := range resp.Kvs {
			more, err := fn(kv.Key, kv.Value)
			if err != nil || !more {
				return rev, err
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return rev, nil
		}
		last := string(resp.Kvs[len(resp.Kvs)-1].Key)
		if desc {
			end = last // the range is [from, end): end is exclusive
		} else {
			from = last + "\x00"
		}
	}
}

// History returns stored decisions, newest first, as store.Store.History.
// Decisions handed to LogDecision appear once the batcher has committed
// them (see Flush).
func (s *Store) History(q store.HistoryQuery) ([]*storev1.Decision, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = store.DefaultHistoryLimit
	}
	limit = min(limit, store.MaxHistoryLimit)
	var out []*storev1.Decision
	err := s.scan(s.keys.decisions, true, q.BeforeID, func(k, v []byte) (bool, error) {
		d := new(storev1.Decision)
		if err := unmarshal(v, d); err != nil {
			return false, fmt.Errorf("decode decision %s: %w", k, err)
		}
		if q.User != "" && d.GetAction().GetUser() != q.User {
			return true, nil
		}
		if q.AsksOnly && d.GetVerdict() != storev1.Verdict_VERDICT_ASK {
			return true, nil
		}
		out = append(out, d)
		return len(out) < limit, nil
	})
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// Decision returns the decision with id, or store.ErrNotFound.
func (s *Store) Decision(id uint64) (*storev1.Decision, error) {
	d := new(storev1.Decision)
	if err := s.get(s.keys.decision(id), d); err != nil {
		return nil, fmt.Errorf("decision %d: %w", id, err)
	}
	return d, nil
}

// get decodes the value at key into m, or returns store.ErrNotFound.
func (s *Store) get(key string, m proto.Message) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	ctx, cancel := s.ctx()
	defer cancel()
	resp, err := s.cli.Get(ctx, key)
	if err != nil {
		return err
	}
	if len(resp.Kvs) == 0 {
		return store.ErrNotFound
	}
	return unmarshal(resp.Kvs[0].Value, m)
}

// Decisions calls fn for every committed decision, newest first, until fn
// returns an error, which stops the walk and is returned as is. fn gets a
// fresh message each time and may keep it. The walk reads in pages at the
// revision it began with.
func (s *Store) Decisions(fn func(d *storev1.Decision) error) error {
	var fnErr error
	err := s.scan(s.keys.decisions, true, 0, func(k, v []byte) (bool, error) {
		d := new(storev1.Decision)
		if err := unmarshal(v, d); err != nil {
			return false, fmt.Errorf("decode decision %s: %w", k, err)
		}
		if fnErr = fn(d); fnErr != nil {
			return false, fnErr
		}
		return true, nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("read decisions: %w", err)
	}
	return nil
}

// Policy returns the newest stored policy, or store.ErrNotFound.
func (s *Store) Policy() (*storev1.Policy, error) {
	var p *storev1.Policy
	err := s.scan(s.keys.policies, true, 0, func(k, v []byte) (bool, error) {
		p = new(storev1.Policy)
		return false, proto.Unmarshal(v, p)
	})
	if err == nil && p == nil {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return p, nil
}

// PolicyVersion returns version v of the policy, or store.ErrNotFound.
func (s *Store) PolicyVersion(v uint64) (*storev1.Policy, error) {
	p := new(storev1.Policy)
	if err := s.get(s.keys.policy(v), p); err != nil {
		return nil, fmt.Errorf("policy version %d: %w", v, err)
	}
	return p, nil
}

// PolicyVersions returns every stored policy version, oldest first.
func (s *Store) PolicyVersions() ([]*storev1.Policy, error) {
	var out []*storev1.Policy
	err := s.scan(s.keys.policies, false, 0, func(k, v []byte) (bool, error) {
		p := new(storev1.Policy)
		if err := proto.Unmarshal(v, p); err != nil {
			return false, fmt.Errorf("decode policy %s: %w", k, err)
		}
		out = append(out, p)
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("policy versions: %w", err)
	}
	return out, nil
}

// SetPolicy stores p as version expected+1 if the newest stored version is
// still expected (0: none yet), and returns the stored copy; otherwise it
// stores nothing and fails with store.ErrVersionConflict. Versions are
// written only here, one after the other, so "version expected exists and
// expected+1 does not" is "the newest is expected": the transaction
// compares exactly that, and of two limends setting the same version one
// wins. p is not changed.
func (s *Store) SetPolicy(expected uint64, p *storev1.Policy) (*storev1.Policy, error) {
	if p == nil {
		return nil, errors.New("set policy: no policy given")
	}
	if err := s.reachErr(); err != nil {
		return nil, fmt.Errorf("set policy: %w", err)
	}
	stored := proto.CloneOf(p)
	stored.Version = expected + 1
	v, err := proto.Marshal(stored)
	if err != nil {
		return nil, fmt.Errorf("set policy: %w", err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	next := s.keys.policy(stored.Version)
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(next), "=", 0)}
	if expected > 0 {
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(s.keys.policy(expected)), ">", 0))
	}
	resp, err := s.cli.Txn(ctx).If(cmps...).Then(clientv3.OpPut(next, string(v))).Commit()
	if err != nil {
		return nil, fmt.Errorf("set policy: %w", err)
	}
	if !resp.Succeeded {
		var current uint64
		if cur, err := s.Policy(); err == nil {
			current = cur.GetVersion()
		}
		return nil, fmt.Errorf("set policy: %w: policy is at version %d, not %d", store.ErrVersionConflict, current, expected)
	}
	return stored, nil
}
