package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/server"
)

// BenchmarkRoundTrip is the hook's call to limend alone, made from the
// benchmark's own process: what BenchmarkStart spends beyond starting a
// process, to profile limend's side of a hook call.
func BenchmarkRoundTrip(b *testing.B) {
	// Unlimited, as a burst this fast would pass the default rate limit.
	l := startWith(b, func(c *daemon.Config) { c.Limits = server.Limits{Rate: 1e9, Burst: 1e9} })
	l.rules(b, []string{"Read"}, nil)
	read, err := os.ReadFile(filepath.Join("testdata", "read.json"))
	if err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	for b.Loop() {
		began := time.Now()
		r, err := post(l.http, "", "/v1/hooks/claude-code", read, time.Now().Add(5*time.Second))
		if err != nil || r.verdict != "allow" {
			b.Fatalf("post: %+v, %v; want allow", r, err)
		}
		took = append(took, time.Since(began))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "median-µs")
}
