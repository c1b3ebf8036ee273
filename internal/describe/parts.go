package describe

import (
	"strconv"
	"strings"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// DecidedMark is put before the part that gave an action its verdict, in
// every view of its parts.
const DecidedMark = "▶"

// PartRow is one part of a decided action as every view shows it: what
// it does, its risk class, its own verdict and p, and its key.
type PartRow struct {
	// Mark is DecidedMark for the part that decided, else a space.
	Mark    string
	Text    string
	Class   string
	Verdict string // "allow", "ask", "block", or "-" when it was not weighed
	P       string // "0.620", or "-" when it was not predicted
	Key     string
	Rule    string // "block Bash(rm -rf /)", or ""
}

// PartHeader names PartRow's columns as the tables print them.
var PartHeader = []string{"", "PART", "CLASS", "VERDICT", "P", "KEY"}

// Cells are the row's columns, in PartHeader's order.
func (r PartRow) Cells() []string { return []string{r.Mark, r.Text, r.Class, r.Verdict, r.P, r.Key} }

// Parts are the rows of d's parts, in the action's order. A decision
// recorded before parts were (or one with none) has one row made of its
// own class and key, marked as deciding.
func Parts(d *limenv1.Decision) []PartRow {
	ps := d.GetParts()
	if len(ps) == 0 {
		return []PartRow{{Mark: DecidedMark, Text: Action(d.GetAction()), Class: dashed(d.GetRiskClass()),
			Verdict: Verdict(d.GetVerdict()), P: pOf(d.GetDecidedBy() == limenv1.Decider_DECIDER_PREDICTION, d.GetP()), Key: dashed(d.GetKey())}}
	}
	out := make([]PartRow, len(ps))
	for i, p := range ps {
		r := PartRow{Mark: " ", Text: p.GetText(), Class: dashed(p.GetRiskClass()), Verdict: "-",
			P: pOf(p.GetPredicted(), p.GetP()), Key: dashed(p.GetKey()), Rule: p.GetRule()}
		if p.GetDecided() {
			r.Mark = DecidedMark
		}
		if p.GetVerdict() != limenv1.Verdict_VERDICT_UNSPECIFIED {
			r.Verdict = Verdict(p.GetVerdict())
		}
		out[i] = r
	}
	return out
}

// Lines is the action as the person or agent wrote it, one line per
// line of the command: a shell command's line breaks separate commands,
// so they are never joined into one line. Other tools are Action's one
// line.
func Lines(a *limenv1.Action) []string {
	if cmd, ok := command(a); ok {
		var out []string
		for l := range strings.SplitSeq(cmd, "\n") {
			if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
				out = append(out, l)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return []string{Action(a)}
}

func pOf(predicted bool, p float64) string {
	if !predicted {
		return "-"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func dashed(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// String is the row on one line, for views that are not tables (the
// TUI's detail pane): "▶ rm -rf ~/important · destructive · ask p=0.620 ·
// Bash:rm -rf ~/important".
func (r PartRow) String() string {
	v := r.Verdict
	if r.P != "-" {
		v += " p=" + r.P
	}
	s := r.Mark + " " + r.Text + " · " + r.Class + " · " + v + " · " + r.Key
	if r.Rule != "" {
		s += " · rule " + r.Rule
	}
	return s
}

// RiskClass is d's risk class as views show it: the deciding part's, and,
// for an action of several parts, each other class among them with the
// first part of it, so that the class of `curl … | sh` (its curl decided)
// does not hide that the sh is network-exfiltration: "unknown (the
// deciding part's); also network-exfiltration (sh)". Read-only parts add
// nothing to another class, and are left out.
func RiskClass(d *limenv1.Decision) string {
	class := dashed(d.GetRiskClass())
	rows := Parts(d)
	seen := map[string]bool{class: true, "read-only": true, "-": true}
	var others []string
	for _, r := range rows {
		if r.Mark != DecidedMark && !seen[r.Class] {
			seen[r.Class] = true
			text := []rune(r.Text)
			if len(text) > 40 {
				text = append(text[:39], '…')
			}
			others = append(others, r.Class+" ("+string(text)+")")
		}
	}
	if len(rows) < 2 || len(others) == 0 {
		return class
	}
	return class + " (the deciding part's); also " + strings.Join(others, ", ")
}
