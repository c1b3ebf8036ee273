package tui

import (
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// answer sends a person's answer. The ask stays in the list, marked as
// sending, until limend acknowledges it: only then is it shown as given.
func (m *Model) answer(ask *limenv1.PendingAsk, choice limenv1.Choice, scope limenv1.Scope, note string) tea.Cmd {
	if ask == nil {
		return nil
	}
	id := ask.GetAskId()
	if _, busy := m.sending[id]; busy {
		m.setStatus(false, "the answer to ask %s is still on its way", id)
		return nil
	}
	req := &limenv1.AnswerRequest{AskId: id, Choice: choice, Scope: scope, Note: note}
	m.sending[id] = answerWords(req)
	m.setStatus(false, "sending %s for ask %s…", answerWords(req), id)
	lm := m.opts.Client
	hasSession := ask.GetDecision().GetAction().GetSession() != ""
	ctx, cancel := m.call()
	return func() tea.Msg {
		defer cancel()
		resp, err := lm.Answer(ctx, req)
		return answerSentMsg{req: req, resp: resp, err: err, hasSession: hasSession}
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
func (m *Model) answered(msg answerSentMsg) tea.Cmd {
	id := msg.req.GetAskId()
	delete(m.sending, id)
	if msg.err != nil {
		m.log.Warn("answer not delivered", "ask", id, "err", msg.err)
		if errors.Is(msg.err, client.ErrAnswerRefused) {
			// Someone else answered first, or it expired: not ours.
			m.setStatus(true, "ask %s was not answered by you: %s", id, describeErr(msg.err))
			return nil
		}
		m.setStatus(true, "could not %s ask %s: %s; it is still pending", answerWords(msg.req), id, describeErr(msg.err))
		return nil
	}
	verdict := "allow"
	if msg.resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		verdict = "block"
	}
	if msg.req.GetScope() == limenv1.Scope_SCOPE_SESSION && !msg.hasSession {
		m.setStatus(false, "ask %s: %s sent to the agent (it names no session, so only this once)", id, verdict)
	} else {
		m.setStatus(false, "ask %s: %s sent to the agent (%s)", id, verdict, answerWords(msg.req))
	}
	delete(m.pending, id)
	return tea.Batch(m.syncList(), m.refreshTab())
}

// refreshTab reloads History or Stats when one of them is shown, since an
// answer changes both.
func (m *Model) refreshTab() tea.Cmd {
	switch m.tab {
	case tabHistory:
		return m.fetchHistory()
	case tabStats:
		return m.fetchStats()
	}
	return nil
}

func (m *Model) openNote(ask *limenv1.PendingAsk, choice limenv1.Choice) tea.Cmd {
	if ask == nil {
		return nil
	}
	m.mode, m.target, m.noteChoice = modeNote, ask.GetAskId(), choice
	m.input.Reset()
	m.input.Prompt = "note: "
	m.input.Placeholder = "why (the agent sees this)"
	return m.input.Focus()
}

func (m *Model) closeEditor() {
	m.mode = modeBrowse
	m.input.Blur()
	m.input.Reset()
	m.ruleErr, m.ruleCovered, m.ruleSaving = nil, nil, false
	m.resize()
}

func (m *Model) noteKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case msg.String() == "esc":
		m.closeEditor()
		m.setStatus(false, "cancelled; ask %s is still pending", m.target)
		return nil
	case msg.String() == "enter":
		ask := m.pending[m.target]
		note := m.input.Value()
		m.closeEditor()
		if ask == nil {
			m.setStatus(true, "ask %s is no longer pending", m.target)
			return nil
		}
		return m.answer(ask, m.noteChoice, limenv1.Scope_SCOPE_ONCE, note)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// openRule starts the rule editor with a suggested pattern and loads the
// recent history its preview is drawn from.
func (m *Model) openRule(ask *limenv1.PendingAsk) tea.Cmd {
	if ask == nil {
		return nil
	}
	m.mode, m.target, m.ruleVerdict = modeRule, ask.GetAskId(), policy.Allow
	m.input.Reset()
	m.input.Prompt = "rule: "
	m.input.Placeholder = "Bash(git status), Read(./src/**), mcp__github__*"
	suggestion, _ := suggestRule(ask.GetDecision()) // a refusal is shown by checkRule
	m.input.SetValue(suggestion)
	m.input.CursorEnd()
	m.checkRule()
	return tea.Batch(m.input.Focus(), m.fetchHistory())
}

// checkRule parses the pattern being edited and recomputes its preview.
// A rule that does not decide the ask itself is an error: saving it would
// answer the ask beyond what the rule says.
func (m *Model) checkRule() {
	m.ruleCovered, m.ruleErr = checkRule(m.ruleVerdict, m.input.Value(), m.pending[m.target].GetDecision(), m.history)
}

func (m *Model) ruleKey(msg tea.KeyMsg) tea.Cmd {
	if m.ruleSaving {
		return nil // one save at a time; its result closes the editor
	}
	switch msg.String() {
	case "esc":
		m.closeEditor()
		m.setStatus(false, "no rule made; ask %s is still pending", m.target)
		return nil
	case "tab":
		if m.ruleVerdict == policy.Allow {
			m.ruleVerdict = policy.Block
		} else {
			m.ruleVerdict = policy.Allow
		}
		m.checkRule()
		return nil
	case "enter":
		m.checkRule()
		if m.ruleErr != nil {
			return nil
		}
		if m.pending[m.target] == nil {
			m.closeEditor()
			m.setStatus(true, "ask %s is no longer pending; no rule made", m.target)
			return nil
		}
		m.ruleSaving = true
		m.sending[m.target] = "rule"
		return m.saveRule(m.target, m.input.Value(), m.ruleVerdict)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.checkRule()
	return cmd
}

// maxPolicyRetries bounds the compare-and-set loop when someone else
// changes the policy between our read and our write.
const maxPolicyRetries = 3

// saveRule adds the rule to the policy with compare-and-set, then answers
// the ask the same way: approve for an allow rule, deny for a block rule.
func (m *Model) saveRule(askID, pattern string, v policy.Verdict) tea.Cmd {
	listName, choice := "allow", limenv1.Choice_CHOICE_APPROVE
	if v == policy.Block {
		listName, choice = "block", limenv1.Choice_CHOICE_DENY
	}
	lm := m.opts.Client
	ctx, cancel := m.call()
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
			Note: "made the rule " + pattern}
		resp, err := lm.Answer(ctx, req)
		out.answer = answerSentMsg{req: req, resp: resp, err: err}
		return out
	}
}

func (m *Model) ruleSaved(msg ruleSavedMsg) tea.Cmd {
	m.ruleSaving = false
	if msg.err != nil {
		delete(m.sending, msg.askID)
		m.setStatus(true, "rule not saved: %v; ask %s is still pending", msg.err, msg.askID)
		return nil // the editor stays open so the pattern can be fixed
	}
	m.closeEditor()
	cmd := m.answered(msg.answer)
	if msg.answer.err != nil {
		m.setStatus(true, "rule %s added to %s (policy v%d), but the answer to ask %s was not delivered: %s; it is still pending",
			msg.pattern, msg.list, msg.version, msg.askID, describeErr(msg.answer.err))
		return cmd
	}
	m.setStatus(false, "rule %s added to %s (policy v%d); ask %s %s", msg.pattern, msg.list, msg.version, msg.askID,
		map[string]string{"allow": "approved", "block": "denied"}[msg.list])
	return cmd
}
