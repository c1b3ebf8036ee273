package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/limenhq/limen/internal/describe"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// printAction writes the action's lines under a label, its line breaks
// kept: `echo hello` and, on the next line, `rm -rf ~/important` are two
// commands and are shown as two.
func printAction(w *tabwriter.Writer, d *limenv1.Decision) {
	for i, l := range describe.Lines(d.GetAction()) {
		label := "action"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "%s\t%s\n", label, l)
	}
}

// printParts writes the table of d's parts (describe.Parts): each part's
// class, verdict, p and key (and rule, when one matched), the one that
// decided marked.
func printParts(a *app, d *limenv1.Decision) error {
	rows := describe.Parts(d)
	ruled := false
	for _, r := range rows {
		ruled = ruled || r.Rule != ""
	}
	w := a.table()
	head := describe.PartHeader
	if ruled {
		head = append(head[:len(head):len(head)], "RULE")
	}
	fmt.Fprintln(w, strings.Join(head, "\t"))
	for _, r := range rows {
		c := r.Cells()
		c[1], c[5] = shorten(c[1], 50), shorten(c[5], 60)
		if ruled {
			c = append(c, dash(r.Rule))
		}
		fmt.Fprintln(w, strings.Join(c, "\t"))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(a.out, "(%s is the part that decided the verdict)\n", describe.DecidedMark)
	return err
}

// actionCells are the ACTION cells of a list's rows for d: one per part
// (the first beside the decision's other columns, whose CLASS is the
// deciding part's), each the part after the mark of the part that
// decided, with its own class when the action has more than one. A list
// of decisions or asks shows every part, not only the first line.
func actionCells(d *limenv1.Decision) []string {
	rows := describe.Parts(d)
	if len(rows) == 1 {
		return []string{shorten(describe.Action(d.GetAction()), 60)}
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Mark + " " + shorten(r.Text, 50) + "  (" + r.Class + ")"
	}
	return out
}
