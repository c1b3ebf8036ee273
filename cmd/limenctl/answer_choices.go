package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/describe"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// answerFlags are the limenctl answer flags of each answer choice
// (describe.AnswerChoices), in its order.
var answerFlags = map[string]string{
	"once": "--approve", "session": "--approve --session", "always": "--approve --always", "deny": "--deny",
}

// printAnswerChoices writes, for an ask, each way of answering it and
// what that answer will do, before it is given.
func printAnswerChoices(a *app, d *limenv1.Decision, choices []describe.AnswerChoice) {
	w := a.table()
	for i, ch := range choices {
		label := "answers"
		if i > 0 {
			label = ""
		}
		// Padded as the labels of the table above it ("risk class",
		// "p(approve)"), which is a table of its own.
		fmt.Fprintf(w, "%-*s\tlimenctl answer %s %s\t%s: %s\n", labelWidth, label, d.GetAskId(), answerFlags[ch.Name], ch.Name, ch.Does)
	}
	w.Flush()
}

// labelWidth is the width of the longest label of decide's table, which
// the answers label is padded to.
const labelWidth = len("p(approve)")

// pendingAsk finds the pending ask id.
func pendingAsk(ctx context.Context, c *client.Client, id string) (*limenv1.PendingAsk, error) {
	resp, err := c.API.ListPending(ctx, &limenv1.ListPendingRequest{})
	if err != nil {
		return nil, err
	}
	for _, p := range resp.GetAsks() {
		if p.GetAskId() == id {
			return p, nil
		}
	}
	return nil, notFoundf("ask %s is not pending (answered, expired, or never asked): check the id with `limenctl pending`", id)
}

// showAnswerChoices is limenctl answer ID with no answer: what each
// answer would do to the ask.
func showAnswerChoices(cmd *cobra.Command, a *app, id string) error {
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	p, err := pendingAsk(ctx, c, id)
	if err != nil {
		return err
	}
	d := p.GetDecision()
	if a.json {
		return a.printJSON(describe.AnswerChoices(d))
	}
	w := a.table()
	printAction(w, d)
	fmt.Fprintf(w, "risk class\t%s\n", dash(d.GetRiskClass()))
	fmt.Fprintf(w, "key\t%s\n", dash(d.GetKey()))
	w.Flush()
	printAnswerChoices(a, d, describe.AnswerChoices(d))
	fmt.Fprintln(a.out, "nothing was answered")
	return nil
}

// addAllowRule adds to the policy the allow rule limen suggests for the
// pending ask id (the rule the TUI's r opens with), compare-and-set on
// the version read, reading again if someone changed it meanwhile.
func addAllowRule(ctx context.Context, c *client.Client, id string) (string, uint64, error) {
	p, err := pendingAsk(ctx, c, id)
	if err != nil {
		return "", 0, err
	}
	act := convert.Preview(p.GetDecision().GetAction())
	rule, err := policy.Suggest(act, convert.Env(act))
	if err != nil {
		return "", 0, fmt.Errorf("no allow rule covers ask %s (%v): answer it with --approve or --approve --session, or write a rule with limenctl policy edit", id, err)
	}
	for try := 0; ; try++ {
		cur, err := c.GetPolicy(ctx)
		if err != nil {
			return "", 0, err
		}
		doc, err := policy.AddRule(cur.GetDocument(), "allow", rule)
		if err != nil {
			return "", 0, err
		}
		_, err = c.SetPolicy(ctx, cur.GetVersion(), doc)
		if errors.Is(err, client.ErrPolicyChanged) && try < 3 {
			continue
		}
		if err != nil {
			return "", 0, err
		}
		return rule, cur.GetVersion(), nil
	}
}
