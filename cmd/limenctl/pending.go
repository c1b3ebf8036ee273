package main

import (
	"fmt"
	"github.com/limenhq/limen/internal/describe"
	"time"

	"github.com/spf13/cobra"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func newPendingCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "pending",
		Short: "List the asks waiting for a person",
		Long: `pending lists the asks that wait for a person's answer, oldest first, across
every agent and session. Answer one with limenctl answer ID --approve|--deny,
or open limenctl tui.`,
		Example: `  limenctl pending
  limenctl pending --json | jq -r '.asks[].ask_id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPending(cmd, a) },
	}
}

// runPending is limenctl pending.
func runPending(cmd *cobra.Command, a *app) error {
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	resp, err := c.API.ListPending(ctx, &limenv1.ListPendingRequest{})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(resp)
	}
	if len(resp.GetAsks()) == 0 {
		fmt.Fprintln(a.out, "no pending asks")
		return nil
	}
	now := time.Now()
	w := a.table()
	fmt.Fprintln(w, "ID\tAGE\tEXPIRES\tUSER\tAGENT\tSESSION\tP\tCLASS\tACTION")
	for _, p := range resp.GetAsks() {
		d := p.GetDecision()
		act := d.GetAction()
		parts := actionCells(d)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\n",
			p.GetAskId(), describe.Age(now.Sub(d.GetTime().AsTime())), "in "+describe.Age(p.GetExpiresAt().AsTime().Sub(now)),
			act.GetUser(), act.GetAgent(), shorten(dash(act.GetSession()), 12), d.GetP(), dash(d.GetRiskClass()), parts[0])
		for _, c := range parts[1:] {
			fmt.Fprintf(w, "\t\t\t\t\t\t\t\t%s\n", c)
		}
	}
	return w.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
