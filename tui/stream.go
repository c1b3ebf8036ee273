package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/limenhq/limen/client"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// openWatch starts a new watch stream, ending the old one. Each stream has
// a generation; messages from an older one are dropped.
func (m *Model) openWatch() tea.Cmd {
	if m.streamCancel != nil {
		m.streamCancel()
	}
	m.gen++
	gen := m.gen
	ctx, cancel := context.WithCancel(m.ctx)
	m.streamCancel = cancel
	m.stream = nil
	if m.conn != connLive {
		m.conn = connConnecting
	}
	lm := m.opts.Client
	return func() tea.Msg {
		st, err := lm.WatchPending(ctx)
		if err != nil {
			return watchErrMsg{gen, err}
		}
		return watchOpenedMsg{gen, st}
	}
}

// recv waits for one event of the current stream. Update re-arms it after
// each event, so exactly one Recv is outstanding at a time.
func (m *Model) recv() tea.Cmd {
	st, gen := m.stream, m.gen
	if st == nil {
		return nil
	}
	return func() tea.Msg {
		ev, err := st.Recv()
		if err != nil {
			return watchErrMsg{gen, err}
		}
		return watchEventMsg{gen, ev}
	}
}

// streamFailed notes that limend went away and schedules a reconnect with
// exponential backoff. The asks stay on screen (greyed by the header's
// state) since they are most likely still pending in limend.
func (m *Model) streamFailed(err error) tea.Cmd {
	wasDown := m.outage
	m.outage = true
	m.conn, m.connErr = connDown, err
	m.stream = nil
	wait := m.backoff
	m.backoff = min(m.backoff*2, maxBackoff)
	m.retryAt = m.opts.Now().Add(wait)
	m.log.Warn("watch stream ended; reconnecting", "err", err, "in", wait)
	switch {
	case wasDown:
		// Once per outage: the header counts down the retries, and a
		// later message (an answer that failed) must stay readable.
	case !m.synced:
		m.setStatus(true, "cannot reach limend at %s (%s): start it with limend, or pass --socket", dash(m.opts.Socket), describeErr(err))
	default:
		m.setStatus(true, "lost limend (%s); answers can be sent once it is back", describeErr(err))
	}
	gen := m.gen
	return m.after(wait, func(time.Time) tea.Msg { return reconnectMsg{gen} })
}

// applyEvent folds one watch event into the pending asks.
func (m *Model) applyEvent(ev *limenv1.WatchPendingResponse) tea.Cmd {
	id := ev.GetAsk().GetAskId()
	switch ev.GetKind() {
	case limenv1.WatchPendingResponse_KIND_ADDED:
		if m.staging != nil {
			m.staging[id] = ev.GetAsk()
			return nil
		}
		if _, ok := m.pending[id]; ok {
			return nil
		}
		m.pending[id] = ev.GetAsk()
		return tea.Batch(m.syncList(), m.flash())
	case limenv1.WatchPendingResponse_KIND_REMOVED:
		if m.staging != nil {
			delete(m.staging, id)
			return nil
		}
		if _, ok := m.pending[id]; !ok {
			return nil
		}
		delete(m.pending, id)
		if _, ours := m.sending[id]; !ours {
			m.settledElsewhere(id, ev.GetOutcome())
		}
		return m.syncList()
	case limenv1.WatchPendingResponse_KIND_SYNCED:
		if m.staging == nil {
			return nil
		}
		first, wasOut := !m.synced, m.outage
		before := m.pending
		m.pending, m.staging = m.staging, nil
		m.conn, m.connErr, m.synced, m.outage = connLive, nil, true, false
		m.backoff = minBackoff
		var cmds []tea.Cmd
		cmds = append(cmds, m.syncList())
		if !first {
			// Asks that arrived while we were away are new to the person too.
			for id := range m.pending {
				if _, ok := before[id]; !ok {
					cmds = append(cmds, m.flash())
					break
				}
			}
			m.setStatus(false, "in sync with limend again: %d pending", len(m.pending))
		} else if wasOut {
			m.setStatus(false, "connected to limend: %d pending", len(m.pending))
		}
		// An editor about an ask that is gone has nothing left to answer.
		if m.mode != modeBrowse && m.pending[m.target] == nil && !m.ruleSaving {
			m.closeEditor()
			m.setStatus(false, "ask %s is no longer pending", m.target)
		}
		return tea.Batch(cmds...)
	}
	return nil
}

// settledElsewhere tells the person that an ask left the list without
// their answer, and closes an editor that was about it.
func (m *Model) settledElsewhere(id string, o *limenv1.AskOutcome) {
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
	m.setStatus(false, "ask %s %s", id, what)
	if m.mode != modeBrowse && m.target == id && !m.ruleSaving {
		m.closeEditor()
	}
}

// flash marks a new ask: the title flashes and counts it, and the bell
// rings if one is set.
func (m *Model) flash() tea.Cmd {
	m.newAsks++
	m.flashing = true
	m.flashSeq++
	seq := m.flashSeq
	cmds := []tea.Cmd{m.after(flashFor, func(time.Time) tea.Msg { return flashDoneMsg{seq} })}
	if w := m.opts.Bell; w != nil {
		cmds = append(cmds, func() tea.Msg {
			_, _ = w.Write([]byte{'\a'})
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// describeErr turns a call's error into words for the status line.
func describeErr(err error) string { return client.Describe(err) }
