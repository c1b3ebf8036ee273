// Package server implements the limen.v1 DecisionService: it converts API
// messages to domain values, asks the engine for a verdict, logs it, holds
// pending asks and wakes their waiters when a person answers.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/internal/peercred"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// Model is what the server needs of a predictor. *predictor.Estimator is the
// real one; tests put slow, failing or panicking ones in its place.
type Model interface {
	PredictEach(user string, ladders []action.Ladder, now time.Time) []predictor.Prediction
	Observe(user string, ladders []action.Ladder, approved bool, at time.Time)
}

// Options configure a Server.
type Options struct {
	Store store.Backend
	// Model is the predictor; nil means a new estimator rebuilt from the
	// store's answers.
	Model  Model
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Limits bound each caller; zero fields take DefaultLimits.
	Limits Limits
	// Self is where this limend keeps its sockets and database (see
	// NewSelf), so that an agent touching them is blocked; nil protects
	// only the default locations.
	Self *action.Self
	// TrustedGateways are OS user names (or uids) that may decide and
	// answer for other users; nil means DefaultTrustedGateways.
	TrustedGateways []string

	// readProc reads a process's parentage; nil means peercred.ReadProc.
	// Tests put fake process tables in its place.
	readProc func(pid int) (peercred.Proc, error)
}

// Server is the DecisionService.
type Server struct {
	limenv1.UnimplementedDecisionServiceServer

	store  apiStore // storeconv.go
	model  Model
	log    *slog.Logger
	now    func() time.Time
	policy atomic.Pointer[policyState]
	asks   *asks
	guard  *guard
	grants engine.Grants // session-scoped approvals, in memory only
	// approvedIn are the keys each session's person approved with any
	// scope: where one approval lets the prediction allow a repeat.
	approvedIn engine.Grants
	// written is what agents wrote, so that running it asks (written.go).
	written agentWrites
	plans   planCache // what Decide works out from an action and the policy alone
	seen    outcomes  // what the runtimes' hook events said about asks (outcomes.go)

	devices devicesHolder // the web app's pairing, once it is set (devices.go)

	// learn is held while an answer is stored and learned, and while
	// Forget rebuilds the predictor (forget.go), so that no answer is
	// counted twice or lost between the two. rebuiltThrough is the seq
	// of the last answer the latest rebuild read: an answer reported
	// later by another limend at or below it is already counted.
	learn          sync.Mutex
	rebuiltThrough uint64
	// replica is how far the answers of a shared store are applied here
	// (replica.go); nil on a store of this process alone.
	replica *replica
	name    string // this limend among a team's (replica.go)

	stopping chan struct{}
	stopOnce sync.Once
}

// policyState is the policy in force: the parsed policy (nil when the stored
// one could not be parsed: every decision is then ask) and its stored form.
type policyState struct {
	pol *policy.Policy
	msg *limenv1.Policy
	err error
}

// New builds a Server on an open store: it loads the policy (storing the
// default as version 1 on a new database), rebuilds the predictor from the
// stored answers, and re-arms the expiry of the asks still pending.
func New(opts Options) (*Server, error) {
	s := &Server{
		store:    apiStore{opts.Store},
		model:    opts.Model,
		log:      opts.Logger,
		now:      opts.Now,
		asks:     newAsks(),
		written:  newWritten(),
		plans:    planCache{self: opts.Self},
		stopping: make(chan struct{}),
		name:     replicaName(),
	}
	trusted := opts.TrustedGateways
	if trusted == nil {
		trusted = DefaultTrustedGateways()
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	read := opts.readProc
	if read == nil {
		read = peercred.ReadProc
	}
	s.guard = newGuard(opts.Limits, trusted, uint32(os.Getuid()), newRuntimes(read, s.now, s.log, 0, os.Getpid()))
	if err := s.loadPolicy(); err != nil {
		return nil, err
	}
	if s.model == nil {
		est := predictor.NewEstimator(predictor.DefaultConfig())
		if pol := s.policy.Load().pol; pol != nil {
			est.SetHalfLife(pol.HalfLife)
		}
		// A shared store's answers come from its answer watch, which
		// starts with every stored one (replica.go).
		if _, shared := s.store.Backend.(store.AnswerWatcher); !shared {
			if _, err := rebuild(est, s.store.Backend); err != nil {
				return nil, err
			}
		}
		s.model = est
	}
	pending, err := s.store.Pending()
	if err != nil {
		return nil, fmt.Errorf("load pending asks: %w", err)
	}
	for _, p := range pending {
		id, err := store.ParseID(p.GetAskId())
		if err != nil {
			return nil, fmt.Errorf("load pending asks: %w", err)
		}
		s.asks.add(id, p, s.untilExpiry(p), s.expire)
	}
	if err := s.followPending(); err != nil { // follow.go
		return nil, err
	}
	return s, nil
}

func ladders(parts []action.Part) []action.Ladder {
	out := make([]action.Ladder, len(parts))
	for i, p := range parts {
		out[i] = p.Keys
	}
	return out
}

func (s *Server) loadPolicy() error {
	msg, err := s.store.Policy()
	if errors.Is(err, store.ErrNotFound) {
		msg, err = s.store.SetPolicy(0, &limenv1.Policy{
			Document: policy.DefaultDocument, Author: "limend", Time: timestamppb.New(s.now()),
		})
	}
	if err != nil {
		return fmt.Errorf("load policy: %w", err)
	}
	st := &policyState{msg: msg}
	st.pol, st.err = policy.Parse(msg.GetDocument())
	if st.err != nil {
		// Keep serving: every decision becomes ask until a valid policy
		// is set. Refusing to start would leave the hook with no daemon,
		// which is also ask, but gives no way to repair the policy.
		s.log.Error("stored policy does not parse; every decision will be ask until a valid one is set",
			"version", msg.GetVersion(), "err", st.err)
	}
	s.policy.Store(st)
	return nil
}

// Stop wakes every Await and WatchPending so a graceful stop can finish.
func (s *Server) Stop() {
	s.stopOnce.Do(func() { close(s.stopping) })
}

// Decide implements DecisionService.
func (s *Server) Decide(ctx context.Context, req *limenv1.DecideRequest) (*limenv1.DecideResponse, error) {
	start := s.now()
	// Whatever comes of it, a Decide over the socket comes from a process
	// an agent runtime started (limen-hook, mcp-gate): remember what it
	// runs under, so that an answer from there is refused (runtimes.go).
	// The walk reads /proc while the decision is made, and the reply
	// waits for it: the caller is alive until then, so its parents can
	// still be read, and an answer from a tool that the reply lets run
	// finds the runtime recorded.
	if c := s.guard.whoIs(ctx); c.kind != kindAnonymous && c.kind != kindGateway && !s.guard.runtimes.seenReady(c.peer, c.kind == kindTrusted) {
		noted := make(chan struct{})
		go func() {
			defer close(noted)
			peer := c.peer.Resolved()
			s.guard.runtimes.note(peer.PID, peer.Start, peer.Proc, c.kind == kindTrusted)
		}()
		defer func() { <-noted }()
	}
	msg := req.GetAction()
	if err := validateAction(msg); err != nil {
		return nil, err
	}
	deep := checkDepth(msg.GetInputJson(), s.guard.limits.MaxInputDepth) != nil
	if deep {
		// Decided on what can be read, never allowed (limits.go).
		flat, err := flattenDeep(msg.GetInputJson(), s.guard.limits.MaxInputDepth)
		if err != nil {
			return nil, invalid(err.Error())
		}
		msg.InputJson = flat
	}
	principal, err := s.guard.principal(ctx, msg.GetUser())
	if err != nil {
		return nil, err
	}
	if err := s.guard.allow(principal); err != nil {
		return nil, err
	}
	// The request is this call's own (gRPC decodes a fresh one, and the
	// in-process callers build one per call), so it is not copied: the
	// principal is written into it, and the decision records it as is.
	msg.User = principal
	ps := s.policy.Load()
	pl, err := s.plans.get(ps, msg, start)
	if err != nil {
		return nil, invalid(err.Error())
	}
	user, session := msg.GetUser(), msg.GetSession()
	in := engine.Input{
		Parts:             pl.parts,
		Env:               pl.env,
		Plan:              pl.plan,
		Policy:            ps.pol,
		Granted:           s.grants.For(user, grantScope(msg.GetAgent(), session, msg.GetCwd())),
		ApprovedInSession: s.approvedIn.For(user, grantScope(msg.GetAgent(), session, msg.GetCwd())),
		NoSession:         session == "",
		Wrote:             s.written.wrote(user, pl.parts),
		Draw:              rand.Float64(),
	}
	if req.GetDryRun() {
		in.Draw = 1 // no exploration: explain what the policy and the evidence say
	}
	res := engine.Decide(ctx, in, func(ctx context.Context, ls []action.Ladder) ([]predictor.Prediction, error) {
		return s.model.PredictEach(user, ls, start), nil
	})
	if !req.GetDryRun() {
		// What it writes, a later action may run (after the decision: a
		// part does not run what it writes itself, Input.Wrote).
		s.written.record(user, pl.parts)
	}
	// Nothing Parts left out may weaken the verdict, and an oversized input
	// is recorded cut (oversize.go). The parts read stay on the record
	// whatever decided beyond them.
	read := res.Parts
	res = limitBeyondCaps(ps.pol, msg, pl.parts, pl.env, res, start)
	res = limitDeep(res, deep, s.guard.limits.MaxInputDepth)
	res.Parts = read
	msg.InputJson = recordedInput(msg.GetInputJson())

	if err := s.store.LogErr(); err != nil && res.Verdict == policy.Allow {
		res.Verdict, res.DecidedBy = policy.Ask, engine.ByFailsafe // an allow nobody can audit is not given
		res.Reason = "limen cannot write its decision log (disk full?), so it asks rather than allowing unrecorded: " + err.Error() + " (it would have allowed: " + res.Reason + ")"
	}
	if req.GetDryRun() {
		return &limenv1.DecideResponse{Decision: s.decision(msg, res, ps, start, 0)}, nil
	}
	if len(res.Parts) == 1 {
		// One part is the decision itself: its key, class, verdict and p
		// are the decision's, and every view shows it from them
		// (describe.Parts). Most actions have one, and this is the hook's
		// path; explain (a dry run) keeps the part's own row.
		res.Parts = nil
	}
	id, err := s.store.NextID()
	if err != nil {
		// Without an id nothing can be recorded or queued, but the caller
		// still gets a verdict, and it is ask.
		s.log.Error("allocate decision id", "err", err)
		d := s.decision(msg, engine.Result{Reason: "limen cannot record decisions right now (" + err.Error() + "), so a person decides (failing closed)"}, ps, start, 0)
		return &limenv1.DecideResponse{Decision: d}, nil
	}
	d := s.decision(msg, res, ps, start, id)
	if res.Verdict != policy.Ask {
		s.store.LogDecision(d)
		return &limenv1.DecideResponse{Decision: d}, nil
	}

	s.queue(d, id, ps, start)
	return &limenv1.DecideResponse{Decision: d}, nil
}

// queue holds an ask for a person: stored with its decision in one
// synchronous write, then watched and armed to expire. When the user's
// queue is full or the store refuses, the verdict stays ask, only without
// an ask id: the runtime then asks in its own way.
func (s *Server) queue(d *limenv1.Decision, id uint64, ps *policyState, start time.Time) {
	user := d.GetAction().GetUser()
	if n := s.asks.countUser(user); n >= s.guard.limits.MaxPendingPerUser {
		d.Reason += fmt.Sprintf(" (the queue of asks for %s is full at %d, so this one is not queued: answer some in limenctl tui, and let the runtime ask in its own way)", user, n)
		s.store.LogDecision(d)
		return
	}
	d.AskId = d.DecisionId
	timeout := 10 * time.Minute
	if ps.pol != nil {
		timeout = ps.pol.AskTimeout
	}
	pending := &limenv1.PendingAsk{AskId: d.AskId, Decision: d, ExpiresAt: timestamppb.New(start.Add(timeout))}
	if err := s.store.AddPending(d, pending); err != nil {
		s.log.Error("store pending ask", "id", d.AskId, "err", err)
		d.AskId = ""
		d.Reason += " (limen could not queue this ask: " + err.Error() + ")"
		return
	}
	s.asks.add(id, pending, s.untilExpiry(pending), s.expire)
}

// decision builds the record of a decision; id 0 means a dry run (no id).
func (s *Server) decision(msg *limenv1.Action, res engine.Result, ps *policyState, start time.Time, id uint64) *limenv1.Decision {
	d := &limenv1.Decision{
		Time:          timestamppb.New(start),
		Action:        msg,
		Verdict:       convert.APIVerdict(res.Verdict),
		P:             res.Prediction.P,
		Thresholds:    &limenv1.Thresholds{AllowAbove: res.Thresholds.AllowAbove, BlockBelow: res.Thresholds.BlockBelow},
		RiskClass:     res.Class,
		Key:           res.Key,
		Evidence:      toEvidence(res.Prediction),
		Reason:        res.Reason,
		DecidedBy:     convert.APIDecider(res.DecidedBy),
		PolicyVersion: ps.msg.GetVersion(),
		Latency:       durationpb.New(s.now().Sub(start)),
		Parts:         apiParts(res),
	}
	if id != 0 {
		d.DecisionId = store.FormatID(id)
	}
	return d
}

// untilExpiry is how long an ask has left before it expires.
func (s *Server) untilExpiry(p *limenv1.PendingAsk) time.Duration {
	return p.GetExpiresAt().AsTime().Sub(s.now())
}

func (s *Server) expire(id uint64) {
	if s.holdExpiry(id) {
		return // the runtime's dialog shows it; its events close it (outcomes.go)
	}
	outcome := &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_EXPIRED, Time: timestamppb.New(s.now())}
	if _, err := s.store.Expire(id, outcome); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.settleLost(id) // replica.go
		}
		if !errors.Is(err, store.ErrResolved) && !errors.Is(err, store.ErrNotFound) {
			s.log.Error("expire ask", "id", id, "err", err)
		}
		return
	}
	s.asks.resolve(id, &limenv1.AwaitResponse{
		Verdict: limenv1.Verdict_VERDICT_BLOCK, State: limenv1.AskState_ASK_STATE_EXPIRED, Outcome: outcome,
		Reason: "nobody answered in time; the ask expired, which counts as a deny for this call",
	})
}

// Await implements DecisionService.
func (s *Server) Await(ctx context.Context, req *limenv1.AwaitRequest) (*limenv1.AwaitResponse, error) {
	c, r, err := s.guard.authorize(ctx, opAwait)
	if err != nil {
		return nil, err
	}
	id, err := parseAskID(req.GetAskId())
	if err != nil {
		return nil, err
	}
	if t := req.GetTimeout(); t != nil {
		if err := t.CheckValid(); err != nil || t.AsDuration() < 0 {
			return nil, invalid("timeout must be a non-negative duration, such as 30s")
		}
		if d := t.AsDuration(); d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
	}
	mine := func(user string) error {
		if !c.mayTouch(r, user) {
			return notYours(opAwait, c, "ask "+req.GetAskId(), user)
		}
		return nil
	}
	k := s.asks.get(id)
	if k == nil {
		return s.settled(ctx, id, mine)
	}
	if err := mine(userOf(k.msg)); err != nil {
		return nil, err
	}
	leave, err := s.guard.enterAwait()
	if err != nil {
		return nil, err
	}
	defer leave()
	select {
	case <-k.done:
		return k.final, nil
	case <-s.stopping:
		return nil, toStatus(errStopping)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && ctx.Err() != nil && req.GetTimeout().AsDuration() > 0 {
			return &limenv1.AwaitResponse{Verdict: limenv1.Verdict_VERDICT_ASK, State: limenv1.AskState_ASK_STATE_PENDING,
				Reason: "still waiting for a person; nobody has answered yet"}, nil
		}
		return nil, toStatus(ctx.Err())
	}
}

// settled answers Await for an ask that is no longer pending in memory;
// mine refuses the caller an ask of another user before anything of it is
// told.
func (s *Server) settled(ctx context.Context, id uint64, mine func(user string) error) (*limenv1.AwaitResponse, error) {
	// The decision may still sit in the batched log; flush so that an id
	// that did not ask is told apart from one that never existed.
	if err := s.store.Flush(ctx); err != nil {
		return nil, toStatus(err)
	}
	d, err := s.store.Decision(id)
	if err != nil {
		return nil, toStatus(askErr(id, err))
	}
	if err := mine(d.GetAction().GetUser()); err != nil {
		return nil, err
	}
	o := d.GetOutcome()
	switch {
	case d.GetAskId() == "":
		return nil, toStatus(fmt.Errorf("decision %d was %s, not an ask: %w", id, convert.VerdictName(d.GetVerdict()), store.ErrNotFound))
	case o == nil:
		return nil, toStatus(askErr(id, store.ErrNotFound))
	}
	return finalOf(o), nil
}

func finalOf(o *limenv1.AskOutcome) *limenv1.AwaitResponse {
	r := &limenv1.AwaitResponse{State: o.GetState(), Outcome: o, Verdict: limenv1.Verdict_VERDICT_BLOCK}
	switch {
	case o.GetState() == limenv1.AskState_ASK_STATE_EXPIRED:
		r.Reason = "nobody answered in time; the ask expired, which counts as a deny for this call"
	case o.GetChoice() == limenv1.Choice_CHOICE_APPROVE:
		r.Verdict = limenv1.Verdict_VERDICT_ALLOW
		r.Reason = "approved by " + o.GetAnsweredBy()
	default:
		r.Reason = "denied by " + o.GetAnsweredBy()
	}
	if o.GetNote() != "" {
		r.Reason += ": " + o.GetNote()
	}
	return r
}

// Answer implements DecisionService.
func (s *Server) Answer(ctx context.Context, req *limenv1.AnswerRequest) (*limenv1.AnswerResponse, error) {
	c, r, err := s.guard.authorize(ctx, opAnswer)
	if err != nil {
		return nil, err
	}
	mine := func(user string) error {
		if !c.mayTouch(r, user) {
			return notYours(opAnswer, c, "ask "+req.GetAskId(), user)
		}
		return nil
	}
	id, err := parseAskID(req.GetAskId())
	if err != nil {
		return nil, err
	}
	switch req.GetChoice() {
	case limenv1.Choice_CHOICE_APPROVE, limenv1.Choice_CHOICE_DENY:
	default:
		return nil, invalid("choice must be CHOICE_APPROVE or CHOICE_DENY")
	}
	scope := req.GetScope()
	switch scope {
	case limenv1.Scope_SCOPE_UNSPECIFIED:
		scope = limenv1.Scope_SCOPE_ONCE
	case limenv1.Scope_SCOPE_ONCE, limenv1.Scope_SCOPE_SESSION:
	default:
		return nil, invalid("scope must be SCOPE_ONCE or SCOPE_SESSION")
	}
	if len(req.GetNote()) > 4096 {
		return nil, invalid("note is longer than 4096 bytes; keep it short")
	}
	k := s.asks.get(id)
	if k == nil {
		k = s.arriving(ctx, id) // queued on another replica just now (replica.go)
	}
	if k == nil {
		// Not pending: say whether it never existed or was already settled.
		_, err := s.settled(ctx, id, mine)
		if err == nil {
			return nil, toStatus(askErr(id, store.ErrResolved))
		}
		return nil, err
	}
	dec := k.msg.GetDecision()
	delegated := false
	if err := mine(dec.GetAction().GetUser()); err != nil {
		// Another user's ask: only a delegate the policy names for that
		// user and the ask's risk class may answer it (policy/delegate.go).
		if !s.policy.Load().pol.MayAnswer(c.name, dec.GetAction().GetUser(), dec.GetRiskClass(), s.now()) {
			return nil, err
		}
		delegated = true
	}
	by := c.name
	now := s.now()
	act, err := convert.Action(dec.GetAction(), now)
	if err != nil {
		return nil, toStatus(fmt.Errorf("decode the asked action: %w", err))
	}
	parts := action.Parts(act)
	if req.GetChoice() == limenv1.Choice_CHOICE_APPROVE {
		// The policy may have changed since the ask was queued: a block
		// rule in force now outranks a person's approval, as it would
		// have outranked it at decision time.
		if err := engine.CheckApproval(s.policy.Load().pol, parts, convert.Env(act)); err != nil {
			return nil, precondition(fmt.Sprintf("ask %s cannot be approved: %v; deny it, or change the rule with limenctl policy edit", req.GetAskId(), err))
		}
	}
	ls := ladders(parts)
	channel, device, digest := c.provenance()
	rec := &storev1.AnswerRecord{
		AskId: req.GetAskId(), Action: storeAction(dec.GetAction()), Choice: storev1.Choice(req.GetChoice()), Scope: storev1.Scope(scope),
		Note: req.GetNote(), AnsweredBy: by, Time: timestamppb.New(now), KeyScheme: action.KeyScheme,
		Channel: channel, DeviceId: device, ActionDigest: digest,
		Delegated: delegated,
	}
	if s.replica != nil {
		rec.Replica = s.name // which of the team's limends took it
	}
	for _, l := range ls {
		rec.Ladders = append(rec.Ladders, &storev1.Ladder{Keys: l})
	}
	approved := req.GetChoice() == limenv1.Choice_CHOICE_APPROVE
	var answered *limenv1.Decision
	// Held while the answer is stored and learned, so that a Forget's
	// rebuild (forget.go) neither counts it twice nor loses it.
	s.learn.Lock()
	if gs, ok := s.store.Backend.(store.GrantStore); ok && approved && scope == limenv1.Scope_SCOPE_SESSION {
		// The grants are stored with the answer, under a lease (replica.go).
		var d *storev1.Decision
		if d, err = gs.AnswerGranting(id, rec, sessionGrants(act, parts)); err == nil {
			answered = apiDecision(d)
		}
	} else {
		answered, err = s.store.Answer(id, rec)
	}
	if err != nil {
		s.learn.Unlock()
		if !errors.Is(err, store.ErrNotFound) {
			s.settleLost(id) // replica.go
		}
		return nil, toStatus(askErr(id, err))
	}
	outcome := answered.GetOutcome() // what rec says: the store's one source of it
	if s.replica == nil {
		// On disk: now teach the predictor and wake the waiters. Only the
		// person's own answer teaches (attributed); rebuild skips the
		// same ones.
		if attributed(by) && !delegated {
			s.model.Observe(act.User, ls, approved, now)
		}
		if approved && scope == limenv1.Scope_SCOPE_SESSION {
			s.grants.Approve(act.User, grantScope(act.Agent, act.Session, act.Cwd), parts)
		}
	}
	s.learn.Unlock()
	if s.replica != nil {
		// Committed in etcd: the answer watch teaches the predictor, in
		// the order every replica applies it (replica.go). Wait for it,
		// so that the next Decide here knows this answer.
		if err := s.replica.wait(ctx, s.stopping, rec.GetSeq()); err != nil {
			return nil, toStatus(fmt.Errorf("the answer to ask %d is stored (answer %d), but this limend has not applied it yet (%w); it will, and the other limends too", id, rec.GetSeq(), err))
		}
	}
	if approved {
		s.written.approved(act.User, parts) // the person allowed running them as they are
		s.approvedIn.ApproveAny(act.User, grantScope(act.Agent, act.Session, act.Cwd), parts)
	}
	final := finalOf(outcome)
	s.asks.resolve(id, final)
	return &limenv1.AnswerResponse{Verdict: final.GetVerdict(), Outcome: outcome}, nil
}

// ListPending implements DecisionService.
func (s *Server) ListPending(ctx context.Context, _ *limenv1.ListPendingRequest) (*limenv1.ListPendingResponse, error) {
	c, r, err := s.guard.authorize(ctx, opListPending)
	if err != nil {
		return nil, err
	}
	asks := s.asks.list()
	if r != all {
		asks = slices.DeleteFunc(asks, func(p *limenv1.PendingAsk) bool { return !c.mayTouch(r, userOf(p)) })
	}
	return &limenv1.ListPendingResponse{Asks: asks}, nil
}

// WatchPending implements DecisionService.
func (s *Server) WatchPending(_ *limenv1.WatchPendingRequest, stream limenv1.DecisionService_WatchPendingServer) error {
	c, r, err := s.guard.authorize(stream.Context(), opWatchPending)
	if err != nil {
		return err
	}
	events, cancel := s.asks.watch()
	defer cancel()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return toStatus(errSlowWatcher)
			}
			if ev.GetAsk() != nil && !c.mayTouch(r, userOf(ev.GetAsk())) {
				continue
			}
			if err := stream.Send(ev); err != nil {
				return err
			}
		case <-s.stopping:
			return toStatus(errStopping)
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
	}
}

// GetPolicy implements DecisionService.
func (s *Server) GetPolicy(ctx context.Context, _ *limenv1.GetPolicyRequest) (*limenv1.GetPolicyResponse, error) {
	if _, _, err := s.guard.authorize(ctx, opGetPolicy); err != nil {
		return nil, err
	}
	ps := s.policy.Load()
	return &limenv1.GetPolicyResponse{Policy: withClasses(ps.msg, ps.pol)}, nil
}

// SetPolicy implements DecisionService.
func (s *Server) SetPolicy(ctx context.Context, req *limenv1.SetPolicyRequest) (*limenv1.SetPolicyResponse, error) {
	c, _, err := s.guard.authorize(ctx, opSetPolicy)
	if err != nil {
		return nil, err
	}
	pol, err := policy.Parse(req.GetDocument())
	if err != nil {
		return nil, invalid("document: " + err.Error())
	}
	author := c.name
	msg, err := s.store.SetPolicy(req.GetExpectedVersion(), &limenv1.Policy{
		Document: req.GetDocument(), Author: author, Time: timestamppb.New(s.now()),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	if est, ok := s.model.(*predictor.Estimator); ok {
		est.SetHalfLife(pol.HalfLife)
	}
	s.switchPolicy(&policyState{pol: pol, msg: msg}) // follow.go: never back a version
	s.log.Info("policy changed", "version", msg.GetVersion(), "author", author)
	return &limenv1.SetPolicyResponse{Policy: withClasses(msg, pol)}, nil
}

// History implements DecisionService.
func (s *Server) History(ctx context.Context, req *limenv1.HistoryRequest) (*limenv1.HistoryResponse, error) {
	c, r, err := s.guard.authorize(ctx, opHistory)
	if err != nil {
		return nil, err
	}
	if req.GetLimit() < 0 || req.GetLimit() > 1000 {
		return nil, invalid("limit must be between 0 and 1000 (0 means 50)")
	}
	q := store.HistoryQuery{Limit: int(req.GetLimit()), User: req.GetUser(), AsksOnly: req.GetAsksOnly()}
	if r != all {
		if q.User != "" && q.User != c.name {
			return nil, notYours(opHistory, c, "the history asked for", q.User)
		}
		q.User = c.name
	}
	if req.GetBeforeId() != "" {
		id, err := store.ParseID(req.GetBeforeId())
		if err != nil {
			return nil, invalid("before_id: " + err.Error())
		}
		q.BeforeID = id
	}
	// Decisions are logged in batches; flush so the caller sees its own.
	if err := s.store.Flush(ctx); err != nil {
		return nil, toStatus(err)
	}
	ds, err := s.store.History(q)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := s.markForgotten(ds); err != nil { // forget.go
		return nil, toStatus(err)
	}
	return &limenv1.HistoryResponse{Decisions: ds}, nil
}

func withClasses(msg *limenv1.Policy, pol *policy.Policy) *limenv1.Policy {
	out := proto.CloneOf(msg)
	if pol == nil {
		return out
	}
	for _, c := range pol.Classes {
		th := c.Costs.Thresholds()
		out.Classes = append(out.Classes, &limenv1.ClassThresholds{
			Name:       c.Name,
			Costs:      &limenv1.Costs{Allow: c.Costs.Allow, Block: c.Costs.Block, Ask: c.Costs.Ask},
			Thresholds: &limenv1.Thresholds{AllowAbove: th.AllowAbove, BlockBelow: th.BlockBelow},
		})
	}
	return out
}

// grantScope is where a person's approval for the session holds: that
// agent's session, in the working directory it was given in. The same
// command in another project is another action, even in the same session
// (the tenth red-team pass reused a grant after cd), and a session id is
// only a name a runtime chose (the eleventh pass reused one under another
// runtime), so a grant, and a once-approval's reach, stay where they were
// given.
func grantScope(agent, session, cwd string) string {
	if session == "" {
		return ""
	}
	return agent + "\x00" + session + "\x00" + cwd
}
