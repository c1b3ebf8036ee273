package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// A limend on a shared store (store.AnswerWatcher: the etcd store) is one
// replica of a team's limen. Its predictor learns every answer, its own
// and the other replicas', from one watch of the store's answers, in their
// seq order (the etcd revision order), and never directly from an Answer
// call: decayed counts are floating point, so only the same answers in the
// same order leave every replica with the same counts, bit for bit
// (predictor.Estimator.CountsHash shows it). An Answer given here returns
// once its answer is committed and the watch has applied it here; an
// Await here on an ask answered elsewhere returns once the answer is
// applied here too: either way, the next Decide knows it.

// replica is how far the answer watch has applied the store's answers.
type replica struct {
	mu      sync.Mutex
	seq     uint64 // the last answer applied
	rev     int64  // the revision it was committed at
	changed chan struct{}
	// live is set once the answers stored at start are applied.
	live atomic.Bool
}

func newReplica() *replica { return &replica{changed: make(chan struct{})} }

// applied notes that the answer of seq, committed at rev, is applied.
func (r *replica) applied(seq uint64, rev int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq, r.rev = seq, rev
	close(r.changed)
	r.changed = make(chan struct{})
}

// state is the last answer applied and its revision.
func (r *replica) state() (seq uint64, rev int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq, r.rev
}

// wait returns once the answer of seq is applied, or with an error when
// ctx ends or limend stops first.
func (r *replica) wait(ctx context.Context, stopping <-chan struct{}, seq uint64) error {
	for {
		r.mu.Lock()
		done, changed := r.seq >= seq, r.changed
		r.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-stopping:
			return errStopping
		}
	}
}

// followAnswers starts the answer watch on a shared store, from the first
// answer: it lists every stored answer into the predictor before it
// returns (the rebuild of a limend on bbolt), then applies each new one.
func (s *Server) followAnswers(ctx context.Context) error {
	w, ok := s.store.Backend.(store.AnswerWatcher)
	if !ok {
		return nil
	}
	s.replica = newReplica()
	if err := w.WatchAnswers(ctx, 0, s.applyAnswer); err != nil {
		return fmt.Errorf("follow the answers of the team: %w", err)
	}
	s.replica.live.Store(true)
	return nil
}

// followGrants keeps the session grants of a store that keeps them (a
// team's etcd, with leases) in memory, for Decide: those live at start,
// then each one given on any limend, until its lease ends.
func (s *Server) followGrants(ctx context.Context) error {
	gs, ok := s.store.Backend.(store.GrantStore)
	if !ok {
		return nil
	}
	err := gs.WatchGrants(ctx, func(g store.Grant, live bool) {
		if live {
			s.grants.Add(g.User, g.Session, g.Key)
		} else {
			s.grants.Revoke(g.User, g.Session, g.Key)
		}
	})
	if err != nil {
		return fmt.Errorf("follow the session grants of the team: %w", err)
	}
	return nil
}

// grantsFromAnswer says whether an approval for the session applied now
// grants its session here. The grants of a store that keeps them (etcd)
// are listed at start and expire with their lease (followGrants); an
// answer applied after the start grants at once too, so that an Answer
// or Await that returns once the answer is applied leaves the next
// Decide here knowing the grant, whichever watch comes first. Not an
// answer listed at start (its grants, if still live, are listed), nor
// one older than the grants' lifetime (they expired: a replica catching
// up must not bring them back).
func (s *Server) grantsFromAnswer(rec *storev1.AnswerRecord) bool {
	gs, kept := s.store.Backend.(store.GrantStore)
	if !kept {
		return true
	}
	return s.replica.live.Load() && s.now().Sub(rec.GetTime().AsTime()) < gs.GrantTTL()
}

// sessionGrants are the grants an approval for the session of act gives:
// the exact key of each part limen can read (Grants.Approve's rule).
func sessionGrants(act action.Action, parts []action.Part) []store.Grant {
	if act.Session == "" {
		return nil
	}
	var out []store.Grant
	for _, p := range parts {
		if !p.Opaque {
			out = append(out, store.Grant{User: act.User, Session: grantScope(act.Agent, act.Session, act.Cwd), Key: p.Keys.Exact()})
		}
	}
	return out
}

// applyAnswer teaches the predictor one answer from the answer watch, and
// grants its session here when it approved for the session.
func (s *Server) applyAnswer(rec *storev1.AnswerRecord, rev int64) {
	approved := rec.GetChoice() == storev1.Choice_CHOICE_APPROVE
	s.learn.Lock()
	if attributed(rec.GetAnsweredBy()) && !rec.GetDelegated() && rec.GetSeq() > s.rebuiltThrough { // a rebuild since counted it (forget.go)
		s.model.Observe(rec.GetAction().GetUser(), laddersOf(rec), approved, rec.GetTime().AsTime())
	}
	s.learn.Unlock()
	if approved {
		// Where one approval lets the prediction allow a repeat, from the
		// stored ladders' exact keys: no need to derive the parts again
		// for each of a start's many answers.
		a := rec.GetAction()
		for _, l := range laddersOf(rec) {
			if len(l) > 0 {
				s.approvedIn.Add(a.GetUser(), grantScope(a.GetAgent(), a.GetSession(), a.GetCwd()), l[len(l)-1])
			}
		}
	}
	if approved && rec.GetScope() == storev1.Scope_SCOPE_SESSION && s.grantsFromAnswer(rec) {
		if act, err := convert.Action(apiAction(rec.GetAction()), rec.GetTime().AsTime()); err == nil {
			s.grants.Approve(act.User, grantScope(act.Agent, act.Session, act.Cwd), action.Parts(act))
		}
	}
	s.replica.applied(rec.GetSeq(), rev)
}

// replicaName names this limend among a team's: its host and process,
// and a random tag, since one process may run several (tests do).
func replicaName() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return fmt.Sprintf("%s:%d:%04x", host, os.Getpid(), rand.N(1<<16))
}

// GetCluster implements DecisionService: the store this limend runs on,
// and on a team's etcd how far it has applied the team's answers, with the
// hash of its counts, so that replicas can be compared.
func (s *Server) GetCluster(ctx context.Context, _ *limenv1.GetClusterRequest) (*limenv1.GetClusterResponse, error) {
	if _, _, err := s.guard.authorize(ctx, opGetCluster); err != nil {
		return nil, err
	}
	resp := &limenv1.GetClusterResponse{Store: "bbolt", Self: s.selfReport()}
	if s.replica != nil {
		resp.Store = "etcd"
	}
	cl, ok := s.store.Backend.(store.Clustered)
	if !ok {
		return resp, nil
	}
	// What the cluster says is shown as far as it answers: status is
	// for when something is wrong.
	if ms, err := cl.Members(ctx); err == nil {
		for _, m := range ms {
			resp.Members = append(resp.Members, &limenv1.EtcdMember{Name: m.Name, ClientUrls: m.ClientURLs, Leader: m.Leader, Revision: m.Revision, DbSize: m.DBSize, Error: m.Err})
		}
	}
	if reps, err := cl.Reports(ctx); err == nil {
		names := make([]string, 0, len(reps))
		for n := range reps {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			r := new(limenv1.Replica)
			if proto.Unmarshal(reps[n], r) == nil {
				resp.Replicas = append(resp.Replicas, r)
			}
		}
	}
	return resp, nil
}

// reportEvery is how often a replica publishes its report for the others.
const reportEvery = 2 * time.Second

// publishReports publishes this replica's report in the shared store now
// and every reportEvery until ctx ends (limenctl status shows them).
func (s *Server) publishReports(ctx context.Context) {
	cl, ok := s.store.Backend.(store.Clustered)
	if !ok {
		return
	}
	go func() {
		tick := time.NewTicker(reportEvery)
		defer tick.Stop()
		for {
			if b, err := proto.Marshal(s.selfReport()); err == nil {
				cl.Publish(ctx, s.name, b) // best effort: the report is for people
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// selfReport is this limend's Replica message.
func (s *Server) selfReport() *limenv1.Replica {
	r := &limenv1.Replica{Name: s.name, Reported: timestamppb.New(s.now()), Fresh: s.store.LogErr() == nil}
	if est, ok := s.model.(*predictor.Estimator); ok {
		r.CountsHash = fmt.Sprintf("%016x", est.CountsHash())
	}
	if s.replica != nil {
		r.AppliedSeq, r.AppliedRevision = s.replica.state()
	}
	if f, ok := s.store.Backend.(freshness); ok {
		age, fresh := f.Freshness()
		r.FreshAge, r.Fresh = durationpb.New(age), fresh && r.Fresh
	}
	return r
}

// freshness is a shared store that says how fresh its view is (the etcd
// store: fresh.go there).
type freshness interface {
	Freshness() (age time.Duration, fresh bool)
}

// settleLost settles in memory an ask that another replica may have
// settled first, after this one's Answer or expiry failed (it lost the
// race, with store.ErrResolved, or could not tell). The store skips a
// replica's own changes on its watch by counting them, so the winner's
// change may have been skipped as this one's: without this, the loser
// would list the ask as pending for good. The pending watch hands it the
// asks it saw end but whose decision it could not read (applyPending):
// that event does not come again. It reads the decision until etcd
// answers (in the background when the first read fails, as it may in the
// fault that made the answer or the read fail).
func (s *Server) settleLost(id uint64) {
	if s.replica == nil {
		return
	}
	settle := func() bool {
		d, err := s.store.Decision(id)
		if err != nil {
			return false
		}
		if d.GetOutcome() != nil {
			s.asks.resolve(id, finalOf(d.GetOutcome()))
		}
		return true
	}
	if settle() {
		return
	}
	go func() {
		wait := 100 * time.Millisecond
		for { // however long etcd is out: the ask's end is not reported again
			select {
			case <-s.stopping:
				return
			case <-time.After(wait):
			}
			if settle() {
				return
			}
			wait = min(2*wait, 2*time.Second)
		}
	}()
}

// arrivalWait bounds how long an Answer waits for an ask another replica
// queued to reach this one.
const arrivalWait = 2 * time.Second

// arriving returns, on a shared store, an ask another replica queued that
// this one's watch has not delivered yet (an answer sent here right after
// the ask was decided elsewhere), once the watch adds it; nil when the
// ask is not pending in the store, or has not arrived within arrivalWait.
func (s *Server) arriving(ctx context.Context, id uint64) *ask {
	if s.replica == nil {
		return nil
	}
	events, cancel := s.asks.watch()
	defer cancel()
	if k := s.asks.get(id); k != nil {
		return k
	}
	d, err := s.store.Decision(id)
	if err != nil || d.GetAskId() == "" || d.GetOutcome() != nil {
		return nil
	}
	timer := time.NewTimer(arrivalWait)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok || (ev.GetKind() == limenv1.WatchPendingResponse_KIND_ADDED && ev.GetAsk().GetAskId() == d.GetAskId()) {
				return s.asks.get(id)
			}
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		case <-s.stopping:
			return nil
		}
	}
}
