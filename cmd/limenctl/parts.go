package main

import (
	"encoding/json"
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
	joins := partJoins(d, rows)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Mark + " " + joins[i] + shorten(r.Text, 50) + "  (" + r.Class + ")"
	}
	return out
}

// partJoins are what to put before each of rows' texts so that the lines
// read as the command does: the operator written before the part ("| ",
// "&& ", "; "), found between the parts in d's command. It is "" for the
// first part, for one on a line of its own, and where the parts cannot be
// found in order as written (a part inside a $(…)), rather than a guess.
func partJoins(d *limenv1.Decision, rows []describe.PartRow) []string {
	joins := make([]string, len(rows))
	var in struct {
		Command string `json:"command"`
	}
	if d.GetAction().GetTool() != "Bash" || json.Unmarshal([]byte(d.GetAction().GetInputJson()), &in) != nil {
		return joins
	}
	cmd, pos, prevEnd := in.Command, 0, -1
	for i, r := range rows {
		at := strings.Index(cmd[pos:], r.Text)
		if r.Text == "" || at < 0 {
			prevEnd = -1
			continue
		}
		start := pos + at
		if prevEnd >= 0 {
			gap := strings.TrimLeft(cmd[prevEnd:start], " \t)")
			for _, op := range []string{"||", "&&", "|&", "|", ";", "&"} {
				if !strings.HasPrefix(gap, op) {
					continue
				}
				// The part is inside a substitution that follows the
				// operator: the operator comes before another part.
				if rest := gap[len(op):]; !strings.Contains(rest, "$(") && !strings.Contains(rest, "<(") && !strings.Contains(rest, ">(") && !strings.Contains(rest, "`") {
					joins[i] = op + " "
				}
				break
			}
		}
		pos = start + len(r.Text)
		prevEnd = pos
	}
	return joins
}
