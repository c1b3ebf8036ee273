package client

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// The calls a person's tools make (the TUI first): answering asks,
// watching the queue, reading history, stats and the policy, and saving a
// policy. Each unary call has a deadline (DefaultTimeout when ctx has
// none), and each error keeps limend's gRPC status, so that Describe can
// word it; the codes a caller acts on are also the sentinels below, for
// errors.Is, so no caller needs to read gRPC codes itself.

var (
	// ErrAnswerRefused is what Answer returns when limend refused the
	// answer in the state the ask is in now: someone else answered it
	// first or it expired (it is no longer pending), or an approval that
	// a block rule added since the ask forbids.
	ErrAnswerRefused = errors.New("limend refused the answer")
	// ErrPolicyChanged is what SetPolicy returns when the policy in force
	// is no longer the version the caller expected: read it again and
	// redo the change on the newer version.
	ErrPolicyChanged = errors.New("the policy changed since it was read")
)

// coded is a gRPC error marked with the sentinel its code stands for. It
// keeps the status itself (GRPCStatus), so the error reads and converts
// exactly as limend sent it.
type coded struct {
	sentinel error
	err      error
}

func (e coded) Error() string              { return e.err.Error() }
func (e coded) Unwrap() []error            { return []error{e.sentinel, e.err} }
func (e coded) GRPCStatus() *status.Status { return status.Convert(e.err) }

// mark returns err marked with sentinel when its gRPC code is code.
func mark(err error, code codes.Code, sentinel error) error {
	if err != nil && status.Code(err) == code {
		return coded{sentinel: sentinel, err: err}
	}
	return err
}

// Answer sends a person's answer to an ask. limend acknowledges only once
// the answer is on disk, so a nil error means it is stored; any error
// means the answer may not have arrived and the ask must be treated as
// still pending. errors.Is(err, ErrAnswerRefused) when limend refused it.
func (c *Client) Answer(ctx context.Context, req *limenv1.AnswerRequest) (*limenv1.AnswerResponse, error) {
	ctx, cancel := withDeadline(ctx, DefaultTimeout)
	defer cancel()
	resp, err := c.API.Answer(ctx, req)
	return resp, mark(err, codes.FailedPrecondition, ErrAnswerRefused)
}

// Forget takes back a person's answers (limenctl forget, the TUI's undo):
// limend keeps them marked forgotten and unlearns them. Like Answer, it is
// refused (ErrAnswerRefused) to a process an agent runtime started.
func (c *Client) Forget(ctx context.Context, req *limenv1.ForgetRequest) (*limenv1.ForgetResponse, error) {
	ctx, cancel := withDeadline(ctx, DefaultTimeout)
	defer cancel()
	return c.API.Forget(ctx, req)
}

// PendingStream is limend's live feed of its pending asks: first a
// snapshot (one added event per ask, then synced), then every change.
type PendingStream interface {
	// Recv waits for the next event. Any error ends the stream; open a
	// new one (it starts with a fresh snapshot).
	Recv() (*limenv1.WatchPendingResponse, error)
}

// WatchPending opens the feed of pending asks. The stream has no deadline
// of its own: it lasts until ctx ends or limend goes away.
func (c *Client) WatchPending(ctx context.Context) (PendingStream, error) {
	return c.API.WatchPending(ctx, &limenv1.WatchPendingRequest{})
}

// History returns the most recent recorded decisions, newest first, at
// most limit of them (limend's default when limit is zero).
func (c *Client) History(ctx context.Context, limit int) ([]*limenv1.Decision, error) {
	ctx, cancel := withDeadline(ctx, DefaultTimeout)
	defer cancel()
	resp, err := c.API.History(ctx, &limenv1.HistoryRequest{Limit: int32(min(limit, 1<<31-1))})
	if err != nil {
		return nil, err
	}
	return resp.GetDecisions(), nil
}

// Stats counts the decisions and answers since a time, in all and per
// user, with the number of asks pending now.
func (c *Client) Stats(ctx context.Context, since time.Time) (*limenv1.StatsResponse, error) {
	ctx, cancel := withDeadline(ctx, DefaultTimeout)
	defer cancel()
	return c.API.Stats(ctx, &limenv1.StatsRequest{Since: timestamppb.New(since)})
}

// GetPolicy returns the policy in force, with its version (for SetPolicy)
// and every risk class's costs and thresholds.
func (c *Client) GetPolicy(ctx context.Context) (*limenv1.Policy, error) {
	ctx, cancel := withDeadline(ctx, DefaultTimeout)
	defer cancel()
	resp, err := c.API.GetPolicy(ctx, &limenv1.GetPolicyRequest{})
	if err != nil {
		return nil, err
	}
	return resp.GetPolicy(), nil
}

// SetPolicy puts doc in force if the policy is still at version expected
// (compare-and-set), and returns the new policy. When someone changed it
// since, nothing is saved and errors.Is(err, ErrPolicyChanged).
func (c *Client) SetPolicy(ctx context.Context, expected uint64, doc string) (*limenv1.Policy, error) {
	ctx, cancel := withDeadline(ctx, DefaultTimeout)
	defer cancel()
	resp, err := c.API.SetPolicy(ctx, &limenv1.SetPolicyRequest{ExpectedVersion: expected, Document: doc})
	if err != nil {
		return nil, mark(err, codes.Aborted, ErrPolicyChanged)
	}
	return resp.GetPolicy(), nil
}

// Version returns the build of the limend at the other end; nil and no
// error for a limend older than the GetVersion call, which cannot say.
func (c *Client) Version(ctx context.Context) (*limenv1.BuildInfo, error) {
	ctx, cancel := withDeadline(ctx, DefaultTimeout)
	defer cancel()
	resp, err := c.API.GetVersion(ctx, &limenv1.GetVersionRequest{})
	if status.Code(err) == codes.Unimplemented {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return resp.GetLimend(), nil
}
