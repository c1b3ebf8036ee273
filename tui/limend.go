package tui

import (
	"context"
	"time"

	"github.com/limenhq/limen/client"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Limend is every call the TUI makes to limend, as package client makes
// them: *client.Client is the one outside tests. The TUI reads no gRPC
// codes itself; it acts on client's sentinels (ErrAnswerRefused,
// ErrPolicyChanged) and words errors with client.Describe.
type Limend interface {
	WatchPending(ctx context.Context) (client.PendingStream, error)
	Answer(ctx context.Context, req *limenv1.AnswerRequest) (*limenv1.AnswerResponse, error)
	History(ctx context.Context, limit int) ([]*limenv1.Decision, error)
	Stats(ctx context.Context, since time.Time) (*limenv1.StatsResponse, error)
	GetPolicy(ctx context.Context) (*limenv1.Policy, error)
	SetPolicy(ctx context.Context, expected uint64, doc string) (*limenv1.Policy, error)
	Forget(ctx context.Context, req *limenv1.ForgetRequest) (*limenv1.ForgetResponse, error)
}

var _ Limend = (*client.Client)(nil)
