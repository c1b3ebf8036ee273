package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/describe"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// mode says what the keys are for: browsing, or typing into an editor.
type mode int

const (
	modeBrowse mode = iota
	modeNote        // a note to go with an approve or deny
	modeRule        // a hard rule made from the answer
)

// answerSentMsg is the outcome of an Answer call.
type answerSentMsg struct {
	req        *limenv1.AnswerRequest
	resp       *limenv1.AnswerResponse
	err        error
	hasSession bool   // the ask named an agent session (for SCOPE_SESSION)
	user       string // the ask's user, whose answer undo takes back
}

// pendingTab is the Pending tab: the queue of asks, oldest first, as the
// watch stream tells it; the pane on the selected ask (or the editor that
// is open on it); and the answers on their way.
type pendingTab struct {
	c *common

	// asks are the pending asks, by id, as limend last told us.
	asks map[string]*limenv1.PendingAsk
	// sending holds the asks whose answer is on its way, with what is sent.
	sending map[string]string
	// lastAnswered is the ask this window answered last, which undo (u)
	// takes back ("" when there is none to undo), and lastUser its user.
	lastAnswered, lastUser string
	list                   list.Model
	synced                 bool // a snapshot has arrived: an empty queue is really empty
	// moved is the ask the cursor landed on when the one under it left
	// without this window's answer ("" otherwise): an answer key aimed
	// at the ask that left must not answer the one that took its place
	// (an agent can settle its own ask to move the cursor onto another),
	// so the first such key only says so. Any other key clears it.
	moved string
	// lastRule is the rule made with the last answer (r), which undo
	// leaves in the policy, and says so.
	lastRule string
	// detailTop is the first line of the pane shown when it is taller
	// than the window (J and K move it), for the ask detailFor only: a
	// newly selected ask shows from its top.
	detailTop int
	detailFor string

	note *noteEditor
	rule *ruleEditor

	width, height int
}

func newPendingTab(c *common) *pendingTab {
	p := &pendingTab{c: c, asks: map[string]*limenv1.PendingAsk{}, sending: map[string]string{},
		note: newNoteEditor(c), rule: newRuleEditor(c)}
	p.list = newList(pendingDelegate{p})
	return p
}

// mode says which editor, if any, is open.
func (p *pendingTab) mode() mode {
	switch {
	case p.note.open:
		return modeNote
	case p.rule.open:
		return modeRule
	}
	return modeBrowse
}

func (p *pendingTab) editing() bool { return p.mode() != modeBrowse }

// target is the ask the open editor is about, or "".
func (p *pendingTab) target() string {
	switch p.mode() {
	case modeNote:
		return p.note.target()
	case modeRule:
		return p.rule.target()
	}
	return ""
}

// SetSize lays the tab out in w×h cells.
func (p *pendingTab) SetSize(w, h int) {
	p.width, p.height = w, h
	p.resize()
}

// resize lays the list and the editors out for the tab's size and the
// asks shown (a narrow list is as tall as its asks).
func (p *pendingTab) resize() {
	lw, lh := p.listSize()
	p.list.SetSize(lw, lh)
	// The editors sit in the pane: the input fills its inner width.
	pane := p.width
	if p.wide() {
		pane = p.width - p.listWidth() - 1
	}
	p.note.SetWidth(pane - 4)
	p.rule.SetWidth(pane - 4)
}

// wide reports whether the detail pane stands beside the list rather than
// below it.
func (p *pendingTab) wide() bool { return p.width >= 110 }

// listSize is the list's size (without its column header).
func (p *pendingTab) listSize() (int, int) {
	body := p.height - 1 - filterLines(&p.list)
	if p.wide() {
		return p.listWidth(), body
	}
	return p.width, max(1, min(len(p.list.VisibleItems()), max(3, body/3)))
}

func (p *pendingTab) listWidth() int {
	if !p.wide() {
		return p.width
	}
	return min(72, p.width/2+4)
}

// selected returns the ask under the cursor, or nil.
func (p *pendingTab) selected() *limenv1.PendingAsk {
	it, ok := p.list.SelectedItem().(askItem)
	if !ok {
		return nil
	}
	return p.asks[it.ask.GetAskId()]
}

// Update takes a key (for the open editor, the filter being typed, an
// answer, or the list) or another message for the focused input or list.
func (p *pendingTab) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	switch {
	case p.note.open:
		return p.noteKey(msg)
	case p.rule.open:
		return p.ruleKey(msg)
	case !ok:
		return p.forward(msg)
	case p.list.FilterState() == list.Filtering:
		return filterKey(&p.list, k, p.forward)
	}
	keys := &p.c.keys
	ask := p.selected()
	if moved := p.moved; moved != "" {
		p.moved = ""
		if ask != nil && ask.GetAskId() == moved && p.isAnswerKey(k) {
			p.c.setStatus(true, "the ask you had selected left the queue, and the cursor moved to ask %s: look at it, then press %s again to answer it", moved, k.String())
			return nil
		}
	}
	if ask != nil && !p.detailFits() && p.isAnswerKey(k) {
		p.c.setStatus(true, "%s", tooSmall(ask.GetAskId()))
		return nil
	}
	switch {
	case key.Matches(k, keys.Approve):
		return p.answer(ask, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_ONCE, "")
	case key.Matches(k, keys.Deny):
		return p.answer(ask, limenv1.Choice_CHOICE_DENY, limenv1.Scope_SCOPE_ONCE, "")
	case key.Matches(k, keys.ApproveSession):
		return p.answer(ask, limenv1.Choice_CHOICE_APPROVE, limenv1.Scope_SCOPE_SESSION, "")
	case key.Matches(k, keys.ApproveNote):
		return p.openNote(ask, limenv1.Choice_CHOICE_APPROVE)
	case key.Matches(k, keys.DenyNote):
		return p.openNote(ask, limenv1.Choice_CHOICE_DENY)
	case key.Matches(k, keys.MakeRule):
		return p.openRule(ask)
	case key.Matches(k, keys.Undo):
		return p.undo()
	case key.Matches(k, keys.ScrollDown), key.Matches(k, keys.ScrollUp):
		p.scroll(key.Matches(k, keys.ScrollDown))
		return nil
	}
	return p.forward(msg)
}

// scroll moves the selected ask's pane a line down or up, within what
// there is to show.
func (p *pendingTab) scroll(down bool) {
	ask := p.selected()
	if ask == nil {
		return
	}
	if ask.GetAskId() != p.detailFor {
		p.detailTop, p.detailFor = 0, ask.GetAskId()
	}
	w, h := p.paneSize()
	n := lipgloss.Height(strings.Join(p.detailLines(ask, w-4, true), "\n"))
	maxTop := max(0, n-(h-3)) // h-2 lines inside the border, one of them the hint
	switch {
	case down:
		p.detailTop = min(p.detailTop+1, maxTop)
	default:
		p.detailTop = max(p.detailTop-1, 0)
	}
}

// scrolled is the selected ask's pane content in h lines: all of it when
// it fits, else from the scrolled-to line with a last line that says what
// is above and below and which keys show it. The ask's first lines (what
// it is) are its top, which a new selection shows.
func (p *pendingTab) scrolled(ask *limenv1.PendingAsk, content string, h int) string {
	lines := strings.Split(content, "\n")
	if len(lines) <= h || h < 2 {
		return content
	}
	top := 0
	if ask.GetAskId() == p.detailFor {
		top = min(p.detailTop, len(lines)-(h-1))
	}
	shown := lines[top : top+h-1]
	below := len(lines) - top - len(shown)
	k := &p.c.keys
	var hint string
	switch {
	case below > 0 && top > 0:
		hint = fmt.Sprintf("↑ %d lines above, ↓ %d below: %s/%s scroll", top, below, k.ScrollUp.Help().Key, k.ScrollDown.Help().Key)
	case below > 0:
		hint = fmt.Sprintf("↓ %d more lines: %s scrolls down", below, k.ScrollDown.Help().Key)
	default:
		hint = fmt.Sprintf("↑ %d lines above: %s scrolls up", top, k.ScrollUp.Help().Key)
	}
	return strings.Join(append(shown, p.c.styles.Muted.Render(hint)), "\n")
}

// forgottenMsg is the outcome of undoing an answer.
type forgottenMsg struct {
	askID string
	resp  *limenv1.ForgetResponse
	err   error
}

// undo takes back the last answer given in this window (limenctl forget
// --ask ID): limend keeps it, marked forgotten, and unlearns it. The call
// it answered has already run or been refused; the status says so.
func (p *pendingTab) undo() tea.Cmd {
	id := p.lastAnswered
	if id == "" {
		p.c.setStatus(false, "nothing to undo: no answer was given in this window (limenctl forget --last takes back your last one)")
		return nil
	}
	user := p.lastUser
	p.c.setStatus(false, "taking back your answer to ask %s…", id)
	lm := p.c.opts.Client
	ctx, cancel := p.c.call()
	return func() tea.Msg {
		defer cancel()
		resp, err := lm.Forget(ctx, &limenv1.ForgetRequest{AskIds: []string{id}, User: user})
		return forgottenMsg{askID: id, resp: resp, err: err}
	}
}

// forgotten shows the outcome of an undo.
func (p *pendingTab) forgotten(msg forgottenMsg) {
	switch {
	case msg.err != nil:
		p.c.setStatus(true, "could not take back your answer to ask %s: %s", msg.askID, describeErr(msg.err))
		return
	case len(msg.resp.GetAnswers()) == 0:
		p.c.setStatus(false, "your answer to ask %s was already forgotten", msg.askID)
	case p.lastAnswered == msg.askID && p.lastRule != "":
		// Undo unlearns; the rule made with the answer still decides.
		// Short: the status line is cut at the window's width.
		p.c.setStatus(false, "took back ask %s; its rule %s stays: limenctl policy edit removes it", msg.askID, p.lastRule)
	default:
		p.c.setStatus(false, "took back your answer to ask %s: limen unlearned it (its call had already run or been refused)", msg.askID)
	}
	if p.lastAnswered == msg.askID {
		p.lastAnswered = ""
	}
}

// forward hands a message to the list; a new filter text keeps the ask
// in view if it still matches.
func (p *pendingTab) forward(msg tea.Msg) tea.Cmd {
	keep, text, state := selectedAskID(&p.list), p.list.FilterInput.Value(), p.list.FilterState()
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(msg)
	if refilter(&p.list, text, state) {
		reselect(&p.list, keep)
	}
	return cmd
}

// isAnswerKey reports whether msg is one of the keys that answer an ask or
// open an answer's editor, enabled or not.
func (p *pendingTab) isAnswerKey(msg tea.KeyMsg) bool {
	k := &p.c.keys
	for _, b := range []key.Binding{k.Approve, k.Deny, k.ApproveNote, k.DenyNote, k.ApproveSession, k.MakeRule} {
		if slices.Contains(b.Keys(), msg.String()) {
			return true
		}
	}
	return false
}

// answer sends a person's answer. The ask stays in the list, marked as
// sending, until limend acknowledges it: only then is it shown as given.
func (p *pendingTab) answer(ask *limenv1.PendingAsk, choice limenv1.Choice, scope limenv1.Scope, note string) tea.Cmd {
	if ask == nil {
		return nil
	}
	id := ask.GetAskId()
	if _, busy := p.sending[id]; busy {
		p.c.setStatus(false, "the answer to ask %s is still on its way", id)
		return nil
	}
	req := &limenv1.AnswerRequest{AskId: id, Choice: choice, Scope: scope, Note: note}
	p.sending[id] = answerWords(req)
	p.c.setStatus(false, "sending %s for ask %s…", answerWords(req), id)
	lm := p.c.opts.Client
	hasSession := ask.GetDecision().GetAction().GetSession() != ""
	user := ask.GetDecision().GetAction().GetUser()
	ctx, cancel := p.c.call()
	return func() tea.Msg {
		defer cancel()
		resp, err := lm.Answer(ctx, req)
		return answerSentMsg{req: req, resp: resp, err: err, hasSession: hasSession, user: user}
	}
}

// answerWords says what an answer does, for the status line.
func answerWords(req *limenv1.AnswerRequest) string {
	w := "deny"
	if req.GetChoice() == limenv1.Choice_CHOICE_APPROVE {
		w = "approve"
		if req.GetScope() == limenv1.Scope_SCOPE_SESSION {
			w = "approve for the session"
		}
	}
	if req.GetNote() != "" {
		w += " with a note"
	}
	return w
}

// answered shows the outcome of an Answer call. A failed call leaves the
// ask pending, and says so: the person must not believe the agent was
// answered when it was not.
func (p *pendingTab) answered(msg answerSentMsg) tea.Cmd {
	id := msg.req.GetAskId()
	delete(p.sending, id)
	if msg.err != nil {
		p.c.log.Warn("answer not delivered", "ask", id, "err", msg.err)
		if errors.Is(msg.err, client.ErrAnswerRefused) {
			// Someone else answered first, it expired, or a block rule
			// added since forbids the approval: limend's words say which.
			p.c.setStatus(true, "ask %s was not answered by you: %s", id, describeErr(msg.err))
			return nil
		}
		p.c.setStatus(true, "could not %s ask %s: %s; it is still pending", answerWords(msg.req), id, describeErr(msg.err))
		return nil
	}
	verdict := "allow"
	if msg.resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		verdict = "block"
	}
	// limend does not say whether a caller still waits on the ask (an
	// agent may have given up, a limenctl decide returned): the status
	// says who gets the verdict without claiming it reached anyone.
	if msg.req.GetScope() == limenv1.Scope_SCOPE_SESSION && !msg.hasSession {
		p.c.setStatus(false, "ask %s answered: %s (it names no session, so only this once), for its agent if it still waits", id, verdict)
	} else {
		p.c.setStatus(false, "ask %s answered: %s (%s), for its agent if it still waits", id, verdict, answerWords(msg.req))
	}
	p.lastAnswered, p.lastUser, p.lastRule = id, msg.user, describe.RuleMade(msg.req.GetNote())
	delete(p.asks, id)
	return p.sync()
}

func (p *pendingTab) openNote(ask *limenv1.PendingAsk, choice limenv1.Choice) tea.Cmd {
	if ask == nil {
		return nil
	}
	cmd := p.note.Open(ask, choice)
	p.resize()
	return cmd
}

func (p *pendingTab) noteKey(msg tea.Msg) tea.Cmd {
	cmd, res := p.note.Update(msg)
	id := p.note.target()
	switch res {
	case editorCancelled:
		p.closeEditor()
		p.c.setStatus(false, "cancelled; ask %s is still pending", id)
		return nil
	case editorConfirmed:
		ask, choice, note := p.asks[id], p.note.choice, p.note.note()
		p.closeEditor()
		if ask == nil {
			p.c.setStatus(true, "ask %s is no longer pending", id)
			return nil
		}
		return p.answer(ask, choice, limenv1.Scope_SCOPE_ONCE, note)
	}
	return cmd
}

// openRule starts the rule editor on ask.
func (p *pendingTab) openRule(ask *limenv1.PendingAsk) tea.Cmd {
	if ask == nil {
		return nil
	}
	cmd := p.rule.Open(ask)
	p.resize()
	return cmd
}

func (p *pendingTab) ruleKey(msg tea.Msg) tea.Cmd {
	cmd, res := p.rule.Update(msg)
	id := p.rule.target()
	switch res {
	case editorCancelled:
		p.closeEditor()
		p.c.setStatus(false, "no rule made; ask %s is still pending", id)
		return nil
	case editorConfirmed:
		if p.asks[id] == nil {
			p.closeEditor()
			p.c.setStatus(true, "ask %s is no longer pending; no rule made", id)
			return nil
		}
		p.sending[id] = "rule"
		return p.rule.Save()
	}
	return cmd
}

// ruleSaved shows the outcome of a rule's save and of the answer that
// followed it.
func (p *pendingTab) ruleSaved(msg ruleSavedMsg) tea.Cmd {
	p.rule.saving = false
	if msg.err != nil {
		delete(p.sending, msg.askID)
		p.c.setStatus(true, "rule not saved: %v; ask %s is still pending", msg.err, msg.askID)
		return nil // the editor stays open so the pattern can be fixed
	}
	p.closeEditor()
	cmd := p.answered(msg.answer)
	if msg.answer.err != nil {
		p.c.setStatus(true, "rule %s added to %s (policy v%d), but the answer to ask %s was not delivered: %s; it is still pending",
			msg.pattern, msg.list, msg.version, msg.askID, describeErr(msg.answer.err))
		return cmd
	}
	p.c.setStatus(false, "rule %s added to %s (policy v%d); ask %s %s", msg.pattern, msg.list, msg.version, msg.askID,
		map[string]string{"allow": "approved", "block": "denied"}[msg.list])
	return cmd
}

func (p *pendingTab) closeEditor() {
	p.note.Close()
	p.rule.Close()
	p.resize()
}

// add puts a new ask in the queue; it reports whether the ask is new.
func (p *pendingTab) add(ask *limenv1.PendingAsk) (tea.Cmd, bool) {
	if _, ok := p.asks[ask.GetAskId()]; ok {
		return nil, false
	}
	p.asks[ask.GetAskId()] = ask
	return p.sync(), true
}

// remove takes an ask that limend no longer holds out of the queue. One
// that left without our answer was settled elsewhere: the person is told,
// and an editor about it closes.
func (p *pendingTab) remove(ask *limenv1.PendingAsk, o *limenv1.AskOutcome) tea.Cmd {
	id := ask.GetAskId()
	if _, ok := p.asks[id]; !ok {
		return nil
	}
	delete(p.asks, id)
	if _, ours := p.sending[id]; !ours {
		p.settledElsewhere(id, o)
	}
	return p.sync()
}

// settledElsewhere tells the person that an ask left the list without
// their answer, and closes an editor that was about it.
func (p *pendingTab) settledElsewhere(id string, o *limenv1.AskOutcome) {
	what := "was settled elsewhere"
	switch {
	case o.GetState() == limenv1.AskState_ASK_STATE_EXPIRED:
		what = "expired: nobody answered in time"
	case o.GetChoice() == limenv1.Choice_CHOICE_APPROVE:
		what = "was approved elsewhere"
	case o.GetChoice() == limenv1.Choice_CHOICE_DENY:
		what = "was denied elsewhere"
	}
	if by := o.GetAnsweredBy(); by != "" && o.GetState() == limenv1.AskState_ASK_STATE_ANSWERED {
		what += " by " + by
	}
	p.c.setStatus(false, "ask %s %s", id, what)
	if p.editing() && p.target() == id && !p.rule.saving {
		p.closeEditor()
	}
}

// replace makes a synced snapshot the queue; it reports whether any ask
// in it is new.
func (p *pendingTab) replace(snapshot map[string]*limenv1.PendingAsk) (tea.Cmd, bool) {
	before := p.asks
	p.asks, p.synced = snapshot, true
	anyNew := false
	for id := range p.asks {
		if _, ok := before[id]; !ok {
			anyNew = true
			break
		}
	}
	return p.sync(), anyNew
}

// closeIfGone closes an editor about an ask that is gone: it has nothing
// left to answer.
func (p *pendingTab) closeIfGone() {
	if id := p.target(); p.editing() && p.asks[id] == nil && !p.rule.saving {
		p.closeEditor()
		p.c.setStatus(false, "ask %s is no longer pending", id)
	}
}

// sync rebuilds the list from the pending asks, oldest first, keeping
// the cursor on the same ask when it is still there.
func (p *pendingTab) sync() tea.Cmd {
	keep := selectedAskID(&p.list)
	asks := make([]*limenv1.PendingAsk, 0, len(p.asks))
	for _, a := range p.asks {
		asks = append(asks, a)
	}
	slices.SortFunc(asks, func(a, b *limenv1.PendingAsk) int { return compareIDs(a.GetAskId(), b.GetAskId()) })
	items := make([]list.Item, len(asks))
	for i, a := range asks {
		items[i] = askItem{a}
	}
	idx := p.list.Index()
	p.list.SetItems(items) // its filtering command is replaced by applyFilter
	applyFilter(&p.list)
	p.resize()
	if n := len(p.list.VisibleItems()); n > 0 {
		sel := min(idx, n-1)
		for i, it := range p.list.VisibleItems() {
			if it.(askItem).ask.GetAskId() == keep {
				sel = i
			}
		}
		p.list.Select(sel)
	}
	if _, ours := p.sending[keep]; keep != "" && p.asks[keep] == nil && !ours {
		p.moved = selectedAskID(&p.list) // see pendingTab.moved
	}
	return tea.SetWindowTitle(p.windowTitle())
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

func (p *pendingTab) windowTitle() string {
	if n := len(p.asks); n > 0 {
		return fmt.Sprintf("limen (%d pending)", n)
	}
	return "limen"
}

// View is the tab's content: the list with the pane beside or below it.
func (p *pendingTab) View() string {
	var top []string
	if f, ok := filterLine(&p.list, p.c.styles.Muted); ok {
		top = append(top, f)
	}
	lw := p.listWidth()
	header := pendingHeader(lw)
	if pg := p.list.Paginator; pg.TotalPages > 1 {
		// The list pages when the queue is longer than the screen.
		header += fmt.Sprintf("  (page %d/%d)", pg.Page+1, pg.TotalPages)
	}
	top = append(top, p.c.styles.Muted.Render(ansi.Truncate(header, lw, "")))
	var listView string
	if len(p.asks) == 0 {
		msg := "No asks are waiting. New ones appear here as agents make them."
		if !p.synced {
			msg = "Waiting for limend…"
		}
		listView = p.c.styles.Muted.Render(msg)
	} else {
		listView = p.list.View()
	}
	_, lh := p.listSize()
	left := strings.Join(append(top, fit(listView, lw, lh)), "\n")

	if p.wide() {
		pw := p.width - lw - 1
		pane := p.pane(pw, p.height)
		return lipgloss.JoinHorizontal(lipgloss.Top, fit(left, lw, p.height), " ", pane)
	}
	ph := p.height - lipgloss.Height(left)
	if ph < 3 {
		return left
	}
	return left + "\n" + p.pane(p.width, ph)
}

// paneSize is the size of the pane around the selected ask, zero when
// there is no room for it.
func (p *pendingTab) paneSize() (w, h int) {
	if p.wide() {
		return p.width - p.listWidth() - 1, p.height
	}
	_, lh := p.listSize()
	ph := p.height - (lh + 1 + filterLines(&p.list))
	if ph < 3 {
		return 0, 0
	}
	return p.width, ph
}

// detailFits reports whether what the selected ask is (its id, the
// action in full, where, and its risk) shows on screen.
// A person answers what they read, so the answer keys are off when they
// cannot read it.
func (p *pendingTab) detailFits() bool {
	ask := p.selected()
	w, h := p.paneSize()
	if ask == nil || w < 24 || h < 3 {
		return false
	}
	return lipgloss.Height(strings.Join(p.detailLines(ask, w-4, false), "\n")) <= h-2
}

func tooSmall(id string) string {
	return "The window is too small to show ask " + id + " in full; enlarge it to answer (the answer keys are off until then)."
}

// pane is the bordered box beside or below the list: the selected ask, or
// the editor that is open.
func (p *pendingTab) pane(w, h int) string {
	inner, innerH := w-4, h-2
	s := p.c.styles
	var content string
	switch {
	case p.note.open:
		content = p.note.View()
	case p.rule.open:
		content = p.rule.View()
	case p.selected() != nil && !p.detailFits():
		content = s.Muted.Render(tooSmall(p.selected().GetAskId()))
	case p.selected() != nil:
		content = p.scrolled(p.selected(), strings.Join(p.detailLines(p.selected(), inner, true), "\n"), innerH)
	case len(p.asks) > 0:
		content = s.Muted.Render("Nothing matches the filter.")
	default:
		content = s.Muted.Render("When an agent asks, the action, its context and\nlimen's reasoning show here.")
	}
	return s.Pane.Width(w - 2).Height(innerH).Render(fit(content, inner, innerH))
}

// row is one labelled line of the detail pane; long values wrap under
// themselves.
func (p *pendingTab) row(label, value string, w int) string {
	vw := max(10, w-p.c.styles.Label.GetWidth())
	return lipgloss.JoinHorizontal(lipgloss.Top, p.c.styles.Label.Render(label), lipgloss.NewStyle().Width(vw).Render(value))
}

// detailLines are everything a person needs to decide on one ask; without
// extra, only what the action is (its id, tool, arguments, where and its
// risk), which must fit on screen for the ask to be answered.
func (p *pendingTab) detailLines(ask *limenv1.PendingAsk, w int, extra bool) []string {
	s := p.c.styles
	d := ask.GetDecision()
	act := d.GetAction()
	now := p.c.now()
	head := s.Heading.Render("Ask "+ask.GetAskId()) +
		s.Muted.Render(fmt.Sprintf(" · asked %s ago · ", describe.Age(now.Sub(d.GetTime().AsTime())))) + p.expiry(ask)
	if what, ok := p.sending[ask.GetAskId()]; ok {
		head += " " + s.Sending.Render("sending "+what+"…")
	}
	lines := []string{head, ""}
	lines = append(lines, p.row("Tool", act.GetTool(), w))
	label, text := argumentsOf(act)
	lines = append(lines, p.row(label, text, w))
	// What decides comes first, so a short terminal still shows it.
	lines = append(lines,
		p.row("Cwd", dash(act.GetCwd()), w),
		p.row("Risk", describe.RiskClass(d), w))
	if len(d.GetParts()) > 1 {
		// The risk above is the deciding part's: show every part, so
		// a harmless first line does not hide what decided.
		var rows []string
		for _, r := range describe.Parts(d) {
			rows = append(rows, r.String())
		}
		lines = append(lines, p.row("Parts", strings.Join(rows, "\n"), w))
	}
	if !extra {
		return lines
	}
	lines = append(lines,
		p.row("p", p.bar(d.GetP(), d.GetThresholds(), w-s.Label.GetWidth()), w),
		p.row("Why", d.GetReason(), w),
		p.row("Answers", p.answerChoices(d), w),
		p.row("Who", fmt.Sprintf("%s · %s · session %s", dash(act.GetUser()), dash(act.GetAgent()), dash(act.GetSession())), w),
	)
	if ev := d.GetEvidence(); ev != nil && ev.GetLevel() != "" {
		at := "at " + ev.GetLevel()
		if ev.GetLevel() == "prior" {
			at = "for this user: limen's prior alone"
		}
		lines = append(lines, p.row("Evidence", fmt.Sprintf("%s approved, %s denied %s (weight %.1f)",
			num(ev.GetApprovals()), num(ev.GetDenials()), at, ev.GetEffectiveCount()), w))
	}
	if d.GetKey() != "" {
		lines = append(lines, p.row("Key", d.GetKey(), w))
	}
	return lines
}

// answerChoices says, before a key is pressed, what each answer will do
// (describe.AnswerChoices: the words limenctl decide and answer show).
func (p *pendingTab) answerChoices(d *limenv1.Decision) string {
	k := &p.c.keys
	keyOf := map[string]string{"once": k.Approve.Help().Key, "session": k.ApproveSession.Help().Key,
		"always": k.MakeRule.Help().Key, "deny": k.Deny.Help().Key}
	var out []string
	for _, ch := range describe.AnswerChoices(d) {
		out = append(out, keyOf[ch.Name]+" "+ch.Name+": "+ch.Short)
	}
	return strings.Join(out, "\n")
}

// expiry is the time left before the ask expires, louder when little is
// left.
func (p *pendingTab) expiry(ask *limenv1.PendingAsk) string {
	s := p.c.styles
	left := ask.GetExpiresAt().AsTime().Sub(p.c.now())
	switch {
	case ask.GetExpiresAt() == nil:
		return s.Muted.Render("no expiry")
	case left <= 0:
		return s.Block.Render("expiring now")
	case left < time.Minute:
		return s.Block.Render("expires in " + clock(left))
	}
	return s.Muted.Render("expires in " + clock(left))
}

// bar draws p on a scale from 0 to 1 with the block and allow thresholds
// marked: block zone, ask zone and allow zone, and where p falls.
//
//	0.42 ░░░░░░░░░░░░│────●─────────────│▓▓ block<0.50 allow>0.95
func (p *pendingTab) bar(pv float64, th *limenv1.Thresholds, w int) string {
	s := p.c.styles
	cells := max(10, min(40, w-8))
	lo, hi := th.GetBlockBelow(), th.GetAllowAbove()
	pos := func(x float64) int { return min(cells-1, max(0, int(math.Round(x*float64(cells-1))))) }
	at, loAt, hiAt := pos(pv), pos(lo), pos(hi)
	var b strings.Builder
	for i := range cells {
		switch {
		case i == at:
			st := s.Ask
			if pv > hi {
				st = s.Allow
			} else if pv < lo {
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
	return fmt.Sprintf("%.3f %s\n%s", pv, b.String(), s.Muted.Render(scale))
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

type pendingDelegate struct{ p *pendingTab }

func (pendingDelegate) Height() int                         { return 1 }
func (pendingDelegate) Spacing() int                        { return 0 }
func (pendingDelegate) Update(tea.Msg, *list.Model) tea.Cmd { return nil }

func (pd pendingDelegate) Render(w io.Writer, l list.Model, index int, item list.Item) {
	it, ok := item.(askItem)
	if !ok {
		return
	}
	p := pd.p
	d := it.ask.GetDecision()
	a := d.GetAction()
	width := l.Width()
	agent, session := pendingColumns(width)
	cursor := "  "
	if index == l.Index() {
		cursor = "› "
	}
	line := fmt.Sprintf("%s%-5s %4s %-8s ", cursor, shorten(it.ask.GetAskId(), 5), describe.Age(p.c.now().Sub(d.GetTime().AsTime())), shorten(dash(a.GetUser()), 8))
	if agent {
		line += fmt.Sprintf("%-11s ", shorten(dash(a.GetAgent()), 11))
	}
	if session {
		line += fmt.Sprintf("%-8s ", shorten(dash(a.GetSession()), 8))
	}
	rest := describe.Action(a)
	if what, ok := p.sending[it.ask.GetAskId()]; ok {
		rest = "sending " + what + "… " + rest
	}
	line = ansi.Truncate(line+rest, width, "…")
	if index == l.Index() {
		line = p.c.styles.Selected.Render(line)
	}
	fmt.Fprint(w, line)
}
