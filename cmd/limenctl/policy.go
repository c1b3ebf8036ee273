package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func newPolicyCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Show and change the policy: costs, risk classes and rules",
		Long: `The policy is a TOML document kept by limend in versions. Its costs say what
a wrong allow, a wrong block and an interruption cost; limend turns them into
the two probability thresholds between allow, ask and block, per risk class.
Hard rules in Claude Code's syntax sit above the prediction.

Change it with set or edit (validated first; a version conflict is refused).
Before you apply a change, simulate replays the recorded decisions under it.
explain shows why an action gets its verdict; history, diff and rollback work
on the stored versions. The format is described in docs/policy.md.`,
		Example: `  limenctl policy show
  limenctl policy explain git push --force
  limenctl policy show --document > p.toml && $EDITOR p.toml
  limenctl policy simulate p.toml && limenctl policy set p.toml`,
	}
	cmd.AddCommand(
		newPolicyShowCmd(a), newPolicySetCmd(a), newPolicyEditCmd(a), newPolicyExplainCmd(a),
		newPolicyDiffCmd(a), newPolicyHistoryCmd(a), newPolicyRollbackCmd(a),
		newPolicySimulateCmd(a), newPolicyImportClaudeCmd(a),
	)
	return cmd
}

// getPolicy returns the policy in force.
func getPolicy(ctx context.Context, c *client.Client) (*limenv1.Policy, error) {
	resp, err := c.API.GetPolicy(ctx, &limenv1.GetPolicyRequest{})
	if err != nil {
		return nil, err
	}
	return resp.GetPolicy(), nil
}

// readDocument reads a policy document from a file, or from stdin for "-".
func readDocument(cmd *cobra.Command, name string) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(cmd.InOrStdin())
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", usagef("read policy: %v", err)
	}
	return string(b), nil
}

// validate parses a document here, before it is sent, so that a mistake is
// shown with every field at fault and nothing is changed.
func validate(doc string) (*policy.Policy, error) {
	pol, err := policy.Parse(doc)
	if err != nil {
		return nil, badInputf("the policy is not valid, nothing was changed:\n%v", indent(err.Error()))
	}
	return pol, nil
}

// indent puts two spaces before every line of s.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// printRules lists the hard rules of a document in the order they are
// checked.
func printRules(a *app, doc string) {
	fmt.Fprintln(a.out)
	pol, err := policy.Parse(doc)
	if err != nil {
		fmt.Fprintf(a.out, "this document does not parse, so every decision is ask until a valid one is set:\n%s\n", indent(err.Error()))
		return
	}
	if len(pol.Block)+len(pol.Ask)+len(pol.Allow) == 0 {
		fmt.Fprintln(a.out, "no hard rules: the prediction decides everything")
		return
	}
	w := a.table()
	fmt.Fprintln(w, "RULE\tPATTERN")
	for _, list := range [][]policy.Rule{pol.Block, pol.Ask, pol.Allow} {
		for _, r := range list {
			fmt.Fprintf(w, "%s\t%s\n", r.Verdict, r.Pattern)
		}
	}
	w.Flush()
	fmt.Fprintln(a.out, "(block rules win over ask rules, ask over allow, allow over the prediction; each part of a compound command is checked on its own)")
}

func newPolicyShowCmd(a *app) *cobra.Command {
	var docOnly bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the policy in force and the thresholds it gives",
		Example: `  limenctl policy show
  limenctl policy show --document > policy.toml   # edit, then: limenctl policy set policy.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPolicyShow(cmd, a, docOnly) },
	}
	cmd.Flags().BoolVar(&docOnly, "document", false, "print only the TOML document")
	return cmd
}

// runPolicyShow is limenctl policy show; docOnly is --document.
func runPolicyShow(cmd *cobra.Command, a *app, docOnly bool) error {
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	resp, err := c.API.GetPolicy(ctx, &limenv1.GetPolicyRequest{})
	if err != nil {
		return err
	}
	p := resp.GetPolicy()
	switch {
	case a.json:
		return a.printJSON(p)
	case docOnly:
		doc := stampVersion(p.GetDocument(), p.GetVersion())
		if left := policy.LeftOut(p.GetDocument()); len(left) > 0 && !strings.Contains(doc, leftOutNote) {
			// Say what is in force beyond the text, so that a person
			// editing it does not take the missing lists for empty.
			if !strings.HasSuffix(doc, "\n") {
				doc += "\n"
			}
			doc += "\n" + leftOutNote + strings.Join(left, ", ") +
				": the shipped ones apply (limenctl policy show lists them; docs/policy.md has the default document)\n"
		}
		_, err := io.WriteString(a.out, doc)
		return err
	}
	fmt.Fprintf(a.out, "policy version %d, set by %s at %s\n", p.GetVersion(), p.GetAuthor(), p.GetTime().AsTime().Local().Format("2006-01-02 15:04"))
	printClasses(a, p)
	printRules(a, p.GetDocument())
	fmt.Fprintln(a.out, "\n(limenctl policy show --document prints the TOML; limenctl policy edit changes it)")
	return nil
}

// leftOutNote starts the line policy show --document adds to a document
// that leaves rule lists or classes out (once: a document set back with it
// keeps it as a comment).
const leftOutNote = "# limen: this document leaves out "

// versionStamp starts the first line of an exported document; policy set
// reads it back so that a file edited from an old version cannot silently
// undo a change made since.
const versionStamp = "# limen: exported from policy version "

// stampVersion prefixes doc with the version it was exported from.
func stampVersion(doc string, v uint64) string {
	return fmt.Sprintf("%s%d; limenctl policy set refuses it if the policy changed since\n", versionStamp, v) + doc
}

// baseVersion reads and removes the stamp, if the document has one.
func baseVersion(doc string) (v uint64, ok bool, rest string) {
	first, rest, _ := strings.Cut(doc, "\n")
	num, found := strings.CutPrefix(first, versionStamp)
	if !found {
		return 0, false, doc
	}
	num, _, _ = strings.Cut(num, ";")
	v, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
	if err != nil {
		return 0, false, doc
	}
	return v, true, rest
}

// policySetOptions are policy set's flags; baseSet says --base-version
// was given.
type policySetOptions struct {
	costs   string
	base    uint64
	baseSet bool
	replace bool
}

func newPolicySetCmd(a *app) *cobra.Command {
	var o policySetOptions
	cmd := &cobra.Command{
		Use:   "set [FILE | -]",
		Short: "Replace the policy (validated first; the old one stays if anything is wrong)",
		Long: `set replaces the policy with a TOML document from FILE (or - for stdin), or
changes only the default costs with --costs. The document is validated here
and again by limend; nothing changes unless it is valid. The change is a
compare-and-set: a file written by policy show --document names the version
it came from, and set refuses it (exit 4) if the policy changed since, so an
old file cannot silently undo someone else's change.

The document replaces the one in force. Keys it leaves out take the shipped
defaults, not the values in force: an empty file is the shipped policy, and
a file with only [costs] keeps the shipped rules and classes but drops any
rule added since. So set refuses a document that would drop a rule, a class
or a setting in force, and lists them: add them to the file (policy show
--document writes the whole policy in force), or pass --replace to drop them.`,
		Example: `  limenctl policy set --costs allow=20,block=2,ask=1
  limenctl policy show --document > p.toml && $EDITOR p.toml && limenctl policy set p.toml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.baseSet = cmd.Flags().Changed("base-version")
			return runPolicySet(cmd, a, o, args)
		},
	}
	cmd.Flags().StringVar(&o.costs, "costs", "", "new default costs as allow=N,block=N,ask=N (any subset)")
	cmd.Flags().BoolVar(&o.replace, "replace", false, "set the document even though it drops rules, classes or settings in force")
	cmd.Flags().Uint64Var(&o.base, "base-version", 0, "the version FILE was edited from (default: the version line that policy show --document writes)")
	return cmd
}

// runPolicySet is limenctl policy set [FILE | -].
func runPolicySet(cmd *cobra.Command, a *app, o policySetOptions, args []string) error {
	if (len(args) == 1) == (o.costs != "") {
		return usagef("give a policy file (or -) or --costs, exactly one")
	}
	var doc string
	var based uint64
	var stamped bool
	var cs costEdit
	if o.costs != "" {
		// Before limend is asked anything: a mistake in the flag
		// needs no daemon to be explained.
		var err error
		if cs, err = parseCosts(o.costs); err != nil {
			return err
		}
	}
	if len(args) == 1 {
		var err error
		if doc, err = readDocument(cmd, args[0]); err != nil {
			return err
		}
		based, stamped, doc = baseVersion(doc)
	}
	if o.baseSet {
		based, stamped = o.base, true
	}
	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	cur, err := c.API.GetPolicy(ctx, &limenv1.GetPolicyRequest{})
	if err != nil {
		return err
	}
	if o.costs != "" {
		doc = setCosts(cur.GetPolicy().GetDocument(), cs)
	}
	if _, err := validate(doc); err != nil {
		return err
	}
	if drops := policyDrops(cur.GetPolicy().GetDocument(), doc); len(drops) > 0 && !o.replace {
		return usagef("this document would drop what policy version %d has, so nothing was changed:\n%s\n"+
			"add them to the file (limenctl policy show --document writes the whole policy in force), or pass --replace to drop them",
			cur.GetPolicy().GetVersion(), indent(strings.Join(drops, "\n")))
	}
	expected := cur.GetPolicy().GetVersion()
	if stamped && o.costs == "" {
		// The file says which version it was edited from: set it
		// only if nobody changed the policy since.
		expected = based
	}
	set, err := c.SetPolicy(ctx, expected, doc)
	if errors.Is(err, client.ErrPolicyChanged) {
		return fmt.Errorf("%w\nhint: the policy changed after version %d was exported; see limenctl policy diff %d %d, export it again, or pass --base-version %d to replace it anyway",
			err, expected, expected, cur.GetPolicy().GetVersion(), cur.GetPolicy().GetVersion())
	}
	if err != nil {
		return err
	}
	if a.json {
		return a.printJSON(set)
	}
	if !stamped && o.costs == "" {
		fmt.Fprintf(a.out, "replaced version %d (the file did not say which version it was edited from)\n", expected)
	}
	fmt.Fprintf(a.out, "policy is now version %d\n", set.GetVersion())
	printDropped(a, cur.GetPolicy().GetDocument(), doc)
	printClasses(a, set)
	return nil
}

// printDropped lists the rules and classes in force under the old document
// that the new one no longer has: a hand-written file that leaves a list
// out gets the shipped one, which may lack rules added since.
func printDropped(a *app, oldDoc, newDoc string) {
	old, err1 := policy.Parse(oldDoc)
	now, err2 := policy.Parse(newDoc)
	if err1 != nil || err2 != nil {
		return
	}
	lists := func(p *policy.Policy) map[string][]string {
		return map[string][]string{"block": patterns(p.Block), "ask": patterns(p.Ask), "allow": patterns(p.Allow)}
	}
	was, is := lists(old), lists(now)
	for _, list := range ruleLists {
		for _, r := range was[list] {
			if !slices.Contains(is[list], r) {
				fmt.Fprintf(a.out, "  dropped: rules.%s %s\n", list, r)
			}
		}
	}
	for _, c := range old.Classes {
		if now.Class(c.Name) == nil {
			fmt.Fprintf(a.out, "  dropped: class %s\n", c.Name)
		}
	}
}

// costEdit is the subset of costs given with --costs.
type costEdit map[string]float64

func parseCosts(s string) (costEdit, error) {
	out := costEdit{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, usagef("--costs %q: write name=value pairs, such as allow=20,block=2,ask=1", s)
		}
		k = strings.TrimSpace(k)
		f, err := parseCostValue(k, v)
		if err != nil {
			return nil, err
		}
		out[k] = f
	}
	return out, nil
}

// setCosts rewrites the values in the document's [costs] table, keeping
// every comment and everything else as it was.
func setCosts(doc string, edit costEdit) string {
	lines := strings.Split(doc, "\n")
	in, seen := false, map[string]bool{}
	end := -1
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			if in {
				end = i
				break
			}
			in = t == "[costs]"
			continue
		}
		if !in {
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		k = strings.TrimSpace(k)
		if v, want := edit[k]; ok && want {
			// Keep the line's comment, which says what the cost means.
			comment := ""
			if j := strings.Index(line, "#"); j >= 0 {
				comment = "  " + line[j:]
			}
			lines[i] = fmt.Sprintf("%s = %s%s", k, strconv.FormatFloat(v, 'f', -1, 64), comment)
			seen[k] = true
		}
	}
	var missing []string
	for _, k := range []string{"allow", "block", "ask"} {
		if v, ok := edit[k]; ok && !seen[k] {
			missing = append(missing, fmt.Sprintf("%s = %s", k, strconv.FormatFloat(v, 'f', -1, 64)))
		}
	}
	if len(missing) == 0 {
		return strings.Join(lines, "\n")
	}
	if !in && end < 0 {
		// No [costs] table yet: add one at the top, before any other table.
		return "[costs]\n" + strings.Join(missing, "\n") + "\n\n" + doc
	}
	if end < 0 {
		end = len(lines)
	}
	out := append(append(lines[:end:end], missing...), lines[end:]...)
	return strings.Join(out, "\n")
}
