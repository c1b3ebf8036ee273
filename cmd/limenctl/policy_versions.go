package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/client"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// listVersions returns every stored policy version, oldest first.
func listVersions(ctx context.Context, c *client.Client) ([]*limenv1.Policy, error) {
	resp, err := c.API.ListPolicyVersions(ctx, &limenv1.ListPolicyVersionsRequest{})
	if err != nil {
		return nil, err
	}
	if len(resp.GetPolicies()) == 0 {
		return nil, fmt.Errorf("limend holds no policy version; it stores the default when it starts, so check its log")
	}
	return resp.GetPolicies(), nil
}

// findVersion picks version s ("3" or "v3") out of vs.
func findVersion(vs []*limenv1.Policy, s string) (*limenv1.Policy, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "v"), 10, 64)
	if err != nil {
		return nil, usagef("%q is not a policy version: give its number, such as 3 (limenctl policy history lists them)", s)
	}
	for _, v := range vs {
		if v.GetVersion() == n {
			return v, nil
		}
	}
	return nil, notFoundf("there is no policy version %d: the versions are %d to %d (limenctl policy history lists them)",
		n, vs[0].GetVersion(), vs[len(vs)-1].GetVersion())
}

// versionLabel names a version for diff headers and messages.
func versionLabel(p *limenv1.Policy) string {
	return fmt.Sprintf("policy v%d (set by %s at %s)", p.GetVersion(), p.GetAuthor(), p.GetTime().AsTime().Local().Format("2006-01-02 15:04:05"))
}

func newPolicyDiffCmd(a *app) *cobra.Command {
	var context int
	cmd := &cobra.Command{
		Use:   "diff [V1] [V2]",
		Short: "Show what changed between two policy versions",
		Long: `diff prints a unified diff of two stored versions of the policy document.
With no arguments it compares the previous version with the one in force;
with one, that version with the one in force.`,
		Example: `  limenctl policy diff          # previous → in force
  limenctl policy diff 3        # v3 → in force
  limenctl policy diff 3 5`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return runPolicyDiff(cmd, a, context, args) },
	}
	cmd.Flags().IntVarP(&context, "context", "U", 3, "lines of context around each change")
	return cmd
}

// runPolicyDiff is limenctl policy diff [FROM [TO]], with context lines around each change.
func runPolicyDiff(cmd *cobra.Command, a *app, context int, args []string) error {
	if context < 0 {
		return usagef("--context must be 0 or more lines")
	}
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	vs, err := listVersions(ctx, c)
	if err != nil {
		return err
	}
	from, to := (*limenv1.Policy)(nil), vs[len(vs)-1]
	switch len(args) {
	case 0:
		if len(vs) < 2 {
			fmt.Fprintf(a.out, "only version %d exists, so there is nothing to compare yet\n", to.GetVersion())
			return nil
		}
		from = vs[len(vs)-2]
	case 1:
		if from, err = findVersion(vs, args[0]); err != nil {
			return err
		}
	case 2:
		if from, err = findVersion(vs, args[0]); err != nil {
			return err
		}
		if to, err = findVersion(vs, args[1]); err != nil {
			return err
		}
	}
	diff := unifiedDiff(from.GetDocument(), to.GetDocument(), versionLabel(from), versionLabel(to), context)
	if a.json {
		return a.printJSON(map[string]any{"from": from.GetVersion(), "to": to.GetVersion(), "diff": diff})
	}
	if diff == "" {
		fmt.Fprintf(a.out, "versions %d and %d have the same document\n", from.GetVersion(), to.GetVersion())
		return nil
	}
	_, err = io.WriteString(a.out, diff)
	return err
}

func newPolicyHistoryCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "history",
		Short: "List every version of the policy, who set it and when",
		Long: `history lists the stored versions of the policy, oldest first: when each was
set, by whom (the OS user that called limend), and how many lines changed
from the version before. Every version is kept; limenctl policy diff shows a
change and limenctl policy rollback brings an old version back.`,
		Example: `  limenctl policy history
  limenctl policy history --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPolicyHistory(cmd, a) },
	}
}

// runPolicyHistory is limenctl policy history.
func runPolicyHistory(cmd *cobra.Command, a *app) error {
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	resp, err := c.API.ListPolicyVersions(ctx, &limenv1.ListPolicyVersionsRequest{})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(resp)
	}
	vs := resp.GetPolicies()
	w := a.table()
	fmt.Fprintln(w, "VERSION\tSET AT\tBY\tCHANGE")
	for i, v := range vs {
		change := "first version"
		if i > 0 {
			added, removed := diffStat(vs[i-1].GetDocument(), v.GetDocument())
			change = fmt.Sprintf("+%d -%d lines", added, removed)
			if added+removed == 0 {
				change = "same document as v" + strconv.FormatUint(vs[i-1].GetVersion(), 10)
			}
		}
		if i == len(vs)-1 {
			change += "  (in force)"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", v.GetVersion(), v.GetTime().AsTime().Local().Format("2006-01-02 15:04:05"), dash(v.GetAuthor()), change)
	}
	return w.Flush()
}

func newPolicyRollbackCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rollback VERSION",
		Short: "Bring back the document of an earlier policy version",
		Long: `rollback sets the document of an earlier version as a new version, so the
history keeps both the change and its undoing. It is validated like any
other change and set as a compare-and-set on the version in force: if
someone changes the policy at the same moment, one of you is refused.`,
		Example: `  limenctl policy history
  limenctl policy rollback 3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPolicyRollback(cmd, a, args) },
	}
}

// runPolicyRollback is limenctl policy rollback VERSION.
func runPolicyRollback(cmd *cobra.Command, a *app, args []string) error {
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	vs, err := listVersions(ctx, c)
	if err != nil {
		return err
	}
	target, err := findVersion(vs, args[0])
	if err != nil {
		return err
	}
	cur := vs[len(vs)-1]
	switch {
	case target.GetVersion() == cur.GetVersion():
		fmt.Fprintf(a.out, "version %d is the one in force; nothing to do\n", cur.GetVersion())
		return nil
	case target.GetDocument() == cur.GetDocument():
		fmt.Fprintf(a.out, "version %d has the same document as version %d, which is in force; nothing to do\n", target.GetVersion(), cur.GetVersion())
		return nil
	}
	if _, err := validate(target.GetDocument()); err != nil {
		return fmt.Errorf("version %d cannot be brought back as it is: %w", target.GetVersion(), err)
	}
	resp, err := c.API.SetPolicy(ctx, &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetVersion(), Document: target.GetDocument()})
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(resp.GetPolicy())
	}
	added, removed := diffStat(cur.GetDocument(), target.GetDocument())
	fmt.Fprintf(a.out, "policy is now version %d: the document of %s (+%d -%d lines from v%d)\n",
		resp.GetPolicy().GetVersion(), versionLabel(target), added, removed, cur.GetVersion())
	printClasses(a, resp.GetPolicy())
	return nil
}
