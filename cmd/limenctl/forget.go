package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/describe"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// forgetOptions are forget's flags besides the action's.
type forgetOptions struct {
	asks         []string
	key          string
	since, until string
	last, dryRun bool
}

func newForgetCmd(a *app) *cobra.Command {
	var o forgetOptions
	var af actionFlags
	cmd := &cobra.Command{
		Use:   "forget [--ask ID]... [--key KEY] [--since T] [--until T] [--last] [--dry-run] [shell command]",
		Short: "Take back answers: limen unlearns them, the history keeps them marked forgotten",
		Long: `forget takes back answers you gave. They stay in the history, marked
forgotten, so it stays true; limen's counts are rebuilt from the answers
that remain, exactly as a fresh start on them would have them, and an
approval for the session among them ends. The calls they answered have
already run or been refused: forget changes what limen learned, not that.
Nor does it change the policy: a rule made with an answer (answer --always,
the TUI's r) stays, and forget names it; remove it with limenctl policy edit.

Say which answers, and every selector given must hold:
  --ask ID         the answer to that ask (repeat for more; ids as in limenctl history)
  --key KEY        answers to actions with that key on a part's ladder ("Bash:git push")
  a command        answers to the same action (its parts' exact keys), or --tool and --input
  --since, --until answers given in that time: a time (2026-12-01T09:00:00Z) or a
                   duration back from now (2h)
  --last           of those, only the most recent: undo your last answer

--dry-run lists what would be forgotten and forgets nothing. Like answer,
forget is refused to a shell an agent started: an agent must not unlearn
its refusals.`,
		Example: `  limenctl forget --last                     # undo my last answer
  limenctl forget --ask 41 --ask 42
  limenctl forget --key 'Bash:git push' --dry-run
  limenctl forget rm -rf build
  limenctl forget --since 2h --json`,
		RunE: func(cmd *cobra.Command, args []string) error { return runForget(cmd, a, o, &af, args) },
	}
	af.register(cmd)
	f := cmd.Flags()
	f.SetInterspersed(false) // "forget git push --force": the --force is the command's
	f.StringArrayVar(&o.asks, "ask", nil, "the answer to this ask id (repeatable)")
	f.StringVar(&o.key, "key", "", "answers to actions with this key on a part's ladder, such as Bash:git push")
	f.StringVar(&o.since, "since", "", "answers given at or after this time (RFC 3339, or a duration back from now such as 2h)")
	f.StringVar(&o.until, "until", "", "answers given before this time (RFC 3339, or a duration back from now)")
	f.BoolVar(&o.last, "last", false, "only the most recent of the answers selected (alone: your last answer)")
	f.BoolVar(&o.dryRun, "dry-run", false, "list what would be forgotten; forget nothing")
	return cmd
}

// timeFlag reads --since or --until: an RFC 3339 time, or a duration back
// from now.
func timeFlag(name, v string, now time.Time) (*timestamppb.Timestamp, error) {
	if v == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return timestamppb.New(t), nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return timestamppb.New(now.Add(-d)), nil
	}
	return nil, usagef("--%s %q is neither a time nor a duration: write it like 2026-12-01T09:00:00Z, or 2h for two hours ago", name, v)
}

// runForget is limenctl forget.
func runForget(cmd *cobra.Command, a *app, o forgetOptions, af *actionFlags, args []string) error {
	req := &limenv1.ForgetRequest{AskIds: o.asks, Key: o.key, User: af.act.User, Last: o.last, DryRun: o.dryRun}
	for _, id := range o.asks {
		if err := checkAskID(id); err != nil {
			return err
		}
	}
	now := time.Now()
	var err error
	if req.Since, err = timeFlag("since", o.since, now); err != nil {
		return err
	}
	if req.Until, err = timeFlag("until", o.until, now); err != nil {
		return err
	}
	// forget's flags end where the command starts: a --dry-run after it
	// would be part of the command, and the forget would be real.
	var flags, words []string
	for _, w := range args {
		name, _, _ := strings.Cut(w, "=")
		if strings.HasPrefix(name, "--") && cmd.Flags().Lookup(name[2:]) != nil {
			flags = append(flags, w)
		} else {
			words = append(words, w)
		}
	}
	if len(flags) > 0 {
		return usagef("%s comes after the command, where it would be read as part of the command; put forget's flags first: limenctl forget %s %s",
			flags[0], strings.Join(flags, " "), strings.Join(words, " "))
	}
	if len(args) > 0 || af.input != "" {
		if req.Action, err = af.action(args); err != nil {
			return err
		}
	}
	if len(o.asks) == 0 && o.key == "" && req.Action == nil && req.Since == nil && req.Until == nil && !o.last {
		return usagef("say which answers to forget: --last, --ask ID, --key KEY, a command, or --since/--until (see limenctl forget --help)")
	}
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	resp, err := c.API.Forget(ctx, req)
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(resp)
	}
	n := len(resp.GetAnswers())
	switch {
	case n == 0:
		fmt.Fprintln(a.out, "no answers match (answers already forgotten are left as they are)")
		return nil
	case resp.GetDryRun():
		fmt.Fprintf(a.out, "would forget %d %s (dry run: nothing was forgotten):\n", n, plural(n, "answer"))
	default:
		fmt.Fprintf(a.out, "forgot %d %s; limen's counts are rebuilt without them, and the history shows them as forgotten:\n", n, plural(n, "answer"))
	}
	w := a.table()
	fmt.Fprintln(w, "ASK\tTIME\tUSER\tANSWER\tACTION\tKEYS")
	for _, f := range resp.GetAnswers() {
		answer := strings.ToLower(strings.TrimPrefix(f.GetChoice().String(), "CHOICE_"))
		if f.GetScope() == limenv1.Scope_SCOPE_SESSION {
			answer += " (session)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", f.GetAskId(), f.GetTime().AsTime().Local().Format(time.DateTime),
			f.GetAction().GetUser(), answer, shorten(describe.Action(f.GetAction()), 50), shorten(strings.Join(f.GetKeys(), ", "), 60))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return printRulesKept(ctx, a, c, resp)
}

// maxRuleLookups bounds the history reads printRulesKept makes, one per
// answer: forgetting a day of answers need not read each one's record.
const maxRuleLookups = 20

// printRulesKept says which rules made with the forgotten answers
// (answer --always, the TUI's r) are still in the policy: forgetting an
// answer unlearns it, but leaves the rule, which still allows (or
// blocks) the action for everyone.
func printRulesKept(ctx context.Context, a *app, c *client.Client, resp *limenv1.ForgetResponse) error {
	type made struct{ ask, rule string }
	var rules []made
	for i, f := range resp.GetAnswers() {
		if i == maxRuleLookups {
			break
		}
		id, err := strconv.ParseUint(f.GetAskId(), 10, 64)
		if err != nil {
			continue
		}
		// An ask has its decision's id: the one decision before id+1.
		h, err := c.API.History(ctx, &limenv1.HistoryRequest{Limit: 1, User: f.GetAction().GetUser(), BeforeId: strconv.FormatUint(id+1, 10)})
		if err != nil {
			return err
		}
		for _, d := range h.GetDecisions() {
			if rule := describe.RuleMade(d.GetOutcome().GetNote()); d.GetAskId() == f.GetAskId() && rule != "" {
				rules = append(rules, made{f.GetAskId(), rule})
			}
		}
	}
	if len(rules) == 0 {
		return nil
	}
	cur, err := c.GetPolicy(ctx)
	if err != nil {
		return err
	}
	inForce := map[string]bool{}
	if pol, err := policy.Parse(cur.GetDocument()); err == nil {
		for _, r := range slices.Concat(pol.Allow, pol.Ask, pol.Block) {
			inForce[r.Pattern] = true
		}
	}
	stays := "stays"
	if resp.GetDryRun() {
		stays = "would stay"
	}
	for _, m := range rules {
		if inForce[m.rule] {
			fmt.Fprintf(a.out, "the rule %s made with ask %s %s in the policy, which forgetting does not change: remove it with limenctl policy edit (limenctl policy history shows when it was added)\n", m.rule, m.ask, stays)
		}
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
