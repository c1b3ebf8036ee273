package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/limenhq/limen/internal/describe"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/syntax"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// decideOptions are decide's flags: the action's fields, and whether to
// wait for a person.
type decideOptions struct {
	tool, input, cwd, user, agent, session string
	wait                                   bool
	waitFor                                time.Duration
}

func newDecideCmd(a *app) *cobra.Command {
	var o decideOptions
	cmd := &cobra.Command{
		Use:   "decide [shell command]",
		Short: "Ask limend whether an action may run",
		Long: `decide asks limend for a verdict on one action, exactly as an agent runtime
would: allow, ask (a person decides) or block. A shell command can be given as
arguments; any other tool with --tool and --input (its arguments as JSON).
One argument is the command as written ('rm -rf build && make'); several are
quoted again as the shell needs them, so decide git commit -m "fix bug"
decides git commit -m 'fix bug'.

An ask is queued for a person: answer it with limenctl answer, or pass --wait
to wait here for the answer.

decide exits 0 only when the verdict is allow: 5 for ask, 6 for block, so
'limenctl decide "$cmd" && sh -c "$cmd"' never runs what limen did not allow.`,
		Example: `  limenctl decide git status
  limenctl decide 'rm -rf build && make'
  limenctl decide --tool Edit --input '{"file_path":"src/main.go"}'
  limenctl decide --tool mcp__github__create_issue --input '{"owner":"acme","repo":"shop","title":"bug"}'
  limenctl decide --wait git push --force`,
		RunE: func(cmd *cobra.Command, args []string) error { return runDecide(cmd, a, o, args) },
	}
	f := cmd.Flags()
	// Everything after the first word of the command belongs to the
	// command: `limenctl decide git push --force` must not read --force.
	f.SetInterspersed(false)
	f.StringVar(&o.tool, "tool", "Bash", "the tool, as the runtime names it (Bash, Read, Edit, Write, WebFetch, mcp__server__tool …)")
	f.StringVar(&o.input, "input", "", "the tool's arguments as a JSON object")
	f.StringVar(&o.cwd, "cwd", "", "the agent's working directory (default: the current directory)")
	f.StringVar(&o.user, "user", "", "the user the agent acts for (default: you)")
	f.StringVar(&o.agent, "agent", "limenctl", "the agent runtime's name")
	f.StringVar(&o.session, "session", "", "the agent's session id: decide as one call of an agent's run, whose asks approved --session are allowed again in it")
	f.BoolVar(&o.wait, "wait", false, "if limend asks, wait here for a person's answer")
	f.DurationVar(&o.waitFor, "wait-timeout", 0, "with --wait, give up after this long (default: until the ask expires)")
	return cmd
}

// runDecide is limenctl decide: args is the shell command, if any.
func runDecide(cmd *cobra.Command, a *app, o decideOptions, args []string) error {
	act := &limenv1.Action{Tool: o.tool, Cwd: o.cwd, User: o.user, Agent: o.agent, Session: o.session}
	input := o.input
	switch {
	case len(args) > 0 && input != "":
		return usagef("give either a shell command as arguments or --input, not both")
	case len(args) > 0:
		if act.Tool != "Bash" {
			return usagef("arguments are a shell command, which only makes sense with --tool Bash; use --input for %s", act.Tool)
		}
		command, err := shellCommand(args)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(map[string]string{"command": command})
		input = string(b)
	case input == "":
		return usagef("nothing to decide: give a shell command (limenctl decide git status) or --tool and --input")
	}
	if !json.Valid([]byte(input)) {
		return usagef("--input is not valid JSON: give the tool's arguments as an object, such as '{\"file_path\":\"main.go\"}'")
	}
	act.InputJson = input
	if act.Cwd == "" {
		act.Cwd, _ = os.Getwd()
	}
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	resp, err := c.API.Decide(ctx, &limenv1.DecideRequest{Action: act})
	if err != nil {
		return err
	}
	d := resp.GetDecision()
	if !o.wait || d.GetAskId() == "" {
		if a.json {
			if err := a.printJSON(d); err != nil {
				return err
			}
		} else {
			printDecision(a, d, describe.AnswerChoicesUnawaited(d)) // this decide returns now: nobody waits
		}
		return exitFor(d.GetVerdict())
	}
	if !a.json {
		printDecision(a, d, describe.AnswerChoices(d))
		fmt.Fprintf(a.out, "\nwaiting for a person to answer ask %s (limenctl answer %s --approve)…\n", d.GetAskId(), d.GetAskId())
	}
	aw, err := c.AwaitAcross(cmd.Context(), d.GetAskId(), o.waitFor) // survives a restart of limend
	if err != nil {
		return err
	}
	if a.json {
		if err := a.printJSON(aw); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.out, "%s: %s\n", describe.Verdict(aw.GetVerdict()), aw.GetReason())
	}
	return exitFor(aw.GetVerdict())
}

// shellCommand makes the command limend decides from decide's arguments.
// One argument is the command as written ('rm -rf build && make'); several
// are the words the shell already split, so each is quoted as the shell
// would need it: decide git commit -m "fix bug" decides
// git commit -m 'fix bug', not git commit -m fix bug.
func shellCommand(args []string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	words := make([]string, len(args))
	for i, arg := range args {
		q, err := syntax.Quote(arg, syntax.LangBash)
		if err != nil {
			return "", usagef("argument %d (%q) cannot be quoted for the shell: %v; give the whole command as one quoted argument", i+1, arg, err)
		}
		words[i] = q
	}
	return strings.Join(words, " "), nil
}

func printDecision(a *app, d *limenv1.Decision, choices []describe.AnswerChoice) {
	w := a.table()
	fmt.Fprintf(w, "verdict\t%s\n", describe.Verdict(d.GetVerdict()))
	fmt.Fprintf(w, "reason\t%s\n", d.GetReason())
	printAction(w, d)
	if d.GetDecidedBy() == limenv1.Decider_DECIDER_PREDICTION {
		th := d.GetThresholds()
		fmt.Fprintf(w, "p(approve)\t%.3f  (block below %.3f, allow above %.3f)\n", d.GetP(), th.GetBlockBelow(), th.GetAllowAbove())
		ev := d.GetEvidence()
		level := ev.GetLevel()
		if level == "" || level == "prior" {
			level = "organisation prior (no answers of yours yet)"
		}
		fmt.Fprintf(w, "evidence\t%s: %.0f approved, %.0f denied, weight %.1f\n", level, ev.GetApprovals(), ev.GetDenials(), ev.GetEffectiveCount())
	}
	if d.GetRiskClass() != "" {
		fmt.Fprintf(w, "risk class\t%s\n", describe.RiskClass(d))
	}
	if d.GetKey() != "" {
		fmt.Fprintf(w, "key\t%s\n", d.GetKey())
	}
	fmt.Fprintf(w, "decided by\t%s\n", describe.Decider(d.GetDecidedBy()))
	if d.GetDecisionId() != "" {
		fmt.Fprintf(w, "decision\t%s (policy v%d)\n", d.GetDecisionId(), d.GetPolicyVersion())
	}
	if id := d.GetAskId(); id != "" {
		fmt.Fprintf(w, "ask\t%s  →  limenctl answer %s --approve   (or --deny)\n", id, id)
	}
	w.Flush()
	if len(d.GetParts()) > 1 {
		fmt.Fprintln(a.out)
		printParts(a, d)
	}
	if d.GetAskId() != "" {
		fmt.Fprintln(a.out)
		printAnswerChoices(a, d, choices)
	}
}
