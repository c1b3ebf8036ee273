package daemon_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/internal/peercred"
	"github.com/limenhq/limen/internal/server"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// benchDaemon starts a real limend on a temporary socket, seeds it with the
// fixture stream's answers (so most decisions are allow or block, as in
// steady use) and returns a client and the fixture's actions.
func benchDaemon(b *testing.B) (*client.Client, []loadgen.Action) {
	b.Helper()
	dir := b.TempDir()
	cfg := daemon.Config{
		Socket:          filepath.Join(dir, "run", "limend.sock"),
		DB:              filepath.Join(dir, "data", "limen.db"),
		ShutdownTimeout: 2 * time.Second,
		LockTimeout:     200 * time.Millisecond,
		Limits:          server.Limits{Rate: 1e9, Burst: 1e9},
	}
	d, err := daemon.Start(cfg, nil)
	if err != nil {
		b.Fatalf("start limend: %v", err)
	}
	c, err := client.Dial(cfg.Socket)
	if err != nil {
		b.Fatalf("dial: %v", err)
	}
	b.Cleanup(func() {
		c.Close()
		if err := d.Stop(context.Background()); err != nil {
			b.Errorf("stop limend: %v", err)
		}
	})
	acts, err := loadgen.ReadActionsFile("", 0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := loadgen.Seed(b.Context(), c, acts, 3, 4, nil); err != nil {
		b.Fatal(err)
	}
	return c, acts
}

// BenchmarkSocket is the whole Decide over limend's Unix socket, through
// the Go client, against the no-op floor of the same trip: a gRPC health
// Check on the same connection. serial is one caller (latency); parallel
// is b.RunParallel with 16 callers per core (throughput). The decide/
// health ratio of ns/op is the figure docs/BENCHMARKS.md tracks.
// asks/op is the share of decisions that asked (each costs an fsync).
//
// echo splits the difference: a DecisionService on its own socket, with
// the same credentials and interceptor, whose Decide returns a decision
// recorded from limend without doing any work. It is what the request and
// response of Decide cost in gRPC and protobuf alone.
func BenchmarkSocket(b *testing.B) {
	c, acts := benchDaemon(b)
	rec, err := c.API.Decide(b.Context(), &limenv1.DecideRequest{Action: acts[0].Action})
	if err != nil {
		b.Fatal(err)
	}
	echo := echoServer(b, rec)
	check := loadgen.HealthCall(c) // with the same per-call deadline as Decide's
	health := func(b *testing.B) {
		if _, err := check(b.Context(), 0, 0); err != nil {
			b.Error(err)
		}
	}
	decide := loadgen.DecideCall(c, acts)
	for _, mode := range []string{"serial", "parallel"} {
		b.Run("health/"+mode, func(b *testing.B) { drive(b, mode, func() { health(b) }) })
		b.Run("echo/"+mode, func(b *testing.B) {
			call := loadgen.DecideCall(echo, acts)
			drive(b, mode, func() {
				if _, err := call(b.Context(), 0, 0); err != nil {
					b.Error(err)
				}
			})
		})
		b.Run("decide/"+mode, func(b *testing.B) {
			var ask, n atomic.Int64
			drive(b, mode, func() {
				out, err := decide(b.Context(), 0, 0)
				if err != nil {
					b.Error(err)
				}
				if out == "ask" {
					ask.Add(1)
				}
				n.Add(1)
			})
			if n.Load() > 0 {
				b.ReportMetric(float64(ask.Load())/float64(n.Load()), "asks/op")
			}
		})
	}
}

var ratioDuration = flag.Duration("limen.ratio", 3*time.Second, "BenchmarkRatios: measured time per call kind and concurrency level")

// BenchmarkRatios runs limenctl bench's load generator in process: health,
// echo (see BenchmarkSocket) and decide in alternating 200ms rounds, at
// concurrency 1 and 16, and reports the latency ratios and decide's calls
// per second. Unlike ns/op of separate benchmarks, the ratios survive a
// shared, noisy machine. Client and server share this process's CPUs, so
// absolute numbers are lower than limenctl bench against a limend.
func BenchmarkRatios(b *testing.B) {
	c, acts := benchDaemon(b)
	rec, err := c.API.Decide(b.Context(), &limenv1.DecideRequest{Action: acts[0].Action})
	if err != nil {
		b.Fatal(err)
	}
	echo := echoServer(b, rec)
	// Exploration asks about 1% of would-be allows, and every ask is
	// queued with an fsync: that sits right at p99. "explore=0" measures
	// the path of the decisions limen makes on its own.
	for _, explore := range []string{"0.01", "0"} {
		pol, err := c.API.GetPolicy(b.Context(), &limenv1.GetPolicyRequest{})
		if err != nil {
			b.Fatal(err)
		}
		doc := regexp.MustCompile(`(?m)^exploration = .*$`).ReplaceAllString(pol.GetPolicy().GetDocument(), "exploration = "+explore)
		if _, err := c.API.SetPolicy(b.Context(), &limenv1.SetPolicyRequest{Document: doc, ExpectedVersion: pol.GetPolicy().GetVersion()}); err != nil {
			b.Fatal(err)
		}
		for _, conc := range []int{1, 16} {
			b.Run(fmt.Sprintf("explore=%s/c=%d", explore, conc), func(b *testing.B) {
				for b.Loop() {
					rep, err := loadgen.Run(b.Context(), loadgen.Config{Concurrency: conc, Duration: *ratioDuration},
						loadgen.Target{Name: "health", Call: loadgen.HealthCall(c)},
						loadgen.Target{Name: "echo", Call: loadgen.DecideCall(echo, acts)},
						loadgen.Target{Name: "decide", Call: loadgen.DecideCall(c, acts)})
					if err != nil {
						b.Fatal(err)
					}
					h, e, d := rep.Target("health"), rep.Target("echo"), rep.Target("decide")
					var errs uint64
					for _, s := range rep.Targets {
						if s.Errors > 0 {
							// A call past the client's 2s deadline is a real
							// observation (it failed closed), not a broken
							// benchmark: count it and say what it was.
							errs += s.Errors
							b.Logf("%s: %d errors, the first: %s", s.Name, s.Errors, s.FirstError)
						}
					}
					b.ReportMetric(float64(errs), "errors")
					de, eh, dh := loadgen.Compare(d, e), loadgen.Compare(e, h), loadgen.Compare(d, h)
					b.ReportMetric(dh.P50, "decide/health-p50")
					b.ReportMetric(dh.P99, "decide/health-p99")
					b.ReportMetric(eh.P50, "echo/health-p50")
					b.ReportMetric(eh.P99, "echo/health-p99")
					b.ReportMetric(de.P50, "decide/echo-p50")
					b.ReportMetric(de.P99, "decide/echo-p99")
					b.ReportMetric(d.QPS, "decide/s")
					b.ReportMetric(h.QPS, "health/s")
					b.ReportMetric(float64(h.Latency.P50.Nanoseconds()), "health-p50-ns")
					b.ReportMetric(float64(d.Outcomes["ask"])/float64(d.Calls), "asks/decide")
				}
			})
		}
	}
}

// echoService answers every Decide with the same recorded response.
type echoService struct {
	limenv1.UnimplementedDecisionServiceServer
	resp *limenv1.DecideResponse
}

func (e echoService) Decide(context.Context, *limenv1.DecideRequest) (*limenv1.DecideResponse, error) {
	return e.resp, nil
}

// echoServer serves echoService on a socket of its own and returns a
// client of it.
func echoServer(b *testing.B, resp *limenv1.DecideResponse) *client.Client {
	b.Helper()
	sock := filepath.Join(b.TempDir(), "echo.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(peercred.Credentials()), grpc.ChainUnaryInterceptor(server.RecoverUnary(slog.New(slog.DiscardHandler))))
	limenv1.RegisterDecisionServiceServer(srv, echoService{resp: resp})
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(lis) }()
	c, err := client.Dial(sock)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c.Close()
		srv.Stop()
		<-done
	})
	return c
}

func drive(b *testing.B, mode string, call func()) {
	b.ReportAllocs()
	if mode == "serial" {
		for b.Loop() {
			call()
		}
		return
	}
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
}
