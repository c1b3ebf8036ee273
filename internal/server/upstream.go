package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/internal/peercred"
	"github.com/limenhq/limen/internal/version"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// The laptop side of a team (limend --upstream, docs/scale-out.md): a
// local limend that keeps no store and decides nothing itself. It serves
// the person's agents on the usual local sockets, checks every caller as
// any limend does (the kernel's SO_PEERCRED names the caller; an Answer
// from an agent runtime's process tree is refused), and forwards what is
// left to a team replica over mutual TLS, where the client certificate
// names the team's user it acts for. Whatever goes wrong on the way — the
// replica stopped, the network gone, a replica slower than the deadline, a
// reply that makes no sense — a Decide is ask, never allow, and an Answer
// is refused with a message that says whether it may have been stored.

// Default deadlines of an Upstream: Decide must leave limen-hook (5s by
// default) time to print its own ask; an Answer may wait for etcd to elect
// a new leader (about a second; 12s with a paused one,
// TestPausedLeaderUnderAnswers).
const (
	DefaultUpstreamTimeout       = 2 * time.Second
	DefaultUpstreamAnswerTimeout = 15 * time.Second
)

// UpstreamOptions configure an Upstream.
type UpstreamOptions struct {
	// Conn reaches the team replica (over mutual TLS: see
	// internal/daemon). The Upstream does not close it.
	Conn grpc.ClientConnInterface
	// Addr is the replica's address, named in messages.
	Addr string
	// Timeout bounds each forwarded call but Await, WatchPending and
	// Answer (DefaultUpstreamTimeout when zero).
	Timeout time.Duration
	// AnswerTimeout bounds a forwarded Answer
	// (DefaultUpstreamAnswerTimeout when zero).
	AnswerTimeout time.Duration
	Logger        *slog.Logger
	// Limits bound each local caller; zero fields take DefaultLimits.
	Limits Limits

	// readProc reads a process's parentage; nil means peercred.ReadProc.
	readProc func(pid int) (peercred.Proc, error)
}

// Upstream is the DecisionService of a limend in upstream mode: each call
// is checked locally and then made on the team replica.
type Upstream struct {
	limenv1.UnimplementedDecisionServiceServer

	api           limenv1.DecisionServiceClient
	addr          string
	timeout       time.Duration
	answerTimeout time.Duration
	log           *slog.Logger
	guard         *guard

	// stopped ends the calls that wait (Await, WatchPending) when limend
	// stops, as Server.Stop does.
	stopped context.Context
	stop    context.CancelFunc
}

// NewUpstream returns the service of a limend in upstream mode.
func NewUpstream(opts UpstreamOptions) *Upstream {
	u := &Upstream{
		api: limenv1.NewDecisionServiceClient(opts.Conn), addr: opts.Addr,
		timeout: opts.Timeout, answerTimeout: opts.AnswerTimeout, log: opts.Logger,
	}
	if u.timeout <= 0 {
		u.timeout = DefaultUpstreamTimeout
	}
	if u.answerTimeout <= 0 {
		u.answerTimeout = DefaultUpstreamAnswerTimeout
	}
	if u.log == nil {
		u.log = slog.New(slog.DiscardHandler)
	}
	read := opts.readProc
	if read == nil {
		read = peercred.ReadProc
	}
	// Nobody is trusted to act for another user: the certificate names
	// one person, and only limend's owner speaks for that person.
	u.guard = newGuard(opts.Limits, nil, uint32(os.Getuid()), newRuntimes(read, time.Now, u.log, 0, os.Getpid()))
	u.stopped, u.stop = context.WithCancel(context.Background())
	return u
}

// Stop ends the waiting calls; limend stops serving next.
func (u *Upstream) Stop() { u.stop() }

// local checks a caller on this machine for o: only limend's owner may
// call, since the team knows this limend by a certificate that names one
// person; the calls only a person may make are refused to an agent
// runtime's processes, as on any limend.
func (u *Upstream) local(ctx context.Context, o op) (caller, error) {
	c, _, err := u.guard.authorize(ctx, o)
	if err != nil {
		return c, err
	}
	if c.kind != kindOwner {
		return c, status.Errorf(codes.PermissionDenied,
			"%s: this limend forwards to the team's limen at %s for its owner alone (uid %d), whose certificate names the team's user; %s %q is not its owner",
			o, u.addr, u.guard.owner, c.kind, c.name)
	}
	return c, nil
}

// within bounds a forwarded call by d and by limend's stop.
func (u *Upstream) within(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if d > 0 {
		ctx, cancel = context.WithTimeout(ctx, d)
	}
	stop := context.AfterFunc(u.stopped, cancel)
	return ctx, func() { stop(); cancel() }
}

// unreachable says what became of a forwarded call that failed: how the
// replica failed, in words for the person who reads it.
func (u *Upstream) unreachable(err error, d time.Duration) string {
	switch status.Code(err) {
	case codes.DeadlineExceeded:
		return fmt.Sprintf("your team's limen at %s did not answer within %v", u.addr, d)
	case codes.Unauthenticated:
		return fmt.Sprintf("your team's limen at %s refused this limend's certificate (%s): check --upstream-cert, --upstream-key and --upstream-ca", u.addr, status.Convert(err).Message())
	case codes.Canceled:
		if u.stopped.Err() != nil {
			return "this limend is stopping"
		}
	}
	return fmt.Sprintf("limen cannot reach your team's limen at %s (%s)", u.addr, status.Convert(err).Message())
}

// upstreamErr is the error a caller gets for a forwarded call that failed:
// the replica's own refusals (not found, not yours, already answered) keep
// their code; a replica that could not be reached is Unavailable.
func (u *Upstream) upstreamErr(ctx context.Context, err error, d time.Duration) error {
	if ctx.Err() != nil && u.stopped.Err() == nil {
		return toStatus(ctx.Err()) // the caller gave up or ran out of its own time
	}
	switch status.Code(err) {
	case codes.InvalidArgument, codes.NotFound, codes.AlreadyExists, codes.PermissionDenied,
		codes.FailedPrecondition, codes.Aborted, codes.ResourceExhausted, codes.OutOfRange:
		return status.Errorf(status.Code(err), "your team's limen at %s: %s", u.addr, status.Convert(err).Message())
	}
	return status.Error(codes.Unavailable, u.unreachable(err, d))
}

// Decide implements DecisionService: the team's decision, or ask.
func (u *Upstream) Decide(ctx context.Context, req *limenv1.DecideRequest) (*limenv1.DecideResponse, error) {
	c, err := u.local(ctx, opDecide)
	if err != nil {
		return nil, err
	}
	// As on any limend (Server.Decide): a Decide comes from a process an
	// agent runtime started, so an answer from there is refused later.
	noted := make(chan struct{})
	go func() {
		defer close(noted)
		peer := c.peer.Resolved()
		u.guard.runtimes.note(peer.PID, peer.Start, peer.Proc, false)
	}()
	defer func() { <-noted }()
	msg := req.GetAction()
	if err := validateAction(msg); err != nil {
		return nil, err
	}
	if msg.GetUser() != "" && msg.GetUser() != c.name {
		return nil, status.Errorf(codes.PermissionDenied,
			"action.user is %q but the caller is OS user %q: a limend in upstream mode decides for the team's user its certificate names; leave user empty", msg.GetUser(), c.name)
	}
	if err := u.guard.allow(c.name); err != nil {
		return nil, err
	}
	// The replica takes the user from this limend's certificate.
	fwd := &limenv1.DecideRequest{Action: cloneAction(msg), DryRun: req.GetDryRun()}
	fwd.Action.User = ""
	fctx, cancel := u.within(ctx, u.timeout)
	defer cancel()
	resp, err := u.api.Decide(fctx, fwd)
	if err == nil {
		switch resp.GetDecision().GetVerdict() {
		case limenv1.Verdict_VERDICT_ALLOW, limenv1.Verdict_VERDICT_ASK, limenv1.Verdict_VERDICT_BLOCK:
			return resp, nil
		}
		err = status.Errorf(codes.Internal, "it replied with no verdict (%v)", resp.GetDecision().GetVerdict())
	}
	if ctx.Err() != nil && u.stopped.Err() == nil {
		return nil, toStatus(ctx.Err())
	}
	why := u.unreachable(err, u.timeout)
	u.log.Warn("upstream Decide failed; the verdict is ask", "upstream", u.addr, "err", err)
	return &limenv1.DecideResponse{Decision: &limenv1.Decision{
		Action: msg, Verdict: limenv1.Verdict_VERDICT_ASK, DecidedBy: limenv1.Decider_DECIDER_FAILSAFE,
		Reason: why + ", so a person decides (failing closed)",
	}}, nil
}

func cloneAction(a *limenv1.Action) *limenv1.Action { return proto.Clone(a).(*limenv1.Action) }

// Await implements DecisionService on the replica: an answer given on any
// replica returns it.
func (u *Upstream) Await(ctx context.Context, req *limenv1.AwaitRequest) (*limenv1.AwaitResponse, error) {
	if _, err := u.local(ctx, opAwait); err != nil {
		return nil, err
	}
	leave, err := u.guard.enterAwait()
	if err != nil {
		return nil, err
	}
	defer leave()
	fctx, cancel := u.within(ctx, 0) // the request's own timeout bounds it on the replica
	defer cancel()
	resp, err := u.api.Await(fctx, req)
	if err != nil {
		return nil, u.upstreamErr(ctx, err, 0)
	}
	return resp, nil
}

// Answer implements DecisionService: the person's answer, stored on the
// team's store by the replica in one transaction, or refused. Nothing is
// kept here, so nothing is half-applied: the answer is stored there or not.
func (u *Upstream) Answer(ctx context.Context, req *limenv1.AnswerRequest) (*limenv1.AnswerResponse, error) {
	if _, err := u.local(ctx, opAnswer); err != nil {
		return nil, err
	}
	fctx, cancel := u.within(ctx, u.answerTimeout)
	defer cancel()
	resp, err := u.api.Answer(fctx, req)
	if err == nil {
		return resp, nil
	}
	if ctx.Err() != nil && u.stopped.Err() == nil {
		return nil, toStatus(ctx.Err())
	}
	err = u.upstreamErr(ctx, err, u.answerTimeout)
	if status.Code(err) != codes.Unavailable {
		return nil, err
	}
	msg := status.Convert(err).Message()
	if errors.Is(fctx.Err(), context.DeadlineExceeded) {
		// The replica may have stored it and the reply been lost.
		return nil, status.Errorf(codes.Unavailable,
			"the answer may not be stored: %s; limenctl pending shows whether ask %s is still open (answering again is safe: the first answer wins)", msg, req.GetAskId())
	}
	return nil, status.Errorf(codes.Unavailable, "the answer is not stored: %s; answer again once it is back", msg)
}

// ListPending implements DecisionService: the team's pending asks of the
// person this limend acts for. A list that cannot be read is an error,
// never an empty list.
func (u *Upstream) ListPending(ctx context.Context, req *limenv1.ListPendingRequest) (*limenv1.ListPendingResponse, error) {
	if _, err := u.local(ctx, opListPending); err != nil {
		return nil, err
	}
	fctx, cancel := u.within(ctx, u.timeout)
	defer cancel()
	resp, err := u.api.ListPending(fctx, req)
	if err != nil {
		return nil, u.upstreamErr(ctx, err, u.timeout)
	}
	return resp, nil
}

// WatchPending implements DecisionService: the replica's stream, relayed
// until either side ends it.
func (u *Upstream) WatchPending(req *limenv1.WatchPendingRequest, stream limenv1.DecisionService_WatchPendingServer) error {
	ctx := stream.Context()
	if _, err := u.local(ctx, opWatchPending); err != nil {
		return err
	}
	fctx, cancel := u.within(ctx, 0)
	defer cancel()
	up, err := u.api.WatchPending(fctx, req)
	if err != nil {
		return u.upstreamErr(ctx, err, 0)
	}
	for {
		ev, err := up.Recv()
		if err != nil {
			return u.upstreamErr(ctx, err, 0)
		}
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
}

// forward checks the local caller for o and makes a read-only call on the
// replica within the deadline.
func forward[Req, Resp any](u *Upstream, ctx context.Context, o op, req Req, call func(context.Context, Req, ...grpc.CallOption) (Resp, error)) (Resp, error) {
	var zero Resp
	if _, err := u.local(ctx, o); err != nil {
		return zero, err
	}
	fctx, cancel := u.within(ctx, u.timeout)
	defer cancel()
	resp, err := call(fctx, req)
	if err != nil {
		return zero, u.upstreamErr(ctx, err, u.timeout)
	}
	return resp, nil
}

// GetPolicy implements DecisionService: the team's policy.
func (u *Upstream) GetPolicy(ctx context.Context, req *limenv1.GetPolicyRequest) (*limenv1.GetPolicyResponse, error) {
	return forward(u, ctx, opGetPolicy, req, u.api.GetPolicy)
}

// ListPolicyVersions implements DecisionService: the team's policy versions.
func (u *Upstream) ListPolicyVersions(ctx context.Context, req *limenv1.ListPolicyVersionsRequest) (*limenv1.ListPolicyVersionsResponse, error) {
	return forward(u, ctx, opListVersions, req, u.api.ListPolicyVersions)
}

// History implements DecisionService: the person's history on the team.
func (u *Upstream) History(ctx context.Context, req *limenv1.HistoryRequest) (*limenv1.HistoryResponse, error) {
	return forward(u, ctx, opHistory, req, u.api.History)
}

// Stats implements DecisionService: the person's statistics on the team.
func (u *Upstream) Stats(ctx context.Context, req *limenv1.StatsRequest) (*limenv1.StatsResponse, error) {
	return forward(u, ctx, opStats, req, u.api.Stats)
}

// ExplainDecision implements DecisionService on the replica.
func (u *Upstream) ExplainDecision(ctx context.Context, req *limenv1.ExplainDecisionRequest) (*limenv1.ExplainDecisionResponse, error) {
	return forward(u, ctx, opExplain, req, u.api.ExplainDecision)
}

// GetCluster implements DecisionService: the team's cluster, as the
// replica sees it.
func (u *Upstream) GetCluster(ctx context.Context, req *limenv1.GetClusterRequest) (*limenv1.GetClusterResponse, error) {
	return forward(u, ctx, opGetCluster, req, u.api.GetCluster)
}

// GetVersion implements DecisionService: this limend's build (the
// replica's is its own to report).
func (u *Upstream) GetVersion(ctx context.Context, _ *limenv1.GetVersionRequest) (*limenv1.GetVersionResponse, error) {
	if _, err := u.local(ctx, opGetVersion); err != nil {
		return nil, err
	}
	return &limenv1.GetVersionResponse{Limend: BuildInfo(version.Get())}, nil
}

// notUpstream refuses a call that changes the team (its policy, what it
// learned) or pairs a device: those are made on a team replica by whoever
// the team lets, not forwarded from a laptop.
func (u *Upstream) notUpstream(o op) error {
	return status.Errorf(codes.FailedPrecondition,
		"%s is not forwarded by a limend in upstream mode: it belongs to the team's limen (%s); run it there with the team's credentials", o, u.addr)
}

// SetPolicy implements DecisionService: refused (notUpstream).
func (u *Upstream) SetPolicy(context.Context, *limenv1.SetPolicyRequest) (*limenv1.SetPolicyResponse, error) {
	return nil, u.notUpstream(opSetPolicy)
}

// SimulatePolicy implements DecisionService: refused (notUpstream).
func (u *Upstream) SimulatePolicy(context.Context, *limenv1.SimulatePolicyRequest) (*limenv1.SimulatePolicyResponse, error) {
	return nil, u.notUpstream(opSimulate)
}

// Forget implements DecisionService: refused (notUpstream).
func (u *Upstream) Forget(context.Context, *limenv1.ForgetRequest) (*limenv1.ForgetResponse, error) {
	return nil, u.notUpstream(opForget)
}

// CreatePairing implements DecisionService: refused (notUpstream).
func (u *Upstream) CreatePairing(context.Context, *limenv1.CreatePairingRequest) (*limenv1.CreatePairingResponse, error) {
	return nil, u.notUpstream(opCreatePairing)
}

// ListDevices implements DecisionService: refused (notUpstream).
func (u *Upstream) ListDevices(context.Context, *limenv1.ListDevicesRequest) (*limenv1.ListDevicesResponse, error) {
	return nil, u.notUpstream(opListDevices)
}

// RevokeDevice implements DecisionService: refused (notUpstream).
func (u *Upstream) RevokeDevice(context.Context, *limenv1.RevokeDeviceRequest) (*limenv1.RevokeDeviceResponse, error) {
	return nil, u.notUpstream(opRevokeDevice)
}
