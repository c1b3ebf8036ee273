package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/limenhq/limen/internal/describe"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// View implements tea.Model.
func (m *Model) View() string {
	body := m.body()
	lines := []string{m.header(), m.tabs(), body, m.statusLine(), m.helpView()}
	return strings.Join(lines, "\n")
}

func (m *Model) helpView() string {
	var km help.KeyMap = browseHelp{&m.keys}
	if m.mode != modeBrowse {
		km = formHelp{&m.keys, m.mode == modeRule}
	}
	// help adds an item that does not fit when not even its ellipsis
	// would; cut every line to the window so the layout never wraps.
	lines := strings.Split(m.help.View(km), "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	return strings.Join(lines, "\n")
}

// header is the title with the count of pending asks (flashing when new
// ones arrive) and the connection state on the right.
func (m *Model) header() string {
	s := m.styles
	left := s.Title.Render("limen") + s.Muted.Render(fmt.Sprintf(" · %d pending", len(m.pending)))
	if m.flashing && m.newAsks > 0 {
		left += " " + s.TitleNew.Render(fmt.Sprintf(" +%d new ", m.newAsks))
	}
	var right string
	switch m.conn {
	case connLive:
		right = s.Allow.Render("● live")
		if m.opts.Socket != "" {
			right += s.Muted.Render(" · " + m.opts.Socket)
		}
	case connConnecting:
		right = s.Ask.Render("○ connecting to limend…")
	case connDown:
		wait := max(0, m.retryAt.Sub(m.opts.Now()).Round(time.Second))
		right = s.Block.Render(fmt.Sprintf("○ limend unreachable · retrying in %s", wait))
	}
	return spread(left, right, m.width)
}

// spread puts left and right on one line of width w, cutting right first.
func spread(left, right string, w int) string {
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		right = ansi.Truncate(right, max(0, w-lipgloss.Width(left)-1), "…")
		gap = max(1, w-lipgloss.Width(left)-lipgloss.Width(right))
	}
	return ansi.Truncate(left+strings.Repeat(" ", gap)+right, w, "…")
}

func (m *Model) tabs() string {
	var parts []string
	for t := range numTabs {
		name := tabNames[t]
		if t == tabPending {
			name = fmt.Sprintf("%s (%d)", name, len(m.pending))
		}
		name = fmt.Sprintf("%d %s", t+1, name)
		if t == m.tab {
			// Brackets as well as the style: the active tab must show
			// without colour or underline too.
			parts = append(parts, m.styles.ActiveTab.Render("["+name+"]"))
		} else {
			parts = append(parts, m.styles.Tab.Render(name))
		}
	}
	return ansi.Truncate(strings.Join(parts, " "), m.width, "…")
}

func (m *Model) statusLine() string {
	if m.status == "" {
		return ""
	}
	st := m.styles.Status
	if m.statusErr {
		st = m.styles.StatusErr
	}
	return st.Render(ansi.Truncate(m.status, m.width, "…"))
}

// body is the tab's content, exactly bodyHeight lines tall.
func (m *Model) body() string {
	var out string
	switch m.tab {
	case tabPending:
		out = m.pendingView()
	case tabHistory:
		out = m.historyView()
	case tabStats:
		out = m.statsView()
	}
	return fit(out, m.width, m.bodyHeight())
}

// fit cuts or pads s to exactly h lines of at most w cells.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// filterLine shows the filter being typed or applied, or nothing.
func filterLine(l *list.Model, muted lipgloss.Style) (string, bool) {
	switch l.FilterState() {
	case list.Filtering:
		return l.FilterInput.View(), true
	case list.FilterApplied:
		return muted.Render(fmt.Sprintf("filter: %s · %d shown · esc clears", l.FilterValue(), len(l.VisibleItems()))), true
	}
	return "", false
}

func (m *Model) pendingView() string {
	var top []string
	if f, ok := filterLine(&m.list, m.styles.Muted); ok {
		top = append(top, f)
	}
	lw := m.listWidth()
	header := pendingHeader(lw)
	if p := m.list.Paginator; p.TotalPages > 1 {
		// The list pages when the queue is longer than the screen.
		header += fmt.Sprintf("  (page %d/%d)", p.Page+1, p.TotalPages)
	}
	top = append(top, m.styles.Muted.Render(ansi.Truncate(header, lw, "")))
	var listView string
	if len(m.pending) == 0 {
		msg := "No asks are waiting. New ones appear here as agents make them."
		if !m.synced {
			msg = "Waiting for limend…"
		}
		listView = m.styles.Muted.Render(msg)
	} else {
		listView = m.list.View()
	}
	_, lh := m.listSize()
	left := strings.Join(append(top, fit(listView, lw, lh)), "\n")

	if m.wide() {
		pw := m.width - lw - 1
		pane := m.pane(pw, m.bodyHeight())
		return lipgloss.JoinHorizontal(lipgloss.Top, fit(left, lw, m.bodyHeight()), " ", pane)
	}
	ph := m.bodyHeight() - lipgloss.Height(left)
	if ph < 3 {
		return left
	}
	return left + "\n" + m.pane(m.width, ph)
}

// paneSize is the size of the pane around the selected ask, zero when
// there is no room for it.
func (m *Model) paneSize() (w, h int) {
	if m.wide() {
		return m.width - m.listWidth() - 1, m.bodyHeight()
	}
	_, lh := m.listSize()
	ph := m.bodyHeight() - (lh + 1 + filterLines(&m.list))
	if ph < 3 {
		return 0, 0
	}
	return m.width, ph
}

// detailFits reports whether what the selected ask is (its id, the
// action in full, where, and its risk) shows on screen.
// A person answers what they read, so the answer keys are off when they
// cannot read it.
func (m *Model) detailFits() bool {
	ask := m.selected()
	w, h := m.paneSize()
	if ask == nil || w < 24 || h < 3 {
		return false
	}
	return lipgloss.Height(strings.Join(m.detailLines(ask, w-4, false), "\n")) <= h-2
}

func tooSmall(id string) string {
	return "The window is too small to show ask " + id + " in full; enlarge it to answer (the answer keys are off until then)."
}

// pane is the bordered box beside or below the list: the selected ask, or
// the editor that is open.
func (m *Model) pane(w, h int) string {
	inner, innerH := w-4, h-2
	var content string
	switch {
	case m.mode == modeNote:
		content = m.noteView(inner)
	case m.mode == modeRule:
		content = m.ruleView(inner)
	case m.selected() != nil && !m.detailFits():
		content = m.styles.Muted.Render(tooSmall(m.selected().GetAskId()))
	case m.selected() != nil:
		content = m.detail(m.selected(), inner)
	case len(m.pending) > 0:
		content = m.styles.Muted.Render("Nothing matches the filter.")
	default:
		content = m.styles.Muted.Render("When an agent asks, the action, its context and\nlimen's reasoning show here.")
	}
	return m.styles.Pane.Width(w - 2).Height(innerH).Render(fit(content, inner, innerH))
}

// row is one labelled line of the detail pane; long values wrap under
// themselves.
func (m *Model) row(label, value string, w int) string {
	vw := max(10, w-m.styles.Label.GetWidth())
	return lipgloss.JoinHorizontal(lipgloss.Top, m.styles.Label.Render(label), lipgloss.NewStyle().Width(vw).Render(value))
}

// detail is everything a person needs to decide on one ask.
func (m *Model) detail(ask *limenv1.PendingAsk, w int) string {
	return strings.Join(m.detailLines(ask, w, true), "\n")
}

// detailLines are the lines of detail; without extra, only what the
// action is (its id, tool, arguments, where and its risk), which must fit
// on screen for the ask to be answered.
func (m *Model) detailLines(ask *limenv1.PendingAsk, w int, extra bool) []string {
	s := m.styles
	d := ask.GetDecision()
	act := d.GetAction()
	now := m.opts.Now()
	head := s.Heading.Render("Ask "+ask.GetAskId()) +
		s.Muted.Render(fmt.Sprintf(" · asked %s ago · ", describe.Age(now.Sub(d.GetTime().AsTime())))) + m.expiry(ask)
	if what, ok := m.sending[ask.GetAskId()]; ok {
		head += " " + s.Sending.Render("sending "+what+"…")
	}
	lines := []string{head, ""}
	lines = append(lines, m.row("Tool", act.GetTool(), w))
	label, text := argumentsOf(act)
	lines = append(lines, m.row(label, text, w))
	// What decides comes first, so a short terminal still shows it.
	lines = append(lines,
		m.row("Cwd", dash(act.GetCwd()), w),
		m.row("Risk", dash(d.GetRiskClass()), w))
	if !extra {
		return lines
	}
	lines = append(lines,
		m.row("p", m.bar(d.GetP(), d.GetThresholds(), w-s.Label.GetWidth()), w),
		m.row("Why", d.GetReason(), w),
		m.row("Who", fmt.Sprintf("%s · %s · session %s", dash(act.GetUser()), dash(act.GetAgent()), dash(act.GetSession())), w),
	)
	if ev := d.GetEvidence(); ev != nil && ev.GetLevel() != "" {
		at := "at " + ev.GetLevel()
		if ev.GetLevel() == "prior" {
			at = "for this user: limen's prior alone"
		}
		lines = append(lines, m.row("Evidence", fmt.Sprintf("%s approved, %s denied %s (weight %.1f)",
			num(ev.GetApprovals()), num(ev.GetDenials()), at, ev.GetEffectiveCount()), w))
	}
	if d.GetKey() != "" {
		lines = append(lines, m.row("Key", d.GetKey(), w))
	}
	return lines
}

// expiry is the time left before the ask expires, louder when little is
// left.
func (m *Model) expiry(ask *limenv1.PendingAsk) string {
	left := ask.GetExpiresAt().AsTime().Sub(m.opts.Now())
	switch {
	case ask.GetExpiresAt() == nil:
		return m.styles.Muted.Render("no expiry")
	case left <= 0:
		return m.styles.Block.Render("expiring now")
	case left < time.Minute:
		return m.styles.Block.Render("expires in " + clock(left))
	}
	return m.styles.Muted.Render("expires in " + clock(left))
}

// bar draws p on a scale from 0 to 1 with the block and allow thresholds
// marked: block zone, ask zone and allow zone, and where p falls.
//
//	0.42 ░░░░░░░░░░░░│────●─────────────│▓▓ block<0.50 allow>0.95
func (m *Model) bar(p float64, th *limenv1.Thresholds, w int) string {
	s := m.styles
	cells := max(10, min(40, w-8))
	lo, hi := th.GetBlockBelow(), th.GetAllowAbove()
	pos := func(x float64) int { return min(cells-1, max(0, int(math.Round(x*float64(cells-1))))) }
	at, loAt, hiAt := pos(p), pos(lo), pos(hi)
	var b strings.Builder
	for i := range cells {
		switch {
		case i == at:
			st := s.Ask
			if p > hi {
				st = s.Allow
			} else if p < lo {
				st = s.Block
			}
			b.WriteString(st.Bold(true).Render("●"))
		case i == loAt || i == hiAt:
			b.WriteString("│")
		case i < loAt:
			b.WriteString(s.Block.Render("░"))
		case i > hiAt:
			b.WriteString(s.Allow.Render("▓"))
		default:
			b.WriteString(s.Ask.Render("─"))
		}
	}
	scale := fmt.Sprintf("block below %s · allow above %s", prob(lo), prob(hi))
	if th == nil {
		scale = "no thresholds (decided by a rule or a failure)"
	}
	return fmt.Sprintf("%.3f %s\n%s", p, b.String(), s.Muted.Render(scale))
}

// argumentsOf pretty-prints what the tool was asked to do: a shell command
// as is, a file tool's path, anything else as indented JSON.
func argumentsOf(a *limenv1.Action) (label, text string) {
	var in map[string]any
	dec := json.NewDecoder(strings.NewReader(a.GetInputJson()))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return "Input", a.GetInputJson()
	}
	if cmd, ok := in["command"].(string); ok && a.GetTool() == "Bash" {
		text = cmd
		if desc, ok := in["description"].(string); ok && desc != "" {
			text += "\n# " + desc
		}
		return "Command", text
	}
	if p, ok := in["file_path"].(string); ok && len(in) == 1 {
		return "Path", p
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(in)
	return "Input", strings.TrimRight(buf.String(), "\n")
}

func (m *Model) noteView(w int) string {
	s := m.styles
	ask := m.pending[m.target]
	verb := "Approve"
	if m.noteChoice == limenv1.Choice_CHOICE_DENY {
		verb = "Deny"
	}
	lines := []string{
		s.Heading.Render(fmt.Sprintf("%s ask %s with a note", verb, m.target)),
		s.Muted.Render(ansi.Truncate(describe.Action(ask.GetDecision().GetAction()), w, "…")),
		"",
		m.input.View(),
		"",
		s.Muted.Width(w).Render("The note is kept with the answer and shown to the agent."),
		s.Muted.Width(w).Render("enter sends · esc cancels"),
	}
	return strings.Join(lines, "\n")
}

func (m *Model) ruleView(w int) string {
	s := m.styles
	ask := m.pending[m.target]
	kind, effect := s.Allow.Render("allow"), "approves ask "+m.target+" and allows what the rule covers from now on"
	if m.ruleVerdict == policy.Block {
		kind, effect = s.Block.Render("block"), "denies ask "+m.target+" and blocks what the rule covers from now on"
	}
	lines := []string{
		s.Heading.Render("Make a rule from ask " + m.target),
		s.Muted.Render(ansi.Truncate(describe.Action(ask.GetDecision().GetAction()), w, "…")),
		"",
		m.input.View(),
		lipgloss.NewStyle().Width(w).Render(fmt.Sprintf("[%s] %s", kind, s.Muted.Render(effect))),
		"",
	}
	switch {
	case m.ruleSaving:
		lines = append(lines, s.Sending.Render("saving the rule…"))
	case m.ruleErr != nil:
		lines = append(lines, s.StatusErr.Render(lipgloss.NewStyle().Width(w).Render(m.ruleErr.Error())))
	case m.history == nil && m.historyErr == nil:
		lines = append(lines, s.Muted.Render("loading recent actions for the preview…"))
	case m.historyErr != nil:
		lines = append(lines, s.StatusErr.Render("no preview: "+m.historyErr.Error()))
	default:
		lines = append(lines, s.Heading.Render(fmt.Sprintf("Covers ask %s and %d of the last %d recorded actions", m.target, len(m.ruleCovered), len(m.history))))
		for i, d := range m.ruleCovered {
			if i == 8 {
				lines = append(lines, s.Muted.Render(fmt.Sprintf("  … and %d more", len(m.ruleCovered)-i)))
				break
			}
			// The class shows when a broad rule reaches risky actions.
			lines = append(lines, "  "+ansi.Truncate(fmt.Sprintf("%-8s %-12s %s", shorten(d.GetAction().GetUser(), 8),
				shorten(dash(d.GetRiskClass()), 12), describe.Action(d.GetAction())), w-2, "…"))
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) historyView() string {
	var top []string
	if f, ok := filterLine(&m.historyList, m.styles.Muted); ok {
		top = append(top, f)
	}
	top = append(top, m.styles.Muted.Render(ansi.Truncate(historyHeader(m.width), m.width, "")))
	switch {
	case m.historyErr != nil:
		top = append(top, m.styles.StatusErr.Render("could not load history: "+describeErr(m.historyErr)))
	case m.history == nil:
		top = append(top, m.styles.Muted.Render("loading…"))
	case len(m.history) == 0:
		top = append(top, m.styles.Muted.Render("No decisions recorded yet."))
	default:
		top = append(top, fit(m.historyList.View(), m.width, m.historyList.Height()))
		if it, ok := m.historyList.SelectedItem().(decisionItem); ok {
			top = append(top, m.decisionWhy(it.d))
		}
	}
	return strings.Join(top, "\n")
}

// decisionWhy is the line under the history: why the selected decision
// went as it did, and the note its answer carried.
func (m *Model) decisionWhy(d *limenv1.Decision) string {
	why := fmt.Sprintf("%s %s: %s", d.GetDecisionId(), describe.Verdict(d.GetVerdict()), d.GetReason())
	if o := d.GetOutcome(); o.GetNote() != "" {
		// The person's words first: the reason is often long.
		why = fmt.Sprintf("%s %s, note: %q · asked because %s", d.GetDecisionId(), describe.Outcome(d), o.GetNote(), d.GetReason())
	}
	return m.styles.Muted.Render(ansi.Truncate(strings.Join(strings.Fields(why), " "), m.width, "…"))
}

func (m *Model) statsView() string {
	s := m.styles
	switch {
	case m.statsErr != nil:
		return s.StatusErr.Render("could not load stats: " + describeErr(m.statsErr))
	case m.stats == nil:
		return s.Muted.Render("loading…")
	}
	var b strings.Builder
	since := startOfDay(m.opts.Now())
	fmt.Fprintf(&b, "%s%s\n\n", s.Heading.Render("Today"), s.Muted.Render(fmt.Sprintf(" · since %s · %d pending now", since.Format("Mon 2 Jan 15:04"), m.stats.GetPending())))
	fmt.Fprintln(&b, s.Muted.Render(fmt.Sprintf("%-16s %7s %7s %7s %7s %9s %7s %8s", "USER", "TOTAL", "ALLOWS", "ASKS", "BLOCKS", "APPROVED", "DENIED", "EXPIRED")))
	row := func(name string, c *limenv1.VerdictCounts) {
		fmt.Fprintf(&b, "%-16s %7d %7d %7d %7d %9d %7d %8d\n", shorten(name, 16),
			c.GetAllows()+c.GetAsks()+c.GetBlocks(), c.GetAllows(), c.GetAsks(), c.GetBlocks(), c.GetApproved(), c.GetDenied(), c.GetExpired())
	}
	row("everyone", m.stats.GetTotal())
	for _, u := range m.stats.GetUsers() {
		row(dash(u.GetUser()), u.GetCounts())
	}
	if m.policy != nil {
		fmt.Fprintf(&b, "\n%s%s\n\n", s.Heading.Render("Thresholds in force"), s.Muted.Render(fmt.Sprintf(" · policy v%d", m.policy.GetVersion())))
		fmt.Fprintln(&b, s.Muted.Render(fmt.Sprintf("%-24s %12s %12s  %s", "CLASS", "ALLOW ABOVE", "BLOCK BELOW", "COSTS allow/block/ask")))
		classes := m.policy.GetClasses()
		for _, c := range classes {
			co := c.GetCosts()
			fmt.Fprintf(&b, "%-24s %12.3f %12.3f  %s/%s/%s\n", shorten(c.GetName(), 24), c.GetThresholds().GetAllowAbove(), c.GetThresholds().GetBlockBelow(),
				num(co.GetAllow()), num(co.GetBlock()), num(co.GetAsk()))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Columns of the pending list: id, age, user, agent, session; the action
// takes the rest. Narrow lists drop agent and session (the pane shows them).
func pendingColumns(w int) (agent, session bool) { return w >= 60, w >= 60 }

func pendingHeader(w int) string {
	agent, session := pendingColumns(w)
	h := fmt.Sprintf("  %-5s %4s %-8s ", "ID", "AGE", "USER")
	if agent {
		h += fmt.Sprintf("%-11s ", "AGENT")
	}
	if session {
		h += fmt.Sprintf("%-8s ", "SESSION")
	}
	return h + "ACTION"
}

// askItem is one pending ask in the list.
type askItem struct{ ask *limenv1.PendingAsk }

// FilterValue is what / matches: who asked, from where, and what.
func (i askItem) FilterValue() string {
	a := i.ask.GetDecision().GetAction()
	return strings.Join([]string{i.ask.GetAskId(), a.GetUser(), a.GetAgent(), a.GetSession(), i.ask.GetDecision().GetRiskClass(), describe.Action(a)}, " ")
}

type pendingDelegate struct{ m *Model }

func (pendingDelegate) Height() int                         { return 1 }
func (pendingDelegate) Spacing() int                        { return 0 }
func (pendingDelegate) Update(tea.Msg, *list.Model) tea.Cmd { return nil }

func (p pendingDelegate) Render(w io.Writer, l list.Model, index int, item list.Item) {
	it, ok := item.(askItem)
	if !ok {
		return
	}
	m := p.m
	d := it.ask.GetDecision()
	a := d.GetAction()
	width := l.Width()
	agent, session := pendingColumns(width)
	cursor := "  "
	if index == l.Index() {
		cursor = "› "
	}
	line := fmt.Sprintf("%s%-5s %4s %-8s ", cursor, shorten(it.ask.GetAskId(), 5), describe.Age(m.opts.Now().Sub(d.GetTime().AsTime())), shorten(dash(a.GetUser()), 8))
	if agent {
		line += fmt.Sprintf("%-11s ", shorten(dash(a.GetAgent()), 11))
	}
	if session {
		line += fmt.Sprintf("%-8s ", shorten(dash(a.GetSession()), 8))
	}
	rest := describe.Action(a)
	if what, ok := m.sending[it.ask.GetAskId()]; ok {
		rest = "sending " + what + "… " + rest
	}
	line = ansi.Truncate(line+rest, width, "…")
	if index == l.Index() {
		line = m.styles.Selected.Render(line)
	}
	fmt.Fprint(w, line)
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

type historyDelegate struct{ m *Model }

func (historyDelegate) Height() int                         { return 1 }
func (historyDelegate) Spacing() int                        { return 0 }
func (historyDelegate) Update(tea.Msg, *list.Model) tea.Cmd { return nil }

func (h historyDelegate) Render(w io.Writer, l list.Model, index int, item list.Item) {
	it, ok := item.(decisionItem)
	if !ok {
		return
	}
	m := h.m
	d := it.d
	cursor := "  "
	if index == l.Index() {
		cursor = "› "
	}
	t := d.GetTime().AsTime().In(m.opts.Now().Location())
	when := t.Format("Jan _2 15:04")
	if startOfDay(t).Equal(startOfDay(m.opts.Now())) {
		when = t.Format("15:04:05")
	}
	verdict := describe.Verdict(d.GetVerdict())
	vst := m.styles.Ask
	switch d.GetVerdict() {
	case limenv1.Verdict_VERDICT_ALLOW:
		vst = m.styles.Allow
	case limenv1.Verdict_VERDICT_BLOCK:
		vst = m.styles.Block
	}
	line := fmt.Sprintf("%s%-12s %s %-9s %-14s %-8s %s", cursor, when, vst.Render(fmt.Sprintf("%-7s", verdict)), describe.Outcome(d),
		shorten(describe.DecidedBy(d), 14), shorten(dash(d.GetAction().GetUser()), 8), describe.Action(d.GetAction()))
	line = ansi.Truncate(line, l.Width(), "…")
	if index == l.Index() {
		line = m.styles.Selected.Render(ansi.Strip(line))
	}
	fmt.Fprint(w, line)
}

// clock formats a countdown: 9m05s, 42s, 1h03m.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// prob prints a probability with as many decimals as it needs, up to
// three: 0.5, 0.95, 0.995.
func prob(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64)
}

// num prints a count without a needless fraction: 3, 2.5.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e9 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shorten cuts s to n cells with an ellipsis, on one line.
func shorten(s string, n int) string {
	return ansi.Truncate(strings.Join(strings.Fields(s), " "), n, "…")
}
