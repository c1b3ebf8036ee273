package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/describe"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// ruleSavedMsg is the outcome of saving a rule and answering its ask.
type ruleSavedMsg struct {
	askID, pattern, list string
	version              uint64
	err                  error // the rule was not saved
	answer               answerSentMsg
}

// ruleEditor is the editor of a hard rule made from an ask (r): it starts
// with a suggested pattern, previews the recent actions the rule would
// cover, refuses a rule that does not decide the ask itself, and saves
// the rule with compare-and-set before answering the ask the same way.
type ruleEditor struct {
	c *common

	open    bool
	ask     *limenv1.PendingAsk // the ask it is about
	verdict policy.Verdict
	input   textinput.Model
	err     error               // why the rule cannot be saved as it stands
	covered []*limenv1.Decision // the recent decisions it also decides
	saving  bool
	width   int

	// The recent decisions the preview is drawn from, as the last history
	// read gave them (nil until one arrives; err if it failed).
	recent    []*limenv1.Decision
	recentErr error
}

func newRuleEditor(c *common) *ruleEditor {
	return &ruleEditor{c: c, input: newInput("rule: ", "Bash(git status), Read(./src/**), mcp__github__*")}
}

// target is the id of the ask the editor is about.
func (e *ruleEditor) target() string { return e.ask.GetAskId() }

// Open starts the editor with a suggested pattern and loads the recent
// history its preview is drawn from.
func (e *ruleEditor) Open(ask *limenv1.PendingAsk) tea.Cmd {
	e.open, e.ask, e.verdict = true, ask, policy.Allow
	e.input.Reset()
	suggestion, _ := suggestRule(ask.GetDecision()) // a refusal is shown by check
	e.input.SetValue(suggestion)
	e.input.CursorEnd()
	e.check()
	return tea.Batch(e.input.Focus(), fetchHistory(e.c))
}

// Close ends the editor; what was typed is gone.
func (e *ruleEditor) Close() {
	e.open = false
	e.input.Blur()
	e.input.Reset()
	e.err, e.covered, e.saving = nil, nil, false
}

// SetWidth fits the editor in w cells.
func (e *ruleEditor) SetWidth(w int) {
	e.width = w
	e.input.Width = max(10, w-len(e.input.Prompt)-1)
}

// setRecent takes a history read for the preview.
func (e *ruleEditor) setRecent(msg historyMsg) {
	e.recent, e.recentErr = msg.decisions, msg.err
	if msg.err == nil && e.open {
		e.check()
	}
}

// check parses the pattern being edited and recomputes its preview. A
// rule that does not decide the ask itself is an error: saving it would
// answer the ask beyond what the rule says.
func (e *ruleEditor) check() {
	e.covered, e.err = checkRule(e.verdict, e.input.Value(), e.ask.GetDecision(), e.recent)
}

// Update takes a key (tab switches allow and block, enter confirms a rule
// that can be saved, esc cancels, anything else edits the pattern) or a
// message for the input. While a save is on its way keys do nothing: its
// result closes the editor.
func (e *ruleEditor) Update(msg tea.Msg) (tea.Cmd, editorResult) {
	k, isKey := msg.(tea.KeyMsg)
	if isKey && e.saving {
		return nil, editorKept
	}
	if isKey {
		switch k.String() {
		case "esc":
			return nil, editorCancelled
		case "tab":
			if e.verdict == policy.Allow {
				e.verdict = policy.Block
			} else {
				e.verdict = policy.Allow
			}
			e.check()
			return nil, editorKept
		case "enter":
			e.check()
			if e.err != nil {
				return nil, editorKept
			}
			return nil, editorConfirmed
		}
	}
	var cmd tea.Cmd
	e.input, cmd = e.input.Update(msg)
	if isKey {
		e.check()
	}
	return cmd, editorKept
}

// maxPolicyRetries bounds the compare-and-set loop when someone else
// changes the policy between our read and our write.
const maxPolicyRetries = 3

// Save adds the rule to the policy with compare-and-set, then answers the
// ask the same way: approve for an allow rule, deny for a block rule.
func (e *ruleEditor) Save() tea.Cmd {
	e.saving = true
	askID, pattern := e.target(), e.input.Value()
	user := e.ask.GetDecision().GetAction().GetUser() // whose answer undo takes back
	listName, choice := "allow", limenv1.Choice_CHOICE_APPROVE
	if e.verdict == policy.Block {
		listName, choice = "block", limenv1.Choice_CHOICE_DENY
	}
	lm := e.c.opts.Client
	ctx, cancel := e.c.call()
	return func() tea.Msg {
		defer cancel()
		out := ruleSavedMsg{askID: askID, pattern: pattern, list: listName}
		for try := 0; ; try++ {
			cur, err := lm.GetPolicy(ctx)
			if err != nil {
				out.err = fmt.Errorf("read the policy: %s", describeErr(err))
				return out
			}
			doc, err := policy.AddRule(cur.GetDocument(), listName, pattern)
			if err != nil {
				out.err = err
				return out
			}
			set, err := lm.SetPolicy(ctx, cur.GetVersion(), doc)
			if errors.Is(err, client.ErrPolicyChanged) && try < maxPolicyRetries {
				continue // changed under us: read it again
			}
			if err != nil {
				out.err = fmt.Errorf("save the policy: %s", describeErr(err))
				return out
			}
			out.version = set.GetVersion()
			break
		}
		req := &limenv1.AnswerRequest{AskId: askID, Choice: choice, Scope: limenv1.Scope_SCOPE_ONCE,
			Note: describe.RuleNotePrefix + pattern}
		resp, err := lm.Answer(ctx, req)
		out.answer = answerSentMsg{req: req, resp: resp, err: err, user: user}
		return out
	}
}

// View is the editor, for the pane.
func (e *ruleEditor) View() string {
	s := e.c.styles
	w, id := e.width, e.target()
	kind, effect := s.Allow.Render("allow"), "approves ask "+id+" and allows what the rule covers from now on"
	if e.verdict == policy.Block {
		kind, effect = s.Block.Render("block"), "denies ask "+id+" and blocks what the rule covers from now on"
	}
	lines := []string{
		s.Heading.Render("Make a rule from ask " + id),
		s.Muted.Render(ansi.Truncate(describe.Action(e.ask.GetDecision().GetAction()), w, "…")),
		"",
		e.input.View(),
		lipgloss.NewStyle().Width(w).Render(fmt.Sprintf("[%s] %s", kind, s.Muted.Render(effect))),
		"",
	}
	switch {
	case e.saving:
		lines = append(lines, s.Sending.Render("saving the rule…"))
	case e.err != nil:
		lines = append(lines, s.StatusErr.Render(lipgloss.NewStyle().Width(w).Render(e.err.Error())))
	case e.recent == nil && e.recentErr == nil:
		lines = append(lines, s.Muted.Render("loading recent actions for the preview…"))
	case e.recentErr != nil:
		lines = append(lines, s.StatusErr.Render("no preview: "+e.recentErr.Error()))
	default:
		// Out of the other actions: the ask's own decision is among the
		// recent ones, and "ask 6 and 0 of the last 7" counted it twice.
		lines = append(lines, s.Heading.Render(fmt.Sprintf("Covers ask %s and %d of the %d other actions recorded lately", id, len(e.covered), otherActions(e.ask.GetDecision().GetAction(), e.recent))))
		for i, d := range e.covered {
			if i == 8 {
				lines = append(lines, s.Muted.Render(fmt.Sprintf("  … and %d more", len(e.covered)-i)))
				break
			}
			// The class shows when a broad rule reaches risky actions.
			lines = append(lines, "  "+ansi.Truncate(fmt.Sprintf("%-8s %-12s %s", shorten(d.GetAction().GetUser(), 8),
				shorten(dash(d.GetRiskClass()), 12), describe.Action(d.GetAction())), w-2, "…"))
		}
	}
	return strings.Join(lines, "\n")
}
