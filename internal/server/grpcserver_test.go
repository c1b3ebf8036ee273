package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// panicky panics in Decide, as a bug in a handler would.
type panicky struct {
	limenv1.UnimplementedDecisionServiceServer
}

func (panicky) Decide(context.Context, *limenv1.DecideRequest) (*limenv1.DecideResponse, error) {
	panic("bug")
}

// TestServerOptions: a server built with ServerOptions recovers a panic
// into ask before any interceptor the caller adds runs (recovery is first
// in the chain), runs the added interceptor, and refuses a request over
// 1 MiB.
func TestServerOptions(t *testing.T) {
	var added atomic.Int32
	count := grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		added.Add(1)
		if req.(*limenv1.DecideRequest).GetAction().GetTool() == "panic-in-interceptor" {
			panic("interceptor bug")
		}
		return h(ctx, req)
	})
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(ServerOptions(slog.New(slog.NewTextHandler(io.Discard, nil)), insecure.NewCredentials(), count)...)
	limenv1.RegisterDecisionServiceServer(srv, panicky{})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	api := limenv1.NewDecisionServiceClient(conn)

	for _, tool := range []string{"Bash", "panic-in-interceptor"} {
		resp, err := api.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{Tool: tool}})
		if err != nil || resp.GetDecision().GetVerdict() != limenv1.Verdict_VERDICT_ASK || resp.GetDecision().GetDecidedBy() != limenv1.Decider_DECIDER_FAILSAFE {
			t.Errorf("Decide(%s) = %v, %v; want ask by the failsafe", tool, resp, err)
		}
	}
	if added.Load() != 2 {
		t.Errorf("the added interceptor ran %d times, want 2", added.Load())
	}
	_, err = api.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{Tool: "Bash", InputJson: strings.Repeat(" ", 1<<20)}})
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("Decide with a 1 MiB input: %v, want ResourceExhausted", err)
	}
}
