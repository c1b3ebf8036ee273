package store

import (
	"context"
	"time"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// Backend is limen's durable state as limend uses it: the answers people
// gave, the asks that wait for a person, the policy versions, the decision
// log and the ids. *Store (one bbolt file, the default) is one; the etcd
// store (store/etcdstore), shared by a team's limend servers, is another.
// Every implementation passes the same conformance suite
// (store/storetest), which holds the promises of this package's doc: the
// first answer wins and a replay fails with ErrResolved, an answer removes
// its pending ask and records its outcome in one transaction, ids are
// never reused, policy versions are compared and set in one transaction,
// and everything acknowledged survives a Close and a new open.
//
// The methods are *Store's; read their docs there. The errors wrap the
// same sentinels (ErrNotFound, ErrResolved, ErrVersionConflict, ErrClosed,
// ErrLogUnwritable), so callers match them with errors.Is whichever store
// they run on.
//
// Session grants are not here: limend keeps them in memory only
// (internal/engine), on every store.
type Backend interface {
	// NextID returns a new decision id: unique, increasing, never reused.
	NextID() (uint64, error)

	// AddPending records an ask and the decision that asked.
	AddPending(d *storev1.Decision, p *storev1.PendingAsk) error
	// Pending returns the asks that wait for a person, oldest first.
	Pending() ([]*storev1.PendingAsk, error)
	// Answer records an answer, removes the pending ask and sets the
	// outcome, durably, before it returns.
	Answer(askID uint64, rec *storev1.AnswerRecord) (*storev1.Decision, error)
	// Expire ends a pending ask nobody answered.
	Expire(askID uint64, outcome *storev1.AskOutcome) (*storev1.Decision, error)
	// Answers calls fn for every stored answer, in the order given.
	Answers(fn func(rec *storev1.AnswerRecord) error) error
	// AnswerViews is Answers decoded in place, for rebuilding the
	// predictor at start.
	AnswerViews(fn func(v *AnswerView) error) error
	// Forget marks answers forgotten (a person took them back); the
	// answers stay. An answer marked keeps its first mark; a seq with no
	// answer fails with ErrNotFound and marks nothing.
	Forget(marks []*storev1.ForgetMark) error
	// Forgotten calls fn for every forget mark, in answer order.
	Forgotten(fn func(m *storev1.ForgetMark) error) error

	// LogDecision hands a decision that did not ask to the decision log.
	LogDecision(d *storev1.Decision)
	// Flush waits until everything logged before it is committed.
	Flush(ctx context.Context) error
	// LogErr is not nil while the decision log cannot be written: every
	// allow is then ask.
	LogErr() error
	// History returns stored decisions, newest first.
	History(q HistoryQuery) ([]*storev1.Decision, error)
	// Decision returns one decision, or ErrNotFound.
	Decision(id uint64) (*storev1.Decision, error)
	// Decisions calls fn for every committed decision, newest first.
	Decisions(fn func(d *storev1.Decision) error) error

	// Policy returns the newest policy version, or ErrNotFound.
	Policy() (*storev1.Policy, error)
	// PolicyVersion returns one policy version, or ErrNotFound.
	PolicyVersion(v uint64) (*storev1.Policy, error)
	// PolicyVersions returns every policy version, oldest first.
	PolicyVersions() ([]*storev1.Policy, error)
	// SetPolicy stores the next policy version if the newest is still
	// expected, or fails with ErrVersionConflict.
	SetPolicy(expected uint64, p *storev1.Policy) (*storev1.Policy, error)

	// DeviceStore keeps the web app's paired devices (devices.go).
	DeviceStore

	// Close flushes the decision log and releases the store.
	Close() error
}

var _ Backend = (*Store)(nil)

// PendingChange is one change of the pending asks made by another process
// sharing the state (another limend on the same etcd prefix), as
// PendingWatcher reports it: Added, Resolved (with Answer when it was an
// answer), or Resync with Pending.
type PendingChange struct {
	// Added is an ask that became pending.
	Added *storev1.PendingAsk
	// Resolved is the decision of an ask that was answered or expired,
	// with its outcome.
	Resolved *storev1.Decision
	// Answer, with Resolved, is the answer record when the ask was
	// answered (nil when it expired), so the predictor here can learn
	// from an answer given on another limend.
	Answer *storev1.AnswerRecord
	// Resync, with Pending, says the watch fell behind (etcd compacted
	// the history it needed) and started again: Pending is every ask
	// pending now, and changes missed in between are not reported.
	Resync  bool
	Pending []*storev1.PendingAsk
}

// PendingWatcher is a Backend whose pending asks other processes change
// too (the etcd store; the bbolt file is one process's). WatchPending
// reports, in commit order, the changes made after the snapshot that the
// last call of Pending read (or after WatchPending was called, if Pending
// never was), by anyone but this Backend itself: its caller knows its own.
// fn runs on one goroutine of the watcher's until ctx ends, and must not
// block for long. WatchPending returns once the watch is set up.
type PendingWatcher interface {
	WatchPending(ctx context.Context, fn func(PendingChange)) error
}

// PolicyWatcher is a Backend whose policy other processes set too (the
// etcd store). WatchPolicy calls fn with every policy version stored from
// about when it is called on, the newest stored version first, so that
// nothing set meanwhile is missed; a version may come more than once, and
// the caller keeps the highest. fn runs on one goroutine of the watcher's
// until ctx ends. WatchPolicy returns once the watch is set up.
type PolicyWatcher interface {
	WatchPolicy(ctx context.Context, fn func(*storev1.Policy)) error
}

// ForgetWatcher is a Backend whose answers other processes mark forgotten
// too (the etcd store). WatchForgotten calls fn each time forget marks
// were added, by anyone (this Backend included), from about when it is
// called on, and once more after a watch that fell behind started again;
// fn runs on one goroutine of the watcher's until ctx ends, and must not
// block for long. WatchForgotten returns once the watch is set up.
type ForgetWatcher interface {
	WatchForgotten(ctx context.Context, fn func()) error
}

// AnswerWatcher is a Backend whose answers other processes add too (the
// etcd store). WatchAnswers calls fn with every answer whose seq is above
// after, in seq order, each exactly once, with the etcd revision it was
// committed at (seq order is commit order: doc.go of etcdstore). It goes
// on from the last answer it delivered whenever its watch ends, listing
// again when the history it needs was compacted, so nothing is skipped
// and nothing is delivered twice. fn runs on one goroutine of the
// watcher's until ctx ends; the answers up to the present are delivered
// before WatchAnswers returns, the rest as they are committed.
type AnswerWatcher interface {
	WatchAnswers(ctx context.Context, after uint64, fn func(rec *storev1.AnswerRecord, rev int64)) error
}

// Grant is one approval for a session: the exact key of an action's part
// that a person approved for the rest of the user's agent session.
type Grant struct {
	User    string `json:"user"`
	Session string `json:"session"`
	Key     string `json:"key"`
}

// GrantStore is a Backend that keeps the session grants itself, for the
// limends that share it (the etcd store, with leases); on other stores
// limend keeps them in memory only (internal/engine).
type GrantStore interface {
	// AnswerGranting is Answer that also stores grants, in the same
	// transaction: they exist exactly when the answer does, and expire
	// by themselves after the store's grant lifetime.
	AnswerGranting(askID uint64, rec *storev1.AnswerRecord, grants []Grant) (*storev1.Decision, error)
	// WatchGrants calls fn with every grant live now (live true) before
	// it returns, then with each one stored (live true) or expired (live
	// false) after, by anyone. fn runs on one goroutine of the watcher's
	// until ctx ends.
	WatchGrants(ctx context.Context, fn func(g Grant, live bool)) error
	// GrantTTL is how long a grant lives.
	GrantTTL() time.Duration
}

// Member is one member of the cluster a shared store runs on.
type Member struct {
	Name       string
	ClientURLs []string
	Leader     bool
	// Revision and DBSize are the member's, from its status; Err says why
	// it gave none.
	Revision, DBSize int64
	Err              string
}

// Clustered is a Backend on a cluster several limends share (the etcd
// store): it lists the cluster's members, and keeps each limend's report
// of itself for the others, for limenctl status.
type Clustered interface {
	// Members lists the cluster's members with their status.
	Members(ctx context.Context) ([]Member, error)
	// Publish stores this limend's report under name; it vanishes by
	// itself a little while after the limend stops publishing.
	Publish(ctx context.Context, name string, report []byte) error
	// Reports returns every live report, by name.
	Reports(ctx context.Context) (map[string][]byte, error)
}
