package tui

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/limenhq/limen/internal/describe"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// historyMsg carries the recent decisions, for the History tab and the
// rule editor's preview.
type historyMsg struct {
	decisions []*limenv1.Decision
	err       error
}

// fetchHistory reads the recent decisions (Options.HistoryLimit of them).
func fetchHistory(c *common) tea.Cmd {
	lm, limit := c.opts.Client, c.opts.HistoryLimit
	ctx, cancel := c.call()
	return func() tea.Msg {
		defer cancel()
		decisions, err := lm.History(ctx, limit)
		if err != nil {
			return historyMsg{err: fmt.Errorf("history: %w", err)}
		}
		return historyMsg{decisions: decisions}
	}
}

// historyTab is the History tab: the recent decisions, newest first, in a
// list that / filters, with why the selected one went as it did.
type historyTab struct {
	c *common

	decisions []*limenv1.Decision // nil until loaded
	err       error
	list      list.Model
	width     int
}

func newHistoryTab(c *common) *historyTab {
	return &historyTab{c: c, list: newList(historyDelegate{c})}
}

func (h *historyTab) fetch() tea.Cmd { return fetchHistory(h.c) }

// SetSize lays the tab out in w×height cells; under the list sit its
// column header and one line on the selected decision.
func (h *historyTab) SetSize(w, height int) {
	h.width = w
	h.list.SetSize(w, max(1, height-2-filterLines(&h.list)))
}

// Update takes the loaded history, and keys and other messages for the
// list.
func (h *historyTab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyMsg:
		h.decisions, h.err = msg.decisions, msg.err
		if msg.err != nil {
			h.c.log.Warn("history", "err", msg.err)
			return nil
		}
		items := make([]list.Item, len(msg.decisions))
		for i, d := range msg.decisions {
			items[i] = decisionItem{d}
		}
		h.list.SetItems(items)
		applyFilter(&h.list)
		return nil
	case tea.KeyMsg:
		if h.list.FilterState() == list.Filtering {
			return filterKey(&h.list, msg, h.forward)
		}
	}
	return h.forward(msg)
}

func (h *historyTab) forward(msg tea.Msg) tea.Cmd {
	text, state := h.list.FilterInput.Value(), h.list.FilterState()
	var cmd tea.Cmd
	h.list, cmd = h.list.Update(msg)
	refilter(&h.list, text, state)
	return cmd
}

// View is the tab's content.
func (h *historyTab) View() string {
	s := h.c.styles
	var top []string
	if f, ok := filterLine(&h.list, s.Muted); ok {
		top = append(top, f)
	}
	top = append(top, s.Muted.Render(ansi.Truncate(historyHeader(h.width), h.width, "")))
	switch {
	case h.err != nil:
		top = append(top, s.StatusErr.Render("could not load history: "+describeErr(h.err)))
	case h.decisions == nil:
		top = append(top, s.Muted.Render("loading…"))
	case len(h.decisions) == 0:
		top = append(top, s.Muted.Render("No decisions recorded yet."))
	default:
		top = append(top, fit(h.list.View(), h.width, h.list.Height()))
		if it, ok := h.list.SelectedItem().(decisionItem); ok {
			top = append(top, h.decisionWhy(it.d))
		}
	}
	return strings.Join(top, "\n")
}

// decisionWhy is the line under the history: why the selected decision
// went as it did, and the note its answer carried.
func (h *historyTab) decisionWhy(d *limenv1.Decision) string {
	why := fmt.Sprintf("%s %s: %s", d.GetDecisionId(), describe.Verdict(d.GetVerdict()), d.GetReason())
	if d.GetOutcome().GetForgottenAt() != nil {
		why = fmt.Sprintf("%s %s, %s: %s", d.GetDecisionId(), describe.Verdict(d.GetVerdict()), describe.Outcome(d), d.GetReason())
	}
	if o := d.GetOutcome(); o.GetNote() != "" {
		// The person's words first: the reason is often long.
		why = fmt.Sprintf("%s %s, note: %q · asked because %s", d.GetDecisionId(), describe.Outcome(d), o.GetNote(), d.GetReason())
	}
	return h.c.styles.Muted.Render(ansi.Truncate(strings.Join(strings.Fields(why), " "), h.width, "…"))
}

// outcomeCell is the OUTCOME column's text, at most its 9 cells: an
// answer taken back is "forgotten" (the line under the list says what it
// was), as "approved (forgotten)" pushed the columns after it out of line.
func outcomeCell(d *limenv1.Decision) string {
	if d.GetOutcome().GetForgottenAt() != nil {
		return "forgotten"
	}
	return describe.Outcome(d)
}

func historyHeader(int) string {
	return fmt.Sprintf("  %-12s %-5s %-9s %-14s %-8s %s", "TIME", "VERDICT", "OUTCOME", "DECIDED BY", "USER", "ACTION")
}

// decisionItem is one recorded decision in the History tab.
type decisionItem struct{ d *limenv1.Decision }

// FilterValue lets / find decisions by user, verdict, who decided or action.
func (i decisionItem) FilterValue() string {
	a := i.d.GetAction()
	return strings.Join([]string{i.d.GetDecisionId(), a.GetUser(), describe.Verdict(i.d.GetVerdict()), describe.Outcome(i.d), describe.DecidedBy(i.d), describe.Action(a)}, " ")
}

type historyDelegate struct{ c *common }

func (historyDelegate) Height() int                         { return 1 }
func (historyDelegate) Spacing() int                        { return 0 }
func (historyDelegate) Update(tea.Msg, *list.Model) tea.Cmd { return nil }

func (h historyDelegate) Render(w io.Writer, l list.Model, index int, item list.Item) {
	it, ok := item.(decisionItem)
	if !ok {
		return
	}
	c := h.c
	d := it.d
	cursor := "  "
	if index == l.Index() {
		cursor = "› "
	}
	t := d.GetTime().AsTime().In(c.now().Location())
	when := t.Format("Jan _2 15:04")
	if startOfDay(t).Equal(startOfDay(c.now())) {
		when = t.Format("15:04:05")
	}
	verdict := describe.Verdict(d.GetVerdict())
	vst := c.styles.Ask
	switch d.GetVerdict() {
	case limenv1.Verdict_VERDICT_ALLOW:
		vst = c.styles.Allow
	case limenv1.Verdict_VERDICT_BLOCK:
		vst = c.styles.Block
	}
	line := fmt.Sprintf("%s%-12s %s %-9s %-14s %-8s %s", cursor, when, vst.Render(fmt.Sprintf("%-7s", verdict)), outcomeCell(d),
		shorten(describe.DecidedBy(d), 14), shorten(dash(d.GetAction().GetUser()), 8), describe.Action(d.GetAction()))
	line = ansi.Truncate(line, l.Width(), "…")
	if index == l.Index() {
		line = c.styles.Selected.Render(ansi.Strip(line))
	}
	fmt.Fprint(w, line)
}
