package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// simulateTimeout bounds a replay when --timeout is not given: the default
// --timeout (seconds) suits one decision, not a log of a million.
const simulateTimeout = 5 * time.Minute

func newPolicySimulateCmd(a *app) *cobra.Command {
	var limit int32
	cmd := &cobra.Command{
		Use:   "simulate FILE | -",
		Short: "Replay the recorded decisions under a candidate policy, before you apply it",
		Long: `simulate replays the decisions limend has recorded under a candidate policy
(a TOML document from FILE, or - for stdin) and under the policy in force,
and prints them side by side: how many allows, asks and blocks each gives,
the estimated wrong allows and wrong blocks, and the expected cost. Nothing
is changed.

Each decision is replayed as it was made, with only the policy changed: the
part that was decided by prediction keeps the p it had; other parts, and
decisions a rule settled, take the p the model gives now. Where a person
answered an ask, the answer is the truth; elsewhere a wrong allow counts
1-p and a wrong block p. Both columns are priced with the candidate's
costs, class by class, so their totals compare.

A replay may take a while on a long log: it waits up to 5 minutes unless
--timeout says otherwise.`,
		Example: `  limenctl policy show --document > p.toml && $EDITOR p.toml
  limenctl policy simulate p.toml
  limenctl policy simulate --limit 1000 p.toml   # the newest 1000 decisions only`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPolicySimulate(cmd, a, limit, args) },
	}
	cmd.Flags().Int32Var(&limit, "limit", 0, "replay only the newest N decisions (0: all)")
	return cmd
}

// runPolicySimulate is limenctl policy simulate FILE, over the newest limit decisions (0: all).
func runPolicySimulate(cmd *cobra.Command, a *app, limit int32, args []string) error {
	if limit < 0 {
		return usagef("--limit must be 0 (every recorded decision) or more")
	}
	doc, err := readDocument(cmd, args[0])
	if err != nil {
		return err
	}
	if _, err := validate(doc); err != nil {
		return err
	}
	c, err := a.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	// A replay reads the whole log: give it minutes unless the
	// caller chose a --timeout.
	ctx, cancel := context.WithTimeout(cmd.Context(), simulateTimeout)
	if f := cmd.Flag("timeout"); f != nil && f.Changed {
		cancel()
		ctx, cancel = a.ctx(cmd)
	}
	defer cancel()
	resp, err := c.API.SimulatePolicy(ctx, &limenv1.SimulatePolicyRequest{Document: doc, Limit: limit})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(resp)
	}
	printSimulation(a, resp)
	return nil
}

func printSimulation(a *app, resp *limenv1.SimulatePolicyResponse) {
	cur, cand := resp.GetCurrent(), resp.GetCandidate()
	if cur.GetDecisions() == 0 {
		fmt.Fprintln(a.out, "no decisions recorded yet, so there is nothing to replay")
		return
	}
	fmt.Fprintf(a.out, "replayed %d recorded decisions\n\n", cur.GetDecisions())
	w := a.table()
	fmt.Fprintf(w, "\tCURRENT (v%d)\tCANDIDATE\tCHANGE\n", cur.GetPolicyVersion())
	count := func(name string, c, d int64) {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\n", name, c, d, signedInt(d-c))
	}
	real := func(name string, c, d float64) {
		fmt.Fprintf(w, "%s\t%.2f\t%.2f\t%s\n", name, c, d, signedFloat(d-c))
	}
	count("allows", cur.GetAllows(), cand.GetAllows())
	count("asks", cur.GetAsks(), cand.GetAsks())
	count("blocks", cur.GetBlocks(), cand.GetBlocks())
	real("estimated wrong allows", cur.GetEstimatedWrongAllows(), cand.GetEstimatedWrongAllows())
	real("estimated wrong blocks", cur.GetEstimatedWrongBlocks(), cand.GetEstimatedWrongBlocks())
	real("expected cost", cur.GetExpectedCost(), cand.GetExpectedCost())
	w.Flush()

	fmt.Fprintln(a.out)
	switch d := cand.GetExpectedCost() - cur.GetExpectedCost(); {
	case d < -1e-9:
		fmt.Fprintf(a.out, "the candidate costs %.2f less over these decisions (priced with its own costs); apply it with limenctl policy set FILE\n", -d)
	case d > 1e-9:
		fmt.Fprintf(a.out, "the candidate costs %.2f more over these decisions (priced with its own costs)\n", d)
	default:
		fmt.Fprintln(a.out, "the candidate costs the same over these decisions (priced with its own costs)")
	}
}

func signedInt(d int64) string {
	if d == 0 {
		return "="
	}
	return fmt.Sprintf("%+d", d)
}

func signedFloat(d float64) string {
	if d > -0.005 && d < 0.005 {
		return "="
	}
	return fmt.Sprintf("%+.2f", d)
}
