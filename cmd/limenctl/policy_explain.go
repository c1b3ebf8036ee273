package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/describe"
	"github.com/limenhq/limen/internal/engine"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// actionFlags are the flags that describe an action, as limenctl decide
// takes them.
type actionFlags struct {
	act   limenv1.Action
	input string
}

func (f *actionFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.act.Tool, "tool", "Bash", "the tool, as the runtime names it (Bash, Read, Edit, Write, WebFetch, mcp__server__tool …)")
	fs.StringVar(&f.input, "input", "", "the tool's arguments as a JSON object")
	fs.StringVar(&f.act.Cwd, "cwd", "", "the agent's working directory (default: the current directory)")
	fs.StringVar(&f.act.User, "user", "", "the user the agent acts for (default: you)")
	fs.StringVar(&f.act.Agent, "agent", "limenctl", "the agent runtime's name")
	fs.StringVar(&f.act.Session, "session", "", "the agent's session id")
}

// action builds the action from the flags and a shell command given as
// arguments.
func (f *actionFlags) action(args []string) (*limenv1.Action, error) {
	input := f.input
	switch {
	case len(args) > 0 && input != "":
		return nil, usagef("give either a shell command as arguments or --input, not both")
	case len(args) > 0:
		if f.act.Tool != "Bash" {
			return nil, usagef("arguments are a shell command, which only makes sense with --tool Bash; use --input for %s", f.act.Tool)
		}
		b, _ := json.Marshal(map[string]string{"command": strings.Join(args, " ")})
		input = string(b)
	case input == "":
		return nil, usagef("nothing to explain: give a shell command (limenctl policy explain git push) or --tool and --input")
	}
	if !json.Valid([]byte(input)) {
		return nil, usagef("--input is not valid JSON: give the tool's arguments as an object, such as '{\"file_path\":\"main.go\"}'")
	}
	act := &limenv1.Action{User: f.act.User, Agent: f.act.Agent, Session: f.act.Session, Tool: f.act.Tool, InputJson: input, Cwd: f.act.Cwd}
	if act.Cwd == "" {
		act.Cwd, _ = os.Getwd()
	}
	return act, nil
}

// partView is one part of an action as the policy sees it.
type partView struct {
	Part  string `json:"part"`
	Key   string `json:"key"`
	Class string `json:"class"`
	Rule  string `json:"rule,omitempty"`
}

// verdictCosts are the expected costs of the three verdicts.
type verdictCosts struct {
	Allow float64 `json:"allow"`
	Ask   float64 `json:"ask"`
	Block float64 `json:"block"`
}

// explanation is what explain prints with --json.
type explanation struct {
	Decision json.RawMessage `json:"decision"`
	Parts    []partView      `json:"parts"`
	Costs    *verdictCosts   `json:"costs,omitempty"`
	Expected *verdictCosts   `json:"expected_cost,omitempty"`
	Cheapest string          `json:"cheapest,omitempty"`
	Why      string          `json:"why"`
}

func newPolicyExplainCmd(a *app) *cobra.Command {
	var af actionFlags
	var decision string
	cmd := &cobra.Command{
		Use:   "explain [shell command]",
		Short: "Show why an action gets its verdict: rule or class, p, thresholds and costs",
		Long: `explain decides an action as a dry run (nothing is recorded, no ask is queued,
no exploration) and shows how the policy in force reaches the verdict: the
parts of the action with the risk class and the hard rule of each, the
approval probability p and the evidence behind it, the class's thresholds,
and the expected cost of allowing, asking and blocking, with why the chosen
verdict wins. It takes the same action flags as limenctl decide.`,
		Example: `  limenctl policy explain git push --force
  limenctl policy explain 'curl -s https://x.sh | sh'
  limenctl policy explain --tool Read --input '{"file_path":".env"}'
  limenctl policy explain --user bob --json npm run test
  limenctl policy explain --decision 41     # a recorded decision, as things stood then`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if decision != "" {
				if len(args) > 0 || af.input != "" {
					return usagef("give either --decision ID or an action, not both")
				}
				return runPolicyExplainDecision(cmd, a, decision) // history_show.go
			}
			return runPolicyExplain(cmd, a, &af, args)
		},
	}
	af.register(cmd)
	cmd.Flags().StringVar(&decision, "decision", "", "explain this recorded decision instead, on the evidence and policy of its time")
	// Flags go before the command: in "explain git push --force" the
	// --force is the command's.
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// runPolicyExplain is limenctl policy explain: a dry-run decision of the
// action and the policy it was decided under, read back step by step.
func runPolicyExplain(cmd *cobra.Command, a *app, af *actionFlags, args []string) error {
	act, err := af.action(args)
	if err != nil {
		return err
	}
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	var d *limenv1.Decision
	var pol *limenv1.Policy
	// The policy may change between the two calls: read it again
	// until both are of the same version.
	for range 3 {
		resp, err := c.API.Decide(ctx, &limenv1.DecideRequest{Action: act, DryRun: true})
		if err != nil {
			return err
		}
		d = resp.GetDecision()
		if pol, err = getPolicy(ctx, c); err != nil {
			return err
		}
		if pol.GetVersion() == d.GetPolicyVersion() {
			break
		}
	}
	ex := explain(d, pol)
	if a.json {
		ex.Decision, err = protojson.MarshalOptions{UseProtoNames: true}.Marshal(d)
		if err != nil {
			return err
		}
		return a.printJSON(ex)
	}
	printExplanation(a, d, ex)
	return nil
}

// explain reads back a decision under the policy document pol: the
// engine works out the parts, the costs and the reasoning
// (engine.ExplainDecision); this only converts them for printing.
func explain(d *limenv1.Decision, pol *limenv1.Policy) explanation {
	parsed, err := policy.Parse(pol.GetDocument())
	if err != nil {
		parsed = nil // explained as a policy that does not parse
	}
	act := convert.Preview(d.GetAction())
	e := engine.ExplainDecision(parsed, action.Parts(act), convert.Env(act), engine.Decided{
		Verdict: convert.Verdict(d.GetVerdict()), DecidedBy: convert.DecidedBy(d.GetDecidedBy()),
		Class: d.GetRiskClass(), P: d.GetP(), Reason: d.GetReason(),
	})
	ex := explanation{Parts: make([]partView, 0, len(e.Parts)), Why: e.Why}
	for _, p := range e.Parts {
		ex.Parts = append(ex.Parts, partView{Part: p.Part, Key: p.Key, Class: p.Class, Rule: p.Rule})
	}
	if e.Expected != nil {
		ex.Costs = (*verdictCosts)(e.Costs)
		ex.Expected = (*verdictCosts)(e.Expected)
		ex.Cheapest = e.Cheapest.String()
	}
	return ex
}

func printExplanation(a *app, d *limenv1.Decision, ex explanation) {
	w := a.table()
	printAction(w, d)
	fmt.Fprintf(w, "verdict\t%s  (decided by %s, policy v%d)\n", describe.Verdict(d.GetVerdict()), describe.Decider(d.GetDecidedBy()), d.GetPolicyVersion())
	fmt.Fprintf(w, "reason\t%s\n", d.GetReason())
	w.Flush()

	if len(d.GetParts()) > 0 {
		// What limend read, each part's own verdict and p included.
		fmt.Fprintln(a.out)
		printParts(a, d)
	} else if len(ex.Parts) > 0 {
		fmt.Fprintln(a.out)
		w = a.table()
		fmt.Fprintln(w, "PART\tCLASS\tRULE\tKEY")
		for _, p := range ex.Parts {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", shorten(p.Part, 50), p.Class, dash(p.Rule), shorten(p.Key, 50))
		}
		w.Flush()
	}

	if ex.Expected != nil {
		p, th, c := d.GetP(), d.GetThresholds(), ex.Costs
		ev := d.GetEvidence()
		level := ev.GetLevel()
		if level == "" || level == "prior" {
			level = "the organisation prior (this user has not answered anything like it yet)"
		}
		fmt.Fprintln(a.out)
		w = a.table()
		fmt.Fprintf(w, "deciding part\t%s\n", d.GetKey())
		fmt.Fprintf(w, "risk class\t%s: C_allow %g, C_block %g, C_ask %g\n", d.GetRiskClass(), c.Allow, c.Block, c.Ask)
		fmt.Fprintf(w, "p(approve)\t%.3f from %s: %.1f approved, %.1f denied, weight %.1f\n", p, level, ev.GetApprovals(), ev.GetDenials(), ev.GetEffectiveCount())
		fmt.Fprintf(w, "thresholds\tblock below %.3f, allow above %.3f\n", th.GetBlockBelow(), th.GetAllowAbove())
		w.Flush()

		fmt.Fprintf(a.out, "\nexpected cost of each verdict at p=%.3f:\n", p)
		w = a.table()
		mark := func(v string) string {
			if v == describe.Verdict(d.GetVerdict()) {
				return "← chosen"
			}
			return ""
		}
		fmt.Fprintf(w, "  allow\t(1-p)·C_allow\t= %.3f × %g\t= %.3f\t%s\n", 1-p, c.Allow, ex.Expected.Allow, mark("allow"))
		fmt.Fprintf(w, "  ask\tC_ask\t= %g\t= %.3f\t%s\n", c.Ask, ex.Expected.Ask, mark("ask"))
		fmt.Fprintf(w, "  block\tp·C_block\t= %.3f × %g\t= %.3f\t%s\n", p, c.Block, ex.Expected.Block, mark("block"))
		w.Flush()
	}
	fmt.Fprintf(a.out, "\nwhy: %s\n", ex.Why)
}
