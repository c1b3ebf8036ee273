package tui

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// tab is one of the TUI's three views.
type tab int

const (
	tabPending tab = iota
	tabHistory
	tabStats
	numTabs
)

var tabNames = [numTabs]string{"Pending", "History", "Stats"}

// flashFor is how long the title flashes after a new ask arrives.
const flashFor = 2 * time.Second

// Options configure the TUI.
type Options struct {
	// Client reaches limend, normally a *client.Client.
	Client Limend
	// Now is the clock; nil means time.Now. Tests fix it so that ages and
	// expiry countdowns render the same every run.
	Now func() time.Time
	// Logger receives what the TUI has to log; it must not write to the
	// terminal. nil discards.
	Logger *slog.Logger
	// Renderer draws the styles; nil means one on stdout that honours
	// NO_COLOR.
	Renderer *lipgloss.Renderer
	// Bell, when set, gets a BEL character each time a new ask arrives.
	Bell io.Writer
	// Socket is shown in the header, so people know which limend they see.
	Socket string
	// CallTimeout bounds each unary call (default 5s).
	CallTimeout time.Duration
	// HistoryLimit is how many recent decisions History and the rule
	// preview read (default 200).
	HistoryLimit int
}

// Model is the TUI: it routes each message to the component it is for —
// the watch stream, the Pending tab (with its note and rule editors), the
// History tab and the Stats tab — and draws the header, the tabs, the
// status line and the help around them. Use New; it implements tea.Model.
type Model struct {
	c    *common
	help help.Model

	width, height int
	tab           tab

	watch   *watch
	pending *pendingTab
	history *historyTab
	stats   *statsTab

	newAsks  int // asks arrived since the last flash ended
	flashSeq int
	flashing bool
}

// New returns the TUI's model. ctx ends its stream and calls; cancel it (or
// quit the program) to stop them.
func New(ctx context.Context, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Renderer == nil {
		opts.Renderer = NewRenderer(nil, false)
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 5 * time.Second
	}
	if opts.HistoryLimit <= 0 {
		opts.HistoryLimit = 200
	}
	c := &common{ctx: ctx, opts: opts, log: opts.Logger, after: tea.Tick,
		keys: DefaultKeyMap(), styles: DefaultStyles(opts.Renderer)}
	m := &Model{c: c, width: 80, height: 24,
		watch: newWatch(c), pending: newPendingTab(c), history: newHistoryTab(c), stats: newStatsTab(c)}
	m.help = help.New()
	m.help.Styles = c.styles.Help
	m.resize()
	return m
}

// Close stops the watch stream. The program's end does the same through
// ctx; Close is for callers that drive the model themselves.
func (m *Model) Close() { m.watch.close() }

// Init implements tea.Model: it opens the watch stream and starts the
// clock that keeps ages and countdowns current.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.watch.open(), m.tick(), tea.SetWindowTitle("limen"))
}

// Messages of the model itself.
type (
	tickMsg      time.Time
	flashDoneMsg struct{ seq int }
)

func (m *Model) tick() tea.Cmd {
	return m.c.after(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	// Lay out before the keys are enabled too: whether the selected ask
	// shows in full (and so may be answered) depends on the layout.
	m.resize()
	m.updateKeys()
	m.resize()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return nil
	case tickMsg:
		return m.tick()
	case flashDoneMsg:
		if msg.seq == m.flashSeq {
			m.flashing = false
			m.newAsks = 0
		}
		return nil
	case watchOpenedMsg, watchEventMsg, watchErrMsg, reconnectMsg:
		cmd, ev := m.watch.Update(msg)
		return tea.Batch(m.apply(ev), cmd)
	case answerSentMsg:
		cmd := m.pending.answered(msg)
		if msg.err == nil {
			cmd = tea.Batch(cmd, m.refreshTab())
		}
		return cmd
	case forgottenMsg:
		m.pending.forgotten(msg)
		if msg.err == nil {
			return m.refreshTab()
		}
		return nil
	case ruleSavedMsg:
		cmd := m.pending.ruleSaved(msg)
		if msg.err == nil && msg.answer.err == nil {
			cmd = tea.Batch(cmd, m.refreshTab())
		}
		return cmd
	case historyMsg:
		// The rule editor's preview is drawn from the same history.
		m.pending.rule.setRecent(msg)
		return m.history.Update(msg)
	case statsMsg:
		return m.stats.Update(msg)
	case tea.MouseMsg:
		return m.mouse(msg)
	case tea.KeyMsg:
		// Keys typed faster than the terminal is read arrive as one
		// message ("jjj"); take them one at a time, so each is a key and
		// not a string that matches no binding. Pastes stay whole.
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
			}
			return tea.Batch(cmds...)
		}
		return m.key(msg)
	case list.FilterMatchesMsg:
		// Filters are applied at once, where their text changes (see
		// applyFilter); a result computed in the background is for an
		// older text or an older queue, so it is dropped.
		return nil
	}
	// Anything else (cursor blinks) belongs to the component in focus.
	return m.forward(msg)
}

// apply folds what the watch stream said into the queue.
func (m *Model) apply(ev queueEvent) tea.Cmd {
	switch {
	case ev.added != nil:
		cmd, isNew := m.pending.add(ev.added)
		if !isNew {
			return nil
		}
		return tea.Batch(cmd, m.flash())
	case ev.removed != nil:
		return m.pending.remove(ev.removed, ev.outcome)
	case ev.snapshot != nil:
		cmd, anyNew := m.pending.replace(ev.snapshot)
		cmds := []tea.Cmd{cmd}
		if !ev.first {
			// Asks that arrived while we were away are new to the person too.
			if anyNew {
				cmds = append(cmds, m.flash())
			}
			m.c.setStatus(false, "in sync with limend again: %d pending", len(m.pending.asks))
		} else if ev.wasOut {
			m.c.setStatus(false, "connected to limend: %d pending", len(m.pending.asks))
		}
		m.pending.closeIfGone()
		return tea.Batch(cmds...)
	}
	return nil
}

// forward hands a message to the component that has the focus.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	switch {
	case m.pending.editing(), m.tab == tabPending:
		return m.pending.Update(msg)
	case m.tab == tabHistory:
		return m.history.forward(msg)
	}
	return nil
}

// mouse scrolls the list under the wheel; it is only on with --mouse.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.pending.editing() || msg.Action != tea.MouseActionPress {
		return nil
	}
	l := m.activeList()
	if l == nil {
		return nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		l.CursorUp()
	case tea.MouseButtonWheelDown:
		l.CursorDown()
	}
	return nil
}

func (m *Model) activeList() *list.Model {
	switch m.tab {
	case tabPending:
		return &m.pending.list
	case tabHistory:
		return &m.history.list
	}
	return nil
}

// key routes a key: ctrl+c always quits; an open editor or a filter being
// typed takes every other key as text; then the keys of the whole TUI;
// then the tab's own.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	if l := m.activeList(); m.pending.editing() || (l != nil && l.FilterState() == list.Filtering) {
		return m.tabKey(msg)
	}
	k := &m.c.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.resize()
		return nil
	case key.Matches(msg, k.NextTab):
		return m.setTab((m.tab + 1) % numTabs)
	case key.Matches(msg, k.PrevTab):
		return m.setTab((m.tab + numTabs - 1) % numTabs)
	case key.Matches(msg, k.Pending):
		return m.setTab(tabPending)
	case key.Matches(msg, k.History):
		return m.setTab(tabHistory)
	case key.Matches(msg, k.Stats):
		return m.setTab(tabStats)
	case key.Matches(msg, k.Refresh):
		return m.refresh()
	}
	return m.tabKey(msg)
}

// tabKey hands a key to the tab shown.
func (m *Model) tabKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case m.pending.editing(), m.tab == tabPending:
		return m.pending.Update(msg)
	case m.tab == tabHistory:
		return m.history.Update(msg)
	}
	return m.stats.Update(msg)
}

// mode says what the keys are for: browsing, or an editor of the Pending
// tab.
func (m *Model) mode() mode { return m.pending.mode() }

func (m *Model) quit() tea.Cmd {
	m.Close()
	return tea.Quit
}

func (m *Model) setTab(t tab) tea.Cmd {
	m.tab = t
	m.resize()
	return m.refreshTab()
}

func (m *Model) refresh() tea.Cmd {
	if m.tab != tabPending {
		return m.refreshTab()
	}
	// The pending list is live; a refresh reopens the stream, which sends
	// a fresh snapshot.
	return m.watch.reopen()
}

// refreshTab reloads History or Stats when one of them is shown: opening
// it, or an answer, which changes both.
func (m *Model) refreshTab() tea.Cmd {
	switch m.tab {
	case tabHistory:
		return m.history.fetch()
	case tabStats:
		return m.stats.fetch()
	}
	return nil
}

// flash marks a new ask: the title flashes and counts it, and the bell
// rings if one is set.
func (m *Model) flash() tea.Cmd {
	m.newAsks++
	m.flashing = true
	m.flashSeq++
	seq := m.flashSeq
	cmds := []tea.Cmd{m.c.after(flashFor, func(time.Time) tea.Msg { return flashDoneMsg{seq} })}
	if w := m.c.opts.Bell; w != nil {
		cmds = append(cmds, func() tea.Msg {
			_, _ = w.Write([]byte{'\a'})
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// updateKeys enables the bindings that do something now, so the help line
// shows only those.
func (m *Model) updateKeys() {
	k := &m.c.keys
	browsing := !m.pending.editing()
	canAnswer := m.tab == tabPending && browsing && m.pending.selected() != nil && m.pending.detailFits()
	for _, b := range []*key.Binding{&k.Approve, &k.Deny, &k.ApproveNote, &k.DenyNote, &k.ApproveSession, &k.MakeRule} {
		b.SetEnabled(canAnswer)
	}
	k.Filter.SetEnabled(browsing && m.tab != tabStats)
	k.Up.SetEnabled(browsing && m.tab != tabStats)
	k.Down.SetEnabled(browsing && m.tab != tabStats)
	k.Cancel.SetEnabled(!browsing || (m.activeList() != nil && m.activeList().FilterState() != list.Unfiltered))
}

// resize lays every component out for the window size and the help shown.
func (m *Model) resize() {
	m.help.Width = m.width
	body := m.bodyHeight()
	m.pending.SetSize(m.width, body)
	m.history.SetSize(m.width, body)
}

// bodyHeight is what is left under the header, above the status and help.
func (m *Model) bodyHeight() int {
	return max(3, m.height-3-lipgloss.Height(m.helpView()))
}
