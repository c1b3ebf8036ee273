package tui

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/limenhq/limen/client"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
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

// The watch stream's messages.
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
	reconnectMsg struct{ gen int }
)

// watch is the component that keeps limend's watch stream open: it
// opens it, receives one event at a time, reconnects with backoff when it
// breaks, and collects each new stream's snapshot until it is synced. It
// does not hold the queue; Update says what each event means for it.
type watch struct {
	c *common

	conn    connState
	connErr error
	gen     int // the stream's generation; older messages are stale
	stream  client.PendingStream
	cancel  context.CancelFunc
	backoff time.Duration
	retryAt time.Time
	synced  bool // the first snapshot has arrived
	outage  bool // the stream failed and has not synced since
	// staging collects a new stream's snapshot until it is synced.
	staging map[string]*limenv1.PendingAsk
}

func newWatch(c *common) *watch { return &watch{c: c, backoff: minBackoff} }

// queueEvent is what a stream message means for the queue of asks: at
// most one of added, removed and snapshot is set.
type queueEvent struct {
	added   *limenv1.PendingAsk
	removed *limenv1.PendingAsk // with outcome: how it was settled
	outcome *limenv1.AskOutcome
	// snapshot is every ask pending now, when a stream has synced; first
	// says it is the first since the TUI started, wasOut that a failed
	// stream came before it.
	snapshot      map[string]*limenv1.PendingAsk
	first, wasOut bool
}

// open starts a new watch stream, ending the old one. Each stream has a
// generation; messages from an older one are dropped.
func (w *watch) open() tea.Cmd {
	if w.cancel != nil {
		w.cancel()
	}
	w.gen++
	gen := w.gen
	ctx, cancel := context.WithCancel(w.c.ctx)
	w.cancel = cancel
	w.stream = nil
	if w.conn != connLive {
		w.conn = connConnecting
	}
	lm := w.c.opts.Client
	return func() tea.Msg {
		st, err := lm.WatchPending(ctx)
		if err != nil {
			return watchErrMsg{gen, err}
		}
		return watchOpenedMsg{gen, st}
	}
}

// reopen opens a fresh stream at once (a refresh): its snapshot rebuilds
// the list.
func (w *watch) reopen() tea.Cmd {
	w.backoff = minBackoff
	return w.open()
}

// close ends the stream.
func (w *watch) close() {
	if w.cancel != nil {
		w.cancel()
	}
}

// recv waits for one event of the current stream. Update re-arms it after
// each event, so exactly one Recv is outstanding at a time.
func (w *watch) recv() tea.Cmd {
	st, gen := w.stream, w.gen
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

// Update handles the stream's own messages and returns, besides the next
// command, what an event means for the queue (the zero queueEvent when
// nothing).
func (w *watch) Update(msg tea.Msg) (tea.Cmd, queueEvent) {
	switch msg := msg.(type) {
	case watchOpenedMsg:
		if msg.gen != w.gen {
			return nil, queueEvent{}
		}
		w.stream = msg.stream
		w.staging = map[string]*limenv1.PendingAsk{}
		return w.recv(), queueEvent{}
	case watchEventMsg:
		if msg.gen != w.gen {
			return nil, queueEvent{}
		}
		return w.recv(), w.event(msg.ev)
	case watchErrMsg:
		if msg.gen != w.gen || w.c.ctx.Err() != nil {
			return nil, queueEvent{}
		}
		return w.failed(msg.err), queueEvent{}
	case reconnectMsg:
		if msg.gen != w.gen {
			return nil, queueEvent{}
		}
		return w.open(), queueEvent{}
	}
	return nil, queueEvent{}
}

// event folds one watch event into the snapshot being collected, or
// passes it on to the queue once the stream is synced.
func (w *watch) event(ev *limenv1.WatchPendingResponse) queueEvent {
	id := ev.GetAsk().GetAskId()
	switch ev.GetKind() {
	case limenv1.WatchPendingResponse_KIND_ADDED:
		if w.staging != nil {
			w.staging[id] = ev.GetAsk()
			return queueEvent{}
		}
		return queueEvent{added: ev.GetAsk()}
	case limenv1.WatchPendingResponse_KIND_REMOVED:
		if w.staging != nil {
			delete(w.staging, id)
			return queueEvent{}
		}
		return queueEvent{removed: ev.GetAsk(), outcome: ev.GetOutcome()}
	case limenv1.WatchPendingResponse_KIND_SYNCED:
		if w.staging == nil {
			return queueEvent{}
		}
		out := queueEvent{snapshot: w.staging, first: !w.synced, wasOut: w.outage}
		w.staging = nil
		w.conn, w.connErr, w.synced, w.outage = connLive, nil, true, false
		w.backoff = minBackoff
		return out
	}
	return queueEvent{}
}

// failed notes that limend went away and schedules a reconnect with
// exponential backoff. The asks stay on screen (greyed by the header's
// state) since they are most likely still pending in limend.
func (w *watch) failed(err error) tea.Cmd {
	wasDown := w.outage
	w.outage = true
	w.conn, w.connErr = connDown, err
	w.stream = nil
	wait := w.backoff
	w.backoff = min(w.backoff*2, maxBackoff)
	w.retryAt = w.c.now().Add(wait)
	w.c.log.Warn("watch stream ended; reconnecting", "err", err, "in", wait)
	switch {
	case wasDown:
		// Once per outage: the header counts down the retries, and a
		// later message (an answer that failed) must stay readable.
	case !w.synced:
		w.c.setStatus(true, "cannot reach limend at %s (%s): start it with limend (or for good: limenctl service install), or pass --socket", dash(w.c.opts.Socket), describeErr(err))
	default:
		w.c.setStatus(true, "lost limend (%s); answers can be sent once it is back", describeErr(err))
	}
	gen := w.gen
	return w.c.after(wait, func(time.Time) tea.Msg { return reconnectMsg{gen} })
}

// View is the connection state, for the right of the header.
func (w *watch) View() string {
	s := w.c.styles
	switch w.conn {
	case connLive:
		right := s.Allow.Render("● live")
		if w.c.opts.Socket != "" {
			right += s.Muted.Render(" · " + w.c.opts.Socket)
		}
		return right
	case connConnecting:
		return s.Ask.Render("○ connecting to limend…")
	}
	wait := max(0, w.retryAt.Sub(w.c.now()).Round(time.Second))
	return s.Block.Render(fmt.Sprintf("○ limend unreachable · retrying in %s", wait))
}

// describeErr turns a call's error into words for the status line.
func describeErr(err error) string { return client.Describe(err) }
