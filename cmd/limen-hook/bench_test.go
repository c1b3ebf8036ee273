package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkStart measures what Claude Code waits for on every tool call:
// starting limen-hook and getting limend's decision (an allow, so no ask is
// queued), against starting an empty Go binary. Each iteration is one
// process; the medians are reported besides the mean because a busy machine
// adds long outliers. See docs/BENCHMARKS.md ("Hook start").
//
//	go test -run '^$' -bench BenchmarkStart -benchtime 500x ./cmd/limen-hook
func BenchmarkStart(b *testing.B) {
	empty := filepath.Join(b.TempDir(), "empty")
	src := filepath.Join(b.TempDir(), "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", empty, src)
	build.Dir = filepath.Dir(src)
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the empty binary: %v\n%s", err, out)
	}
	l := start(b)
	l.rules(b, []string{"Read"}, nil)
	read, err := os.ReadFile(filepath.Join("testdata", "read.json"))
	if err != nil {
		b.Fatal(err)
	}

	run := func(b *testing.B, want, bin string, stdin []byte, args ...string) {
		var took []time.Duration
		for b.Loop() {
			cmd := exec.Command(bin, args...)
			cmd.Stdin = bytes.NewReader(stdin)
			var out bytes.Buffer
			cmd.Stdout = &out
			began := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(began))
			if bin != empty && !bytes.Contains(out.Bytes(), []byte(want)) {
				b.Fatalf("limen-hook printed %s; want %s", out.Bytes(), want)
			}
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds()), "median-µs")
		b.ReportMetric(float64(took[0].Microseconds()), "min-µs")
	}
	b.Run("empty", func(b *testing.B) { run(b, "", empty, nil) })
	b.Run("limen-hook", func(b *testing.B) {
		run(b, `"permissionDecision":"allow"`, hookBin, read, "--socket", l.http)
	})
	// The same call with no daemon to reach: start, read, parse and print,
	// without the round trip.
	b.Run("limen-hook-no-daemon", func(b *testing.B) {
		run(b, `"permissionDecision":"ask"`, hookBin, read, "--socket", filepath.Join(b.TempDir(), "none.sock"))
	})
	// The two alternately, one pair per iteration, so that a busy moment
	// slows both: the ratios of this one are the steadiest on a shared
	// machine.
	b.Run("interleaved", func(b *testing.B) {
		var empties, hooks []time.Duration
		for b.Loop() {
			for _, bin := range []string{empty, hookBin} {
				cmd := exec.Command(bin, "--socket", l.http)
				cmd.Stdin = bytes.NewReader(read)
				var out bytes.Buffer
				cmd.Stdout = &out
				began := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				took := time.Since(began)
				if bin == empty {
					empties = append(empties, took)
					continue
				}
				hooks = append(hooks, took)
				if !bytes.Contains(out.Bytes(), []byte(`"permissionDecision":"allow"`)) {
					b.Fatalf("limen-hook printed %s; want allow", out.Bytes())
				}
			}
		}
		slices.Sort(empties)
		slices.Sort(hooks)
		med := func(d []time.Duration) float64 { return float64(d[len(d)/2]) }
		b.ReportMetric(float64(empties[len(empties)/2].Microseconds()), "empty-median-µs")
		b.ReportMetric(float64(hooks[len(hooks)/2].Microseconds()), "hook-median-µs")
		b.ReportMetric(med(hooks)/med(empties), "ratio-median")
		b.ReportMetric(float64(hooks[0])/float64(empties[0]), "ratio-min")
	})
}
