package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/limenhq/limen/internal/describe"

	"github.com/spf13/cobra"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// answerOptions are answer's flags.
type answerOptions struct {
	approve, deny, session, always bool
	note                           string
}

func newAnswerCmd(a *app) *cobra.Command {
	var o answerOptions
	cmd := &cobra.Command{
		Use:   "answer ASK_ID [--approve [--session | --always] | --deny]",
		Short: "Answer a pending ask",
		Long: `answer gives a person's answer to a pending ask. The answer is on disk before
this command returns; it wakes the agent waiting on the ask, if one still
waits (an agent may have given up, and limenctl decide without --wait has
returned: then nobody is waiting on this ask any more, and the answer is
only learned), and teaches limen this user's habits. Without --approve or
--deny it answers nothing and shows what each answer would do.

--approve alone is "once": it lets the call run, if its agent still waits,
and teaches limen one approval, but is no standing permission (outside the
agent session it was given in, the same action is asked again until it has
been approved more than once). --session also lets the same action through
for the rest of the agent's session (an agent's run, named by its session
id; limenctl decide --session ID decides as part of one). --always adds an allow rule for the
action to the policy (as the TUI's r does), then approves.`,
		Example: `  limenctl answer 12                 # what each answer would do
  limenctl answer 12 --approve
  limenctl answer 12 --deny --note "never push to main"
  limenctl answer 12 --approve --session
  limenctl answer 12 --approve --always`,
		Args: needArgs(1, "the ask id, as shown by limenctl pending", "limenctl answer ID --approve|--deny"),
		RunE: func(cmd *cobra.Command, args []string) error { return runAnswer(cmd, a, o, args[0]) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.approve, "approve", false, "let the action run")
	f.BoolVar(&o.deny, "deny", false, "refuse the action")
	f.BoolVar(&o.session, "session", false, "with --approve: also allow this exact action for the rest of the session")
	f.BoolVar(&o.always, "always", false, "with --approve: add an allow rule for this action to the policy, then approve")
	f.StringVar(&o.note, "note", "", "a note kept with the answer (and shown to the agent)")
	return cmd
}

// runAnswer is limenctl answer ID.
func runAnswer(cmd *cobra.Command, a *app, o answerOptions, id string) error {
	if o.approve && o.deny {
		return usagef("say --approve or --deny, not both: limenctl answer %s --approve", id)
	}
	if o.session && !o.approve {
		return usagef("--session goes with --approve: it lets the same action through for the rest of the session")
	}
	if o.always && !o.approve {
		return usagef("--always goes with --approve: it adds an allow rule for the action; for a block rule use limenctl tui (r, then tab) or limenctl policy edit")
	}
	if o.always && o.session {
		return usagef("give --session or --always, not both: a rule already covers every session")
	}
	if err := checkAskID(id); err != nil {
		return err
	}
	if !o.approve && !o.deny {
		return showAnswerChoices(cmd, a, id)
	}
	req := &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_DENY, Note: o.note, Scope: limenv1.Scope_SCOPE_ONCE}
	if o.approve {
		req.Choice = limenv1.Choice_CHOICE_APPROVE
	}
	if o.session {
		req.Scope = limenv1.Scope_SCOPE_SESSION
	}
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	var rule string
	var before uint64 // the policy version the rule was added to
	if o.always {
		if rule, before, err = addAllowRule(ctx, c, id); err != nil {
			return err
		}
		req.Note = strings.TrimSpace(describe.RuleNotePrefix + rule + " " + req.Note)
	}
	resp, err := c.API.Answer(ctx, req)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(resp)
	}
	fmt.Fprintf(a.out, "ask %s answered: %s\n", id, describe.Verdict(resp.GetVerdict()))
	if rule != "" {
		fmt.Fprintf(a.out, "the policy allows %s from now on, for everyone (undo with limenctl policy rollback %d)\n", rule, before)
	}
	return nil
}

func newAwaitCmd(a *app) *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "await ASK_ID",
		Short: "Wait until a pending ask is answered or expires",
		Long: `await blocks until a person answers the ask (or it expires) and prints the
final verdict: allow if approved, block if denied or expired. It exits 0 only
for allow: 5 while the ask is still pending (--for ran out), 6 for block.`,
		Example: `  limenctl await 12
  limenctl await 12 --for 30s    # give up after 30s (prints ask)`,
		Args: needArgs(1, "the ask id, as shown by limenctl pending or decide", "limenctl await ID [--for 30s]"),
		RunE: func(cmd *cobra.Command, args []string) error { return runAwait(cmd, a, wait, args) },
	}
	cmd.Flags().DurationVar(&wait, "for", 0, "give up after this long (default: until answered or expired)")
	return cmd
}

// runAwait is limenctl await ID, giving up after wait (0: never).
func runAwait(cmd *cobra.Command, a *app, wait time.Duration, args []string) error {
	if err := checkAskID(args[0]); err != nil {
		return err
	}
	c, err := a.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	resp, err := c.AwaitAcross(cmd.Context(), args[0], wait) // survives a restart of limend
	if err != nil {
		return err
	}
	if a.json {
		if err := a.printJSON(resp); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.out, "%s: %s\n", describe.Verdict(resp.GetVerdict()), resp.GetReason())
	}
	return exitFor(resp.GetVerdict())
}

// checkAskID refuses what cannot be an ask id before asking limend.
func checkAskID(id string) error {
	_, err := strconv.ParseUint(id, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		// A number, only one no ask can have: an unknown id, as limend
		// would say of any other.
		return notFoundf("ask %s: not found: check the id with `limenctl pending`", id)
	}
	if err != nil {
		return usagef("%q is not an ask id: ask ids are numbers, as in the ID column of limenctl pending", id)
	}
	return nil
}
