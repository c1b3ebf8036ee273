package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/policy"
)

// notePrefix starts the lines edit writes above a document that has
// mistakes; they are removed before the document is read back.
const notePrefix = "# limenctl: "

func newPolicyEditCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "edit",
		Short: "Edit the policy in your editor; it is checked before anything is set",
		Long: `edit opens the policy in force in $VISUAL or $EDITOR (vi if neither is set).
When you save and quit, the document is validated. If it has mistakes, the
editor opens again with them listed at the top, until the document is valid
or you quit without changing it (then nothing is set).

The new policy is set as a compare-and-set on the version you started from:
if someone else changed the policy meanwhile, nothing is set and your edit is
kept in a file that you can pass to limenctl policy set after a look at
limenctl policy diff.`,
		Example: `  limenctl policy edit
  EDITOR="code --wait" limenctl policy edit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPolicyEdit(cmd, a) },
	}
}

// runPolicyEdit is limenctl policy edit.
func runPolicyEdit(cmd *cobra.Command, a *app) error {
	c, err := a.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := a.ctx(cmd)
	cur, err := getPolicy(ctx, c)
	cancel()
	if err != nil {
		return err
	}

	f, err := os.CreateTemp("", "limen-policy-*.toml")
	if err != nil {
		return fmt.Errorf("edit policy: %w", err)
	}
	path := f.Name()
	f.Close()
	keep := false
	defer func() {
		if !keep {
			os.Remove(path)
		}
	}()

	original := cur.GetDocument()
	doc, mistakes := original, ""
	for {
		if err := os.WriteFile(path, []byte(withNote(doc, mistakes)), 0o600); err != nil {
			return fmt.Errorf("edit policy: %w", err)
		}
		if err := runEditor(cmd, a, path); err != nil {
			keep = true
			return fmt.Errorf("%w; your edit is kept in %s", err, path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("edit policy: %w", err)
		}
		edited := withoutNote(string(b))
		switch {
		case edited == original:
			fmt.Fprintf(a.out, "no changes; the policy stays at version %d\n", cur.GetVersion())
			return nil
		case mistakes != "" && edited == doc:
			keep = true
			return fmt.Errorf("the policy still has mistakes, so nothing was set; your edit is kept in %s:\n%s", path, indent(mistakes))
		case strings.TrimSpace(edited) == "":
			fmt.Fprintf(a.out, "the document is empty, so nothing was set; the policy stays at version %d\n", cur.GetVersion())
			return nil
		}
		doc = edited
		if _, err := policy.Parse(doc); err != nil {
			mistakes = err.Error()
			fmt.Fprintf(a.errOut, "the policy has mistakes; opening it again:\n%s\n", indent(mistakes))
			continue
		}

		ctx, cancel := a.ctx(cmd)
		set, err := c.SetPolicy(ctx, cur.GetVersion(), doc)
		cancel()
		switch {
		case err == nil:
		case client.ProblemOf(err) == client.BadRequest:
			// limend knows something this limenctl does not
			// (a newer version): show it like any other mistake.
			mistakes = client.Message(err)
			fmt.Fprintf(a.errOut, "limend refused the policy; opening it again:\n%s\n", indent(mistakes))
			continue
		case errors.Is(err, client.ErrPolicyChanged):
			keep = true
			return fmt.Errorf("someone changed the policy since you opened version %d, so nothing was set; "+
				"your edit is kept in %s (see the other change with limenctl policy diff, then limenctl policy set %s): %w",
				cur.GetVersion(), path, path, err)
		default:
			keep = true
			return fmt.Errorf("%w (your edit is kept in %s)", err, path)
		}
		if a.json {
			return a.printJSON(set)
		}
		fmt.Fprintf(a.out, "policy is now version %d (was %d)\n", set.GetVersion(), cur.GetVersion())
		printClasses(a, set)
		return nil
	}
}

// runEditor opens path in the user's editor, which may be a command with
// arguments ("code --wait").
func runEditor(cmd *cobra.Command, a *app, path string) error {
	editor := envVisual.get()
	if editor == "" {
		editor = envEditor.get()
	}
	if editor == "" {
		editor = "vi"
	}
	e := exec.CommandContext(cmd.Context(), "sh", "-c", editor+` "$1"`, "limenctl-editor", path)
	e.Stdin, e.Stdout, e.Stderr = cmd.InOrStdin(), a.out, a.errOut
	if err := e.Run(); err != nil {
		return fmt.Errorf("editor %q failed: %w (set $EDITOR to the editor you use)", editor, err)
	}
	return nil
}

// withNote puts the mistakes, if any, above the document as comments.
func withNote(doc, mistakes string) string {
	if mistakes == "" {
		return doc
	}
	var b strings.Builder
	b.WriteString(notePrefix + "this policy was NOT set, because it has mistakes:\n")
	for line := range strings.SplitSeq(strings.TrimRight(mistakes, "\n"), "\n") {
		b.WriteString(notePrefix + "  " + line + "\n")
	}
	b.WriteString(notePrefix + "fix them and save to try again, or quit without saving to give up.\n")
	b.WriteString(notePrefix + "(limenctl removes these lines before it reads the policy)\n")
	return b.String() + doc
}

// withoutNote removes the lines withNote added.
func withoutNote(s string) string {
	for strings.HasPrefix(s, notePrefix) {
		_, s, _ = strings.Cut(s, "\n")
	}
	return s
}
