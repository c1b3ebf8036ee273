// Command limend is limen's daemon: the decision point an agent runtime asks
// before each action. Run it with no flags; see `limend --help`.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	// limend's live heap is small and steady (the predictor's counts), and
	// garbage collection was about a quarter of its CPU per decision at the
	// default GOGC=100; 200 halves how often it runs for a modest heap.
	// GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	os.Exit(run(os.Args[1:]))
}
