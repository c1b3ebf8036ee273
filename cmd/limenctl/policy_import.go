package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// ruleLists are the three lists of the [rules] table, in the order they
// are checked.
var ruleLists = []string{"block", "ask", "allow"}

// importReport is what import-claude did, for people and for --json.
type importReport struct {
	Added    map[string][]string `json:"added"`    // list → rules added to it
	Present  map[string][]string `json:"present"`  // list → rules it already had
	Removed  map[string][]string `json:"removed"`  // list → rules dropped (without --merge)
	Kept     []string            `json:"kept"`     // shipped block rules --merge=false keeps
	Refused  []string            `json:"refused"`  // rules that do not parse, with why
	Warnings []string            `json:"warnings"` // rules that import but may not mean the same
	Version  uint64              `json:"version,omitempty"`
}

// singleSlashPath finds file rules whose path starts with one slash: Claude
// Code reads them relative to the settings file, limen as absolute.
var singleSlashPath = regexp.MustCompile(`^(Read|Edit|Write|MultiEdit|NotebookEdit|NotebookRead|Glob|Grep|LS)\(/[^/]`)

func newPolicyImportClaudeCmd(a *app) *cobra.Command {
	var o importClaudeOptions
	cmd := &cobra.Command{
		Use:   "import-claude SETTINGS.json",
		Short: "Turn a Claude Code settings file's permissions into policy rules",
		Long: `import-claude reads permissions.allow, .ask and .deny from a Claude Code
settings file (deny becomes block) and puts them into the [rules] table of
the policy in force, then sets it. It shows what was added, what was already
there, and which rules were refused and why; a refused rule changes nothing
else. With --merge (the default) the imported rules join the ones already
there; --merge=false replaces the three lists with the imported ones, and
lists what that drops, except the shipped block rules in force (those that
stop an agent answering its own asks, unhooking limen or running rm -rf /):
they stay, and are listed as kept; remove one with limenctl policy edit if
you must. The rest of the document, comments included, stays as it was.

An allow rule outranks limen's prediction, so one that covers a whole tool
(Bash(*), Bash, Edit(**), mcp__github, a glob over tool names) would let an
agent use that tool without ever asking: import refuses the file then, and
imports nothing, unless --force (--dry-run warns).`,
		Example: `  limenctl policy import-claude ~/.claude/settings.json
  limenctl policy import-claude --dry-run .claude/settings.local.json
  limenctl policy import-claude --merge=false .claude/settings.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runImportClaude(cmd, a, o, args[0]) },
	}
	cmd.Flags().BoolVar(&o.merge, "merge", true, "add to the rules already in the policy (--merge=false replaces them)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show what would change, and set nothing")
	cmd.Flags().BoolVar(&o.force, "force", false, "import allow rules that cover a whole tool (Bash(*), Edit), which are refused otherwise")
	return cmd
}

// importClaudeOptions are import-claude's flags.
type importClaudeOptions struct{ merge, dryRun, force bool }

// wholeTool says what an allow rule covers when that is every use of a
// tool ("every Bash command"), of several tools (a glob over their names)
// or of an MCP server; else "".
func wholeTool(pattern string) string {
	tool, inner, hasArgs := strings.Cut(pattern, "(")
	inner = strings.TrimSuffix(inner, ")")
	switch {
	case strings.Contains(tool, "*"):
		return "every tool whose name matches " + tool
	case hasArgs && (strings.Trim(inner, "*:/") == "" || inner == "domain:*"):
	case hasArgs:
		return ""
	case strings.HasPrefix(tool, "mcp__") && strings.Count(tool, "__") > 1:
		return "" // one MCP tool, not a server's every tool
	case strings.HasPrefix(tool, "mcp__"):
		return "every tool of the MCP server " + strings.TrimPrefix(tool, "mcp__")
	}
	if tool == "Bash" {
		return "every Bash command"
	}
	return "every " + tool + " call"
}

// runImportClaude is limenctl policy import-claude FILE.
func runImportClaude(cmd *cobra.Command, a *app, o importClaudeOptions, file string) error {
	raw, err := readClaudePermissions(file)
	if err != nil {
		return err
	}
	allow, ask, deny, refused := policy.ImportClaude(raw)
	imported := map[string][]string{"allow": allow, "ask": ask, "block": deny}

	c, ctx, done, err := a.connect(cmd)
	if err != nil {
		return err
	}
	defer done()
	cur, err := getPolicy(ctx, c)
	if err != nil {
		return err
	}
	pol, err := policy.Parse(cur.GetDocument())
	if err != nil {
		return fmt.Errorf("the policy in force (v%d) does not parse, so rules cannot be added to it; fix it first with limenctl policy edit: %w", cur.GetVersion(), err)
	}
	existing := map[string][]string{"allow": patterns(pol.Allow), "ask": patterns(pol.Ask), "block": patterns(pol.Block)}
	rep, want := planImport(existing, imported, o.merge)
	for _, e := range unjoinErr(refused) {
		msg, _, _ := strings.Cut(e.Error(), "; accepted forms:")
		rep.Refused = append(rep.Refused, msg)
	}

	// An allow rule outranks the prediction: one that covers a whole tool
	// (Bash(*), common in Claude Code settings) turns limen off for it.
	var broad []string
	for _, r := range rep.Added["allow"] {
		if what := wholeTool(r); what != "" {
			broad = append(broad, r+" allows "+what+" without asking (only a block or ask rule stops one)")
		}
	}
	switch {
	case len(broad) > 0 && !o.force && !o.dryRun:
		return badInputf("nothing was imported: %s\nhint: leave it out of %s or narrow it (Bash(npm test:*)), or pass --force to import it all the same",
			strings.Join(broad, "; "), file)
	case len(broad) > 0:
		for _, b := range broad {
			if !o.force {
				b += "; import refuses it without --force"
			}
			rep.Warnings = append(rep.Warnings, b)
		}
	}

	changed := len(rep.Added)+len(rep.Removed) > 0
	if changed && !o.dryRun {
		doc, err := policy.SetRules(cur.GetDocument(), want)
		if err != nil {
			return err
		}
		resp, err := c.API.SetPolicy(ctx, &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetVersion(), Document: doc})
		if err != nil {
			return err
		}
		rep.Version = resp.GetPolicy().GetVersion()
	}
	if a.json {
		return a.printJSON(rep)
	}
	printImport(a, file, rep, cur.GetVersion(), changed, o.dryRun)
	return nil
}

// readClaudePermissions reads a Claude Code settings file that holds at
// least one permissions rule.
func readClaudePermissions(file string) ([]byte, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, usagef("read Claude Code settings: %v", err)
	}
	var shape struct {
		Permissions struct {
			Allow, Ask, Deny []string
		} `json:"permissions"`
	}
	if err := json.Unmarshal(raw, &shape); err != nil {
		return nil, usagef("%s is not a Claude Code settings file (%v): it should hold {\"permissions\": {\"allow\": [...], \"ask\": [...], \"deny\": [...]}}", file, err)
	}
	p := shape.Permissions
	if len(p.Allow)+len(p.Ask)+len(p.Deny) == 0 {
		return nil, usagef("%s has no permissions.allow, .ask or .deny rules: nothing to import", file)
	}
	return raw, nil
}

// planImport returns the rule lists to set, existing ones joined (merge)
// or replaced by imported ones, and the report of what that adds, finds
// present, removes and keeps.
func planImport(existing, imported map[string][]string, merge bool) (importReport, map[string][]string) {
	rep := importReport{Added: map[string][]string{}, Present: map[string][]string{}, Removed: map[string][]string{}}
	want := map[string][]string{}
	shipped := patterns(policy.Default().Block)
	for _, list := range ruleLists {
		var out []string
		switch {
		case merge:
			out = slices.Clone(existing[list])
		case list == "block":
			// Replacing the lists must not quietly hand an agent
			// the means to approve its own asks.
			for _, r := range existing[list] {
				if slices.Contains(shipped, r) {
					out = append(out, r)
					rep.Kept = append(rep.Kept, r)
				}
			}
		}
		for _, r := range imported[list] {
			switch {
			case slices.Contains(out, r): // kept already, or listed twice in the settings
				rep.Present[list] = append(rep.Present[list], r)
				continue
			case slices.Contains(existing[list], r):
				rep.Present[list] = append(rep.Present[list], r)
			default:
				rep.Added[list] = append(rep.Added[list], r)
			}
			out = append(out, r)
			if singleSlashPath.MatchString(r) {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: limen reads /path as absolute, Claude Code as relative to the settings file's folder; "+
					"write ./path (working directory) or //path (absolute) if that is not what you mean", r))
			}
		}
		for _, r := range existing[list] {
			if !slices.Contains(out, r) {
				rep.Removed[list] = append(rep.Removed[list], r)
			}
		}
		want[list] = out
	}
	return rep, want
}

func printImport(a *app, file string, rep importReport, was uint64, changed, dryRun bool) {
	fmt.Fprintf(a.out, "from %s:\n", file)
	w := a.table()
	row := func(what string, m map[string][]string) {
		for _, list := range ruleLists {
			for _, r := range m[list] {
				fmt.Fprintf(w, "  %s\trules.%s\t%s\n", what, list, r)
			}
		}
	}
	row("added to", rep.Added)
	row("already in", rep.Present)
	row("removed from", rep.Removed)
	w.Flush()
	if len(rep.Kept) > 0 {
		fmt.Fprintf(a.out, "  kept %d shipped block rules (they stop an agent answering its own asks, unhooking limen, rm -rf /); remove one with limenctl policy edit if you must\n", len(rep.Kept))
	}
	for _, r := range rep.Refused {
		fmt.Fprintf(a.out, "  refused: %s\n", r)
	}
	if len(rep.Refused) > 0 {
		fmt.Fprintln(a.out, "  (refused rules are left out; docs/policy.md shows the rule syntax limen reads)")
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(a.out, "  note: %s\n", warn)
	}
	switch {
	case !changed:
		fmt.Fprintf(a.out, "nothing to change; the policy stays at version %d\n", was)
	case dryRun:
		fmt.Fprintf(a.out, "dry run: nothing was set; the policy stays at version %d\n", was)
	default:
		fmt.Fprintf(a.out, "policy is now version %d (was %d); undo with limenctl policy rollback %d\n", rep.Version, was, was)
	}
}

func patterns(rules []policy.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Pattern
	}
	return out
}

func unjoinErr(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
