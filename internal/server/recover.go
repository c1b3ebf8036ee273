package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// RecoverUnary is the first interceptor in the chain: a panic in any handler
// is logged with its stack and never takes the daemon down. A panic while
// deciding is answered with ask, so a bug can never turn into allow.
func RecoverUnary(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			log.Error("handler panicked", "method", info.FullMethod, "panic", v, "stack", string(debug.Stack()))
			if info.FullMethod == limenv1.DecisionService_Decide_FullMethodName {
				resp, err = &limenv1.DecideResponse{Decision: &limenv1.Decision{
					Action:    req.(*limenv1.DecideRequest).GetAction(),
					Verdict:   limenv1.Verdict_VERDICT_ASK,
					DecidedBy: limenv1.Decider_DECIDER_FAILSAFE,
					Reason:    fmt.Sprintf("limen hit an internal error and asks a person instead (failing closed): %v", v),
				}}, nil
				return
			}
			resp, err = nil, status.Errorf(codes.Internal, "internal error: %v", v)
		}()
		return handler(ctx, req)
	}
}

// RecoverStream is RecoverUnary for streaming handlers.
func RecoverStream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer func() {
			if v := recover(); v != nil {
				log.Error("stream handler panicked", "method", info.FullMethod, "panic", v, "stack", string(debug.Stack()))
				err = status.Errorf(codes.Internal, "internal error: %v", v)
			}
		}()
		return handler(srv, ss)
	}
}
