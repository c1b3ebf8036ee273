package tui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
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

// mode says what the keys are for: browsing, or typing into an editor.
type mode int

const (
	modeBrowse mode = iota
	modeNote        // a note to go with an approve or deny
	modeRule        // a hard rule made from the answer
)

// connState is how the watch stream stands.
type connState int

const (
	connConnecting connState = iota
	connLive
	connDown
)

// Reconnect backoff: first retry after minBackoff, doubling up to
// maxBackoff, back to minBackoff once a stream has synced. The cap is
// short: a Unix socket that refuses costs nothing to try, and a person
// whose limend came back should not wait to answer (it once took 13 s).
const (
	minBackoff = 500 * time.Millisecond
	maxBackoff = 2 * time.Second
)

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

// Model is the TUI's state. Use New; it implements tea.Model.
type Model struct {
	// ctx ends the watch stream and every call when the program quits. A
	// bubbletea model lives exactly as long as its program, so it holds the
	// program's context, as Charm's own programs do.
	ctx  context.Context
	opts Options
	log  *slog.Logger
	// after is tea.Tick; tests replace it so that no timer outlives them.
	after func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

	keys   KeyMap
	styles Styles
	help   help.Model

	width, height int
	tab           tab
	mode          mode

	// Pending asks, by id, as limend last told us; staging collects a new
	// stream's snapshot until it is synced.
	pending map[string]*limenv1.PendingAsk
	staging map[string]*limenv1.PendingAsk
	// sending holds the asks whose answer is on its way, with what is sent.
	sending map[string]string
	list    list.Model

	history     []*limenv1.Decision
	historyErr  error
	historyList list.Model
	stats       *limenv1.StatsResponse
	policy      *limenv1.Policy
	statsErr    error

	conn         connState
	connErr      error
	gen          int // the watch stream's generation; older messages are stale
	stream       client.PendingStream
	streamCancel context.CancelFunc
	backoff      time.Duration
	retryAt      time.Time
	synced       bool // the first snapshot has arrived
	outage       bool // the stream failed and has not synced since

	status    string
	statusErr bool

	newAsks  int // asks arrived since the last flash ended
	flashSeq int
	flashing bool

	// Editors.
	input       textinput.Model
	target      string // the ask the editor is about
	noteChoice  limenv1.Choice
	ruleVerdict policy.Verdict
	ruleErr     error
	ruleCovered []*limenv1.Decision
	ruleSaving  bool
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
	m := &Model{
		ctx: ctx, opts: opts, log: opts.Logger,
		keys:    DefaultKeyMap(),
		styles:  DefaultStyles(opts.Renderer),
		pending: map[string]*limenv1.PendingAsk{},
		sending: map[string]string{},
		backoff: minBackoff,
		width:   80, height: 24,
		after: tea.Tick,
	}
	m.help = help.New()
	m.help.Styles = m.styles.Help
	m.list = m.newList(pendingDelegate{m})
	m.historyList = m.newList(historyDelegate{m})
	m.input = textinput.New()
	m.input.Cursor.SetMode(cursor.CursorStatic)
	m.input.CharLimit = 4096
	m.resize()
	return m
}

func (m *Model) newList(d list.ItemDelegate) list.Model {
	l := list.New(nil, d, 0, 0)
	l.SetShowTitle(false)
	l.SetShowStatusBar(false)
	l.SetShowHelp(false)
	l.SetShowPagination(false)
	l.SetFilteringEnabled(true)
	l.Filter = substringFirst
	l.SetShowFilter(false) // the model draws the filter line itself
	l.DisableQuitKeybindings()
	l.FilterInput.Cursor.SetMode(cursor.CursorStatic)
	l.FilterInput.Prompt = "filter: "
	// Only the arrows and page keys move the list: the letters are answers.
	l.KeyMap.PrevPage = key.NewBinding(key.WithKeys("pgup"))
	l.KeyMap.NextPage = key.NewBinding(key.WithKeys("pgdown"))
	l.KeyMap.ShowFullHelp.SetEnabled(false)
	l.KeyMap.CloseFullHelp.SetEnabled(false)
	return l
}

// Close stops the watch stream. The program's end does the same through
// ctx; Close is for callers that drive the model themselves.
func (m *Model) Close() {
	if m.streamCancel != nil {
		m.streamCancel()
	}
}

// Init implements tea.Model: it opens the watch stream and starts the
// clock that keeps ages and countdowns current.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.openWatch(), m.tick(), tea.SetWindowTitle("limen"))
}

// Messages the model sends itself.
type (
	watchOpenedMsg struct {
		gen    int
		stream client.PendingStream
	}
	watchEventMsg struct {
		gen int
		ev  *limenv1.WatchPendingResponse
	}
	watchErrMsg struct {
		gen int
		err error
	}
	reconnectMsg  struct{ gen int }
	answerSentMsg struct {
		req        *limenv1.AnswerRequest
		resp       *limenv1.AnswerResponse
		err        error
		hasSession bool // the ask named an agent session (for SCOPE_SESSION)
	}
	historyMsg struct {
		decisions []*limenv1.Decision
		err       error
	}
	statsMsg struct {
		stats  *limenv1.StatsResponse
		policy *limenv1.Policy
		err    error
	}
	ruleSavedMsg struct {
		askID, pattern, list string
		version              uint64
		err                  error // the rule was not saved
		answer               answerSentMsg
	}
	tickMsg      time.Time
	flashDoneMsg struct{ seq int }
)

func (m *Model) tick() tea.Cmd {
	return m.after(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
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
	case watchOpenedMsg:
		if msg.gen != m.gen {
			return nil
		}
		m.stream = msg.stream
		m.staging = map[string]*limenv1.PendingAsk{}
		return m.recv()
	case watchEventMsg:
		if msg.gen != m.gen {
			return nil
		}
		return tea.Batch(m.applyEvent(msg.ev), m.recv())
	case watchErrMsg:
		if msg.gen != m.gen || m.ctx.Err() != nil {
			return nil
		}
		return m.streamFailed(msg.err)
	case reconnectMsg:
		if msg.gen != m.gen {
			return nil
		}
		return m.openWatch()
	case answerSentMsg:
		return m.answered(msg)
	case ruleSavedMsg:
		return m.ruleSaved(msg)
	case historyMsg:
		m.history, m.historyErr = msg.decisions, msg.err
		if msg.err == nil {
			items := make([]list.Item, len(msg.decisions))
			for i, d := range msg.decisions {
				items[i] = decisionItem{d}
			}
			m.historyList.SetItems(items)
			applyFilter(&m.historyList)
			if m.mode == modeRule {
				m.checkRule()
			}
			return nil
		}
		m.log.Warn("history", "err", msg.err)
		return nil
	case statsMsg:
		m.statsErr = msg.err
		if msg.err == nil {
			m.stats, m.policy = msg.stats, msg.policy
		} else {
			m.log.Warn("stats", "err", msg.err)
		}
		return nil
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
	// Anything else (cursor blinks) belongs to the components.
	return m.forward(msg)
}

// forward hands a message to the component that has the focus.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case m.mode != modeBrowse:
		m.input, cmd = m.input.Update(msg)
	case m.tab == tabPending:
		keep, text := selectedAskID(&m.list), m.list.FilterInput.Value()
		m.list, cmd = m.list.Update(msg)
		applyFilter(&m.list)
		if m.list.FilterInput.Value() != text {
			reselect(&m.list, keep) // a new filter text keeps the ask in view if it still matches
		}
	case m.tab == tabHistory:
		m.historyList, cmd = m.historyList.Update(msg)
		applyFilter(&m.historyList)
	}
	return cmd
}

// substringFirst ranks the items that hold the filter text as it is typed
// (ignoring case) before the fuzzy matches, in queue order: "make" puts
// "make deploy" before an ask whose text only scatters m, a, k and e.
func substringFirst(term string, targets []string) []list.Rank {
	fuzzy := list.DefaultFilter(term, targets)
	lower := strings.ToLower(term)
	out := make([]list.Rank, 0, len(fuzzy))
	exact := map[int]bool{}
	for i, t := range targets {
		if j := strings.Index(strings.ToLower(t), lower); j >= 0 && lower != "" {
			idx := make([]int, 0, len(term))
			for k := range len(lower) {
				idx = append(idx, j+k)
			}
			out = append(out, list.Rank{Index: i, MatchedIndexes: idx})
			exact[i] = true
		}
	}
	for _, r := range fuzzy {
		if !exact[r.Index] {
			out = append(out, r)
		}
	}
	return out
}

// applyFilter filters l's items now. bubbles' list filters in a command
// that runs after the key that changed the filter, so keys that arrive
// faster than that (a paste, tmux send-keys, a quick typist) were taken
// against the items of an older filter: an answer could go to an ask that
// the filter had already hidden. Here a key sees exactly the items that
// the filter text before it selects, and the command's late result is
// dropped in update.
func applyFilter(l *list.Model) {
	state := l.FilterState()
	if state == list.Unfiltered {
		return
	}
	l.SetFilterText(l.FilterInput.Value()) // synchronous; leaves it applied
	if state == list.Filtering {
		l.SetFilterState(list.Filtering) // still typing
	}
}

// selectedAskID is the id of the ask under l's cursor, or "".
func selectedAskID(l *list.Model) string {
	if it, ok := l.SelectedItem().(askItem); ok {
		return it.ask.GetAskId()
	}
	return ""
}

// reselect puts l's cursor back on ask id if it is still shown.
func reselect(l *list.Model, id string) {
	if id == "" {
		return
	}
	for i, it := range l.VisibleItems() {
		if it.(askItem).ask.GetAskId() == id {
			l.Select(i)
			return
		}
	}
}

// mouse scrolls the list under the wheel; it is only on with --mouse.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.mode != modeBrowse || msg.Action != tea.MouseActionPress {
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
		return &m.list
	case tabHistory:
		return &m.historyList
	}
	return nil
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	switch m.mode {
	case modeNote:
		return m.noteKey(msg)
	case modeRule:
		return m.ruleKey(msg)
	}
	// While a filter is typed every key is text for it.
	if l := m.activeList(); l != nil && l.FilterState() == list.Filtering {
		if msg.Type == tea.KeyEnter {
			// Accept the filter as typed, even when it matches nothing:
			// bubbles would clear a filter that matches nothing, which
			// puts every ask back under the next key of a burst.
			if l.FilterInput.Value() == "" {
				l.ResetFilter()
			} else {
				keep := selectedAskID(l)
				l.SetFilterText(l.FilterInput.Value())
				l.FilterInput.Blur()
				reselect(l, keep)
			}
			return nil
		}
		return m.forward(msg)
	}
	k := &m.keys
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
	if m.tab == tabPending {
		ask := m.selected()
		if ask != nil && !m.detailFits() && m.isAnswerKey(msg) {
			m.setStatus(true, "%s", tooSmall(ask.GetAskId()))
			return nil
		}
		switch {
		case key.Matches(msg, k.Approve):
			return m.answer(ask, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE, "")
		case key.Matches(msg, k.Deny):
			return m.answer(ask, limenv1.Choice_CHOICE_DENY, limenv1.Scope_SCOPE_ONCE, "")
		case key.Matches(msg, k.ApproveSession):
			return m.answer(ask, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_SESSION, "")
		case key.Matches(msg, k.ApproveNote):
			return m.openNote(ask, limenv1.Choice_CHOICE_APPROVE)
		case key.Matches(msg, k.DenyNote):
			return m.openNote(ask, limenv1.Choice_CHOICE_DENY)
		case key.Matches(msg, k.MakeRule):
			return m.openRule(ask)
		}
	}
	return m.forward(msg)
}

// isAnswerKey reports whether msg is one of the keys that answer an ask or
// open an answer's editor, enabled or not.
func (m *Model) isAnswerKey(msg tea.KeyMsg) bool {
	k := &m.keys
	for _, b := range []key.Binding{k.Approve, k.Deny, k.ApproveNote, k.DenyNote, k.ApproveSession, k.MakeRule} {
		if slices.Contains(b.Keys(), msg.String()) {
			return true
		}
	}
	return false
}

func (m *Model) quit() tea.Cmd {
	m.Close()
	return tea.Quit
}

func (m *Model) setTab(t tab) tea.Cmd {
	m.tab = t
	m.resize()
	switch t {
	case tabHistory:
		return m.fetchHistory()
	case tabStats:
		return m.fetchStats()
	}
	return nil
}

func (m *Model) refresh() tea.Cmd {
	switch m.tab {
	case tabHistory:
		return m.fetchHistory()
	case tabStats:
		return m.fetchStats()
	}
	// The pending list is live; a refresh reopens the stream, which sends
	// a fresh snapshot.
	m.backoff = minBackoff
	return m.openWatch()
}

// updateKeys enables the bindings that do something now, so the help line
// shows only those.
func (m *Model) updateKeys() {
	k := &m.keys
	canAnswer := m.tab == tabPending && m.mode == modeBrowse && m.selected() != nil && m.detailFits()
	for _, b := range []*key.Binding{&k.Approve, &k.Deny, &k.ApproveNote, &k.DenyNote, &k.ApproveSession, &k.MakeRule} {
		b.SetEnabled(canAnswer)
	}
	browsing := m.mode == modeBrowse
	k.Filter.SetEnabled(browsing && m.tab != tabStats)
	k.Up.SetEnabled(browsing && m.tab != tabStats)
	k.Down.SetEnabled(browsing && m.tab != tabStats)
	k.Cancel.SetEnabled(m.mode != modeBrowse || (m.activeList() != nil && m.activeList().FilterState() != list.Unfiltered))
}

// resize lays every component out for the window size and the help shown.
func (m *Model) resize() {
	m.help.Width = m.width
	lw, lh := m.listSize()
	m.list.SetSize(lw, lh)
	// Below the history list: one line on the selected decision.
	m.historyList.SetSize(m.width, max(1, m.bodyHeight()-2-filterLines(&m.historyList)))
	// The editors sit in the pane: the input fills its inner width.
	pane := m.width
	if m.wide() {
		pane = m.width - m.listWidth() - 1
	}
	m.input.Width = max(10, pane-4-len(m.input.Prompt)-1)
}

// wide reports whether the detail pane stands beside the list rather than
// below it.
func (m *Model) wide() bool { return m.width >= 110 }

// bodyHeight is what is left under the header, above the status and help.
func (m *Model) bodyHeight() int {
	return max(3, m.height-3-lipgloss.Height(m.helpView()))
}

// listSize is the pending list's size (without its column header).
func (m *Model) listSize() (int, int) {
	body := m.bodyHeight() - 1 - filterLines(&m.list)
	if m.wide() {
		return m.listWidth(), body
	}
	return m.width, max(1, min(len(m.list.VisibleItems()), max(3, body/3)))
}

// filterLines is 1 while a filter is typed or applied: its line sits above
// the list.
func filterLines(l *list.Model) int {
	if l.FilterState() == list.Unfiltered {
		return 0
	}
	return 1
}

func (m *Model) listWidth() int {
	if !m.wide() {
		return m.width
	}
	return min(72, m.width/2+4)
}

// selected returns the ask under the cursor, or nil.
func (m *Model) selected() *limenv1.PendingAsk {
	it, ok := m.list.SelectedItem().(askItem)
	if !ok {
		return nil
	}
	return m.pending[it.ask.GetAskId()]
}

// setStatus shows a message on the status line; errors are also logged.
func (m *Model) setStatus(err bool, format string, args ...any) {
	m.status, m.statusErr = fmt.Sprintf(format, args...), err
	if err {
		m.log.Warn(m.status)
	}
}

// syncList rebuilds the list from the pending asks, oldest first, keeping
// the cursor on the same ask when it is still there.
func (m *Model) syncList() tea.Cmd {
	var keep string
	if it, ok := m.list.SelectedItem().(askItem); ok {
		keep = it.ask.GetAskId()
	}
	asks := make([]*limenv1.PendingAsk, 0, len(m.pending))
	for _, a := range m.pending {
		asks = append(asks, a)
	}
	slices.SortFunc(asks, func(a, b *limenv1.PendingAsk) int { return compareIDs(a.GetAskId(), b.GetAskId()) })
	items := make([]list.Item, len(asks))
	for i, a := range asks {
		items[i] = askItem{a}
	}
	idx := m.list.Index()
	m.list.SetItems(items) // its filtering command is replaced by applyFilter
	applyFilter(&m.list)
	m.resize()
	if n := len(m.list.VisibleItems()); n > 0 {
		sel := min(idx, n-1)
		for i, it := range m.list.VisibleItems() {
			if it.(askItem).ask.GetAskId() == keep {
				sel = i
			}
		}
		m.list.Select(sel)
	}
	return tea.SetWindowTitle(m.windowTitle())
}

// compareIDs orders ask ids numerically (they are decimal and grow with
// time), so the oldest ask comes first.
func compareIDs(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func (m *Model) windowTitle() string {
	if n := len(m.pending); n > 0 {
		return fmt.Sprintf("limen (%d pending)", n)
	}
	return "limen"
}

// call gives one unary call its deadline under the program's context.
func (m *Model) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(m.ctx, m.opts.CallTimeout)
}

func (m *Model) fetchHistory() tea.Cmd {
	lm, limit := m.opts.Client, m.opts.HistoryLimit
	ctx, cancel := m.call()
	return func() tea.Msg {
		defer cancel()
		decisions, err := lm.History(ctx, limit)
		if err != nil {
			return historyMsg{err: fmt.Errorf("history: %w", err)}
		}
		return historyMsg{decisions: decisions}
	}
}

func (m *Model) fetchStats() tea.Cmd {
	lm := m.opts.Client
	since := startOfDay(m.opts.Now())
	ctx, cancel := m.call()
	return func() tea.Msg {
		defer cancel()
		st, err := lm.Stats(ctx, since)
		if err != nil {
			return statsMsg{err: fmt.Errorf("stats: %w", err)}
		}
		pol, err := lm.GetPolicy(ctx)
		if err != nil {
			return statsMsg{err: fmt.Errorf("policy: %w", err)}
		}
		return statsMsg{stats: st, policy: pol}
	}
}

func startOfDay(t time.Time) time.Time {
	y, mo, d := t.Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, t.Location())
}
