package server

import (
	"log/slog"
	"runtime"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// maxRecvMsgBytes bounds a request message, so that no call makes limend
// read more than 1 MiB.
const maxRecvMsgBytes = 1 << 20

// ServerOptions are the options of every gRPC server limend runs, the Unix
// socket's and the TCP one, so that the two cannot drift apart (the TCP
// server once lacked the stream workers): creds, the panic-recovery
// interceptors first in their chains, then more (a TCP server's
// authentication: further ChainUnaryInterceptor and ChainStreamInterceptor
// options append to the chains), the request bound, and long-lived
// workers.
func ServerOptions(log *slog.Logger, creds credentials.TransportCredentials, more ...grpc.ServerOption) []grpc.ServerOption {
	opts := []grpc.ServerOption{
		grpc.Creds(creds),
		grpc.ChainUnaryInterceptor(RecoverUnary(log)),
		grpc.ChainStreamInterceptor(RecoverStream(log)),
	}
	opts = append(opts, more...)
	return append(opts,
		grpc.MaxRecvMsgSize(maxRecvMsgBytes),
		// Serve calls on long-lived workers instead of a new goroutine per
		// call: stack growth of fresh goroutines was a visible share of
		// Decide's CPU (docs/BENCHMARKS.md). With only NumCPU workers gRPC
		// falls back to new goroutines whenever they are all busy.
		grpc.NumStreamWorkers(uint32(64*runtime.NumCPU())),
	)
}
