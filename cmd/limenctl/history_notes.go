package main

import (
	"fmt"
	"strings"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// printNotes lists, under the history table, the notes of the asks' outcomes:
// what the person said, and where an answer came from when limen inferred
// it from the runtime's own dialog ("claude-code prompt, inferred from
// PostToolUse of toolu_… (session …)").
func printNotes(a *app, ds []*limenv1.Decision) error {
	first := true
	for _, d := range ds {
		n := strings.TrimSpace(d.GetOutcome().GetNote())
		if n == "" {
			continue
		}
		if first {
			if _, err := fmt.Fprintln(a.out, "\nnotes:"); err != nil {
				return err
			}
			first = false
		}
		if _, err := fmt.Fprintf(a.out, "  %s  %s\n", d.GetDecisionId(), strings.ReplaceAll(n, "\n", " ")); err != nil {
			return err
		}
	}
	return nil
}
