package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/describe"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func newHistoryShowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "show DECISION_ID",
		Short: "Show one recorded decision and why it got its verdict, with the evidence as it stood then",
		Long: `show prints one recorded decision in full: the action and each of its parts,
the verdict and who or what gave it, how its ask ended (and whether the
answer was forgotten since), and why: limend decides the action again on the
answers given before it, under the policy version it was made under, so p
and the evidence are what they were then, not what they are now. The same
explanation with the arithmetic of the costs is limenctl policy explain
--decision ID.`,
		Example: `  limenctl history show 41
  limenctl history show 41 --json`,
		Args: needArgs(1, "the decision id, as in the ID column of limenctl history", "limenctl history show ID"),
		RunE: func(cmd *cobra.Command, args []string) error { return runHistoryShow(cmd, a, args[0]) },
	}
}

// explainPast asks limend to explain decision id as things stood then.
func explainPast(cmd *cobra.Command, a *app, id string) (*limenv1.ExplainDecisionResponse, func(), error) {
	if err := checkDecisionID(id); err != nil {
		return nil, nil, err
	}
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.API.ExplainDecision(ctx, &limenv1.ExplainDecisionRequest{DecisionId: id})
	if err != nil {
		done()
		if client.ProblemOf(err) == client.NotFound {
			// limend's words repeat the id ("decision 7: decision 7: not
			// found"); say it once, with where ids come from.
			return nil, nil, notFoundf("decision %s: not found: check the id with `limenctl history` (its ID column)", id)
		}
		return nil, nil, err
	}
	return resp, done, nil
}

// runHistoryShow is limenctl history show ID.
func runHistoryShow(cmd *cobra.Command, a *app, id string) error {
	resp, done, err := explainPast(cmd, a, id)
	if err != nil {
		return err
	}
	defer done()
	if a.json {
		return a.printJSON(resp)
	}
	d, then := resp.GetRecorded(), resp.GetReplayed()
	w := a.table()
	fmt.Fprintf(w, "decision\t%s at %s (policy v%d)\n", d.GetDecisionId(), d.GetTime().AsTime().Local().Format(time.DateTime), d.GetPolicyVersion())
	printAction(w, d)
	fmt.Fprintf(w, "verdict\t%s, decided by %s\n", describe.Verdict(d.GetVerdict()), describe.DecidedBy(d))
	fmt.Fprintf(w, "reason\t%s\n", d.GetReason())
	if o := d.GetOutcome(); o != nil {
		fmt.Fprintf(w, "outcome\t%s", describe.Outcome(d))
		if o.GetAnsweredBy() != "" {
			fmt.Fprintf(w, " by %s at %s", o.GetAnsweredBy(), o.GetTime().AsTime().Local().Format(time.DateTime))
		}
		if o.GetNote() != "" {
			fmt.Fprintf(w, ", note %q", o.GetNote())
		}
		if o.GetForgottenAt() != nil {
			fmt.Fprintf(w, "; forgotten by %s at %s", o.GetForgottenBy(), o.GetForgottenAt().AsTime().Local().Format(time.DateTime))
		}
		fmt.Fprintln(w)
	}
	w.Flush()
	fmt.Fprintln(a.out)
	if err := printParts(a, d); err != nil {
		return err
	}
	printThen(a, resp)
	if then.GetVerdict() != d.GetVerdict() {
		fmt.Fprintf(a.out, "\nreplayed, it would be %s: %s\n", describe.Verdict(then.GetVerdict()), then.GetReason())
	}
	return nil
}

// printThen writes the evidence as it stood at the decision: how many
// answers were behind it, and p with its evidence at the deciding part.
func printThen(a *app, resp *limenv1.ExplainDecisionResponse) {
	then := resp.GetReplayed()
	fmt.Fprintf(a.out, "\nas it stood then: %d %s given before it", resp.GetAnswersBefore(), plural(int(resp.GetAnswersBefore()), "answer"))
	if n := resp.GetNote(); n != "" {
		fmt.Fprintf(a.out, " (%s)", n)
	}
	fmt.Fprintln(a.out)
	if then.GetDecidedBy() != limenv1.Decider_DECIDER_PREDICTION {
		return
	}
	w := a.table()
	th, ev := then.GetThresholds(), then.GetEvidence()
	level := ev.GetLevel()
	if level == "" || level == "prior" {
		level = "organisation prior (no answers of the user's yet)"
	}
	fmt.Fprintf(w, "p(approve)\t%.3f  (block below %.3f, allow above %.3f)\n", then.GetP(), th.GetBlockBelow(), th.GetAllowAbove())
	fmt.Fprintf(w, "evidence\t%s: %.1f approved, %.1f denied, weight %.1f\n", level, ev.GetApprovals(), ev.GetDenials(), ev.GetEffectiveCount())
	fmt.Fprintf(w, "deciding part\t%s (%s)\n", then.GetKey(), then.GetRiskClass())
	w.Flush()
}

// checkDecisionID refuses what cannot be a decision id before asking
// limend.
func checkDecisionID(id string) error {
	if err := checkAskID(id); err != nil {
		return usagef("%q is not a decision id: ids are numbers, as in the ID column of limenctl history", id)
	}
	return nil
}

// runPolicyExplainDecision is limenctl policy explain --decision ID: the
// recorded decision explained as policy explain explains an action, on
// the evidence and policy of its time.
func runPolicyExplainDecision(cmd *cobra.Command, a *app, id string) error {
	resp, done, err := explainPast(cmd, a, id)
	if err != nil {
		return err
	}
	defer done()
	then := resp.GetReplayed()
	ex := explain(then, resp.GetPolicy())
	if a.json {
		opts := protojson.MarshalOptions{UseProtoNames: true}
		if ex.Decision, err = opts.Marshal(resp); err != nil {
			return err
		}
		return a.printJSON(ex)
	}
	d := resp.GetRecorded()
	fmt.Fprintf(a.out, "decision %s at %s, recorded as %s by %s; decided again on the evidence of its time:\n\n",
		d.GetDecisionId(), d.GetTime().AsTime().Local().Format(time.DateTime), describe.Verdict(d.GetVerdict()), describe.DecidedBy(d))
	printExplanation(a, then, ex)
	printThen(a, resp)
	return nil
}
