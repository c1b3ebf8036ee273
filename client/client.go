// Package client is the Go client of limend, for agent runtimes written in
// Go and for limen's own tools. Decide returns limend's verdict at once;
// DecideAndWait also waits, up to a bound, for a person to answer an ask.
// Neither fails open: every call has a deadline, and when limend cannot be
// reached, is too slow or answers nonsense the verdict is ask (or block,
// if the caller asks for that), never allow.
package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/serverpeer"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// DefaultTimeout bounds a call made with a context that has no deadline.
const DefaultTimeout = 2 * time.Second

// Client is a connection to limend. It is safe for concurrent use.
type Client struct {
	conn *grpc.ClientConn
	// API is the raw generated client, for calls this package does not wrap.
	API    limenv1.DecisionServiceClient
	Health healthpb.HealthClient
	socket string
}

// Dial connects to limend's Unix socket; an empty socket means the default
// ($LIMEN_SOCKET, else $XDG_RUNTIME_DIR/limen/limend.sock). It does not wait
// for the daemon: the first call reports whether it is there. limend must
// run as the caller's own uid, or as $LIMEN_SERVER_UID when that is set
// (see DialServer); a LIMEN_SERVER_UID that is not a uid is an error.
func Dial(socket string) (*Client, error) {
	uid, set, err := serverpeer.Expected("")
	if err != nil {
		return nil, fmt.Errorf("dial limend: %w", err)
	}
	return dial(socket, uid, set)
}

// DialServer is Dial for a limend that runs as serverUID (or as the
// caller's own uid). Every connection is checked before anything is sent
// on it: a socket that another uid serves (someone else's process that
// bound limen's path first) is not used, and every call fails with an
// error that names the uid found, so Decide and DecideAndWait return ask.
func DialServer(socket string, serverUID uint32) (*Client, error) {
	return dial(socket, serverUID, true)
}

func dial(socket string, serverUID uint32, configured bool) (*Client, error) {
	if socket == "" {
		var err error
		if socket, err = paths.Socket(); err != nil {
			return nil, err
		}
	}
	// "unix://" needs an absolute path: a relative one would be read as
	// the URL's authority.
	if abs, err := filepath.Abs(socket); err == nil {
		socket = abs
	}
	conn, err := grpc.NewClient("unix://"+socket,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return dialChecked(ctx, socket, serverUID, configured)
		}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(16<<20)),
		// A Unix socket that refuses costs nothing to try again: retry
		// within a second, not gRPC's default of up to two minutes, so a
		// TUI or an await is back moments after limend restarts.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: time.Second,
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("dial limend at %s: %w", socket, err)
	}
	return &Client{conn: conn, API: limenv1.NewDecisionServiceClient(conn), Health: healthpb.NewHealthClient(conn), socket: socket}, nil
}

// dialChecked connects to socket and returns the connection only if the
// kernel says our own uid, or serverUID if configured, is listening on it.
func dialChecked(ctx context.Context, socket string, serverUID uint32, configured bool) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("limend's socket %s is not a Unix socket", socket)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		c.Close()
		return nil, err
	}
	var uid uint32
	var uidErr error
	if err := raw.Control(func(fd uintptr) { uid, uidErr = serverpeer.UID(int(fd)) }); err != nil {
		c.Close()
		return nil, err
	}
	if uidErr == nil {
		uidErr = serverpeer.CheckUID(socket, uid, serverUID, configured)
	}
	if uidErr != nil {
		c.Close()
		return nil, uidErr
	}
	return c, nil
}

// Socket returns the socket the client dials.
func (c *Client) Socket() string { return c.socket }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// withDeadline gives ctx a deadline if it has none: no call waits forever.
func withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// Verdict is the outcome of Decide as a runtime needs it.
type Verdict struct {
	// Verdict is allow, ask or block; never unspecified.
	Verdict limenv1.Verdict
	Reason  string
	// Decision is limend's full record; nil when limend was not reached.
	Decision *limenv1.Decision
	// Err is why the verdict was forced to ask, if it was.
	Err error
}

// Decide asks limend about an action. Every failure — daemon down, deadline
// passed, a malformed reply — comes back as ask with the reason; it never
// returns allow unless limend said allow.
func (c *Client) Decide(ctx context.Context, a *limenv1.Action) Verdict {
	ctx, cancel := withDeadline(ctx, DefaultTimeout)
	defer cancel()
	resp, err := c.API.Decide(ctx, &limenv1.DecideRequest{Action: a})
	if err != nil {
		return failClosed(fmt.Errorf("limend did not decide: %w", err))
	}
	d := resp.GetDecision()
	switch d.GetVerdict() {
	case limenv1.Verdict_VERDICT_ALLOW, limenv1.Verdict_VERDICT_ASK, limenv1.Verdict_VERDICT_BLOCK:
		return Verdict{Verdict: d.GetVerdict(), Reason: d.GetReason(), Decision: d}
	}
	return failClosed(fmt.Errorf("limend sent verdict %v, which is not allow, ask or block", d.GetVerdict()))
}

// WaitOptions say how DecideAndWait waits for a person.
type WaitOptions struct {
	// Wait bounds the wait for a person's answer to an ask; zero means
	// DefaultWait. The whole call (decision and wait) also ends with ctx.
	Wait time.Duration
	// Otherwise is the verdict when no answer came in time or anything
	// failed: VERDICT_ASK (the default) lets the runtime ask in its own
	// way; VERDICT_BLOCK refuses the call. Anything else, VERDICT_ALLOW
	// included, is taken as VERDICT_ASK: a failure never allows.
	Otherwise limenv1.Verdict
}

// DefaultWait is how long DecideAndWait waits for a person by default.
const DefaultWait = 30 * time.Second

// DecideAndWait decides and, if limend asks a person, waits for the answer
// (from limenctl answer or the TUI) up to opts.Wait. It returns allow or
// block once a person answered, and opts.Otherwise (ask or block, never
// allow) when nobody answered in time, limend is down or slow, or a reply
// makes no sense.
func (c *Client) DecideAndWait(ctx context.Context, a *limenv1.Action, opts WaitOptions) Verdict {
	wait := opts.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	otherwise := opts.Otherwise
	if otherwise != limenv1.Verdict_VERDICT_BLOCK {
		otherwise = limenv1.Verdict_VERDICT_ASK
	}
	ctx, cancel := withDeadline(ctx, DefaultTimeout+wait)
	defer cancel()
	// The decision itself gets no more than DefaultTimeout: a hung limend
	// must not eat the time meant for a person.
	dctx, dcancel := context.WithTimeout(ctx, DefaultTimeout)
	v := c.Decide(dctx, a)
	dcancel()
	if v.Err != nil {
		v.Verdict = otherwise
		return v
	}
	if v.Verdict != limenv1.Verdict_VERDICT_ASK {
		return v
	}
	askID := v.Decision.GetAskId()
	if askID == "" {
		// Not queued (limend could not hold it): nobody can answer in limen.
		v.Verdict = otherwise
		return v
	}
	// Ask limend to give up a little before our own deadline, so its
	// "still pending" reply arrives instead of a deadline error.
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)-min(time.Until(dl)/10, 200*time.Millisecond))
	}
	if wait <= 0 {
		return fallback(v, otherwise, errors.New("no time left to wait for a person"))
	}
	resp, err := c.AwaitAcross(ctx, askID, wait)
	if err != nil {
		return fallback(v, otherwise, fmt.Errorf("waiting for a person failed: %w", err))
	}
	switch st, verdict := resp.GetState(), resp.GetVerdict(); {
	case st == limenv1.AskState_ASK_STATE_PENDING:
		return fallback(v, otherwise, fmt.Errorf("nobody answered ask %s within %v", askID, wait.Round(time.Millisecond)))
	case (st == limenv1.AskState_ASK_STATE_ANSWERED || st == limenv1.AskState_ASK_STATE_EXPIRED) &&
		(verdict == limenv1.Verdict_VERDICT_ALLOW || verdict == limenv1.Verdict_VERDICT_BLOCK):
		if st == limenv1.AskState_ASK_STATE_EXPIRED && verdict == limenv1.Verdict_VERDICT_ALLOW {
			break // an expired ask never allows
		}
		return Verdict{Verdict: verdict, Reason: resp.GetReason(), Decision: v.Decision}
	}
	return fallback(v, otherwise, fmt.Errorf("limend sent await state %v with verdict %v, which makes no sense", resp.GetState(), resp.GetVerdict()))
}

// fallback is the verdict when a wait ended without a person's answer.
func fallback(v Verdict, otherwise limenv1.Verdict, err error) Verdict {
	what := "a person must decide"
	if otherwise == limenv1.Verdict_VERDICT_BLOCK {
		what = "so this call is refused"
	}
	return Verdict{Verdict: otherwise, Decision: v.Decision, Err: err,
		// The reason reaches the agent: it names where a person answers,
		// not a command the agent could run itself (limend refuses it).
		Reason: fmt.Sprintf("%v (limen fails closed: %s; ask %s still waits for the user in limen: limenctl tui, in their own terminal)", err, what, v.Decision.GetAskId())}
}

// Await waits up to wait for a person's answer to an ask. It always has a
// deadline: wait plus DefaultTimeout when ctx has none.
func (c *Client) Await(ctx context.Context, askID string, wait time.Duration) (*limenv1.AwaitResponse, error) {
	if wait <= 0 {
		wait = DefaultWait
	}
	ctx, cancel := withDeadline(ctx, DefaultTimeout+wait)
	defer cancel()
	return c.AwaitAcross(ctx, askID, wait)
}

// AwaitAcross waits up to wait (wait <= 0: until the ask is answered or
// expires) for a person's answer to askID, across
// restarts of limend: an ask is kept when limend stops, so when a wait
// ends because limend went away, it waits again, once limend serves
// again, for the time that is left. Each attempt is bounded by the wait
// (and a second for the reply), so a limend that does not come back ends
// it with an error the caller turns into ask.
func (c *Client) AwaitAcross(ctx context.Context, askID string, wait time.Duration) (*limenv1.AwaitResponse, error) {
	// With no bound (wait <= 0) the wait is limend's own, until the ask is
	// answered or expires, and it goes on across a restart of a limend it
	// reached, giving one that went away a minute to come back; a limend
	// that is not there at all is an error at once.
	forever := wait <= 0
	end := time.Now().Add(wait)
	reached := false
	var down time.Time // when limend went away, while it is away
	var lastErr error
	for {
		req := &limenv1.AwaitRequest{AskId: askID}
		actx, cancel := ctx, context.CancelFunc(func() {})
		ready := grpc.WaitForReady(true)
		if forever {
			switch {
			case !down.IsZero():
				if !c.readyBy(ctx, down.Add(time.Minute)) {
					return nil, lastErr
				}
				down = time.Time{}
			case !reached:
				reached = c.readyBy(ctx, time.Now().Add(time.Second))
			}
			ready = grpc.WaitForReady(false)
		} else {
			req.Timeout = durationpb.New(max(time.Until(end), time.Millisecond))
			actx, cancel = context.WithDeadline(ctx, end.Add(time.Second))
		}
		resp, err := c.API.Await(actx, req, ready)
		cancel()
		if err == nil || ProblemOf(err) != Unreachable || ctx.Err() != nil || !forever && time.Until(end) <= 0 || forever && !reached {
			return resp, err
		}
		if forever {
			down, lastErr = time.Now(), err
			continue // readyBy waits for it
		}
		// limend is stopping or gone: the next attempt waits for it to
		// serve (WaitForReady), after a pause so a limend that refuses
		// at once is not asked in a tight loop.
		pause := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			pause.Stop()
			return nil, err
		case <-pause.C:
		}
	}
}

// readyBy waits until the connection to limend is ready again, or until
// the deadline, and says whether it is.
func (c *Client) readyBy(ctx context.Context, deadline time.Time) bool {
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for {
		st := c.conn.GetState()
		if st == connectivity.Ready {
			return true
		}
		c.conn.Connect()
		if !c.conn.WaitForStateChange(wctx, st) {
			return false
		}
	}
}

func failClosed(err error) Verdict {
	return Verdict{Verdict: limenv1.Verdict_VERDICT_ASK, Reason: err.Error() + " (limen fails closed: a person must decide)", Err: err}
}
