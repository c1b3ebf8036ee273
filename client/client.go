// Package client is the Go client of limend, for agent runtimes written in
// Go and for limen's own tools. Its Decide never fails open: when limend
// cannot be reached, is too slow or answers nonsense, the verdict is ask.
package client

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/internal/paths"
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
// for the daemon: the first call reports whether it is there.
func Dial(socket string) (*Client, error) {
	if socket == "" {
		var err error
		if socket, err = paths.Socket(); err != nil {
			return nil, err
		}
	}
	conn, err := grpc.NewClient("unix://"+socket,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(16<<20)),
	)
	if err != nil {
		return nil, fmt.Errorf("dial limend at %s: %w", socket, err)
	}
	return &Client{conn: conn, API: limenv1.NewDecisionServiceClient(conn), Health: healthpb.NewHealthClient(conn), socket: socket}, nil
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

func failClosed(err error) Verdict {
	return Verdict{Verdict: limenv1.Verdict_VERDICT_ASK, Reason: err.Error() + " (limen fails closed: a person must decide)", Err: err}
}
