package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/limenhq/limen/internal/describe"

	"github.com/spf13/cobra"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func newHistoryCmd(a *app) *cobra.Command {
	req := &limenv1.HistoryRequest{}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Show recent decisions and how they ended",
		Long: `history lists recorded decisions, newest first: the verdict, who decided it
(a policy rule, the prediction, a person by name, the failsafe or expiry), the predicted
p, and for asks how they ended (approved, denied, expired or still pending).`,
		Example: `  limenctl history
  limenctl history --asks --limit 20
  limenctl history --user ana --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runHistory(cmd, a, req) },
	}
	f := cmd.Flags()
	f.Int32Var(&req.Limit, "limit", 50, "how many decisions to show (at most 1000)")
	f.StringVar(&req.User, "user", "", "only this user's decisions")
	f.StringVar(&req.BeforeId, "before", "", "only decisions older than this decision id (paging)")
	f.BoolVar(&req.AsksOnly, "asks", false, "only decisions that asked a person")
	cmd.AddCommand(newHistoryShowCmd(a)) // history_show.go
	return cmd
}

// runHistory is limenctl history; req holds its flags.
func runHistory(cmd *cobra.Command, a *app, req *limenv1.HistoryRequest) error {
	if req.Limit < 1 || req.Limit > 1000 {
		return usagef("--limit must be between 1 and 1000")
	}
	if b := req.BeforeId; b != "" {
		if _, err := strconv.ParseUint(b, 10, 64); err != nil {
			return usagef("--before %q is not a decision id: ids are numbers, as in the ID column of limenctl history", b)
		}
	}
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	resp, err := c.API.History(ctx, req)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(resp)
	}
	if len(resp.GetDecisions()) == 0 {
		fmt.Fprintln(a.out, "no decisions recorded yet")
		return nil
	}
	now := time.Now()
	w := a.table()
	fmt.Fprintln(w, "ID\tAGE\tUSER\tVERDICT\tBY\tP\tCLASS\tOUTCOME\tACTION")
	for _, d := range resp.GetDecisions() {
		parts := actionCells(d)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			d.GetDecisionId(), describe.Age(now.Sub(d.GetTime().AsTime())), d.GetAction().GetUser(),
			describe.Verdict(d.GetVerdict()), describe.DecidedBy(d)+via(d), pText(d), dash(d.GetRiskClass()),
			describe.Outcome(d), parts[0])
		for _, c := range parts[1:] {
			fmt.Fprintf(w, "\t\t\t\t\t\t\t\t%s\n", c)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return printNotes(a, resp.GetDecisions()) // history_notes.go
}

func pText(d *limenv1.Decision) string {
	if d.GetDecidedBy() != limenv1.Decider_DECIDER_PREDICTION {
		return "-"
	}
	return fmt.Sprintf("%.2f", d.GetP())
}

// via says where a person's answer came from when it was not limend's
// socket (limenctl, the TUI): the web app or a notification, and the
// device, as " (web 3f2a9c01b7d4)".
func via(d *limenv1.Decision) string {
	o := d.GetOutcome()
	switch o.GetChannel() {
	case "", "socket":
		return ""
	}
	if o.GetDeviceId() == "" {
		return " (" + o.GetChannel() + ")"
	}
	return " (" + o.GetChannel() + " " + o.GetDeviceId() + ")"
}
