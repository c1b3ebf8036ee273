package daemon_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/internal/server"
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
func BenchmarkSocket(b *testing.B) {
	c, acts := benchDaemon(b)
	health := func(b *testing.B) {
		if _, err := c.Health.Check(b.Context(), &healthpb.HealthCheckRequest{}); err != nil {
			b.Fatal(err)
		}
	}
	decide := loadgen.DecideCall(c, acts)
	for _, mode := range []string{"serial", "parallel"} {
		b.Run("health/"+mode, func(b *testing.B) { drive(b, mode, func() { health(b) }) })
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
