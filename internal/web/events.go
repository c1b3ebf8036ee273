package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"google.golang.org/grpc"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
)

// watchStream is the service's WatchPending stream, in process: each
// event goes to ch until ctx ends.
type watchStream struct {
	grpc.ServerStream // never called: WatchPending uses Context and Send only
	ctx               context.Context
	ch                chan<- *limenv1.WatchPendingResponse
}

func (s watchStream) Context() context.Context { return s.ctx }

func (s watchStream) Send(ev *limenv1.WatchPendingResponse) error {
	select {
	case s.ch <- ev:
		return nil
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// heartbeat keeps proxies from closing a quiet stream.
const heartbeat = 20 * time.Second

// eventsHandler streams the queue's changes as server-sent events:
//
//   - sync {"ids": [...]}: every ask pending now, first thing on each
//     connection, so the page drops what was answered while it was away;
//   - ask {"id", "html"}: an ask to show;
//   - gone {"id", "how"}: an ask that was answered or expired.
//
// Event ids are the highest ask id sent (ids only grow, and survive a
// restart of limend), so a browser that reconnects with Last-Event-ID
// (or the page's ?after=) is sent only the asks it has not seen.
func (a *App) eventsHandler(w http.ResponseWriter, r *http.Request) {
	d := a.who(r)
	if d == nil {
		http.Error(w, notPaired, http.StatusUnauthorized)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	last := lastEventID(r)
	ctx, cancel := context.WithCancel(a.as(r.Context(), d, ""))
	defer cancel()
	done := a.addStream(d.dev.GetId(), cancel)
	defer done()

	ch := make(chan *limenv1.WatchPendingResponse, 64)
	ended := make(chan error, 1)
	go func() { ended <- a.svc.WatchPending(&limenv1.WatchPendingRequest{}, watchStream{ctx: ctx, ch: ch}) }()

	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 500\n\n")
	fl.Flush()
	var snapshot []*limenv1.PendingAsk
	synced := false
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case ev := <-ch:
			switch ev.GetKind() {
			case limenv1.WatchPendingResponse_KIND_ADDED:
				if !synced {
					snapshot = append(snapshot, ev.GetAsk())
					continue
				}
				last = a.sendAsk(ctx, w, ev.GetAsk(), last)
			case limenv1.WatchPendingResponse_KIND_SYNCED:
				last = a.sendSync(ctx, w, snapshot, last)
				snapshot, synced = nil, true
			case limenv1.WatchPendingResponse_KIND_REMOVED:
				send(w, "gone", last, map[string]string{"id": ev.GetAsk().GetAskId(), "how": how(ev.GetOutcome())})
			}
			fl.Flush()
		case <-tick.C:
			fmt.Fprint(w, ": ping\n\n")
			fl.Flush()
		case <-ended: // limend is stopping, or this stream fell behind: the browser reconnects
			return
		case <-ctx.Done():
			return
		case <-a.stopping:
			return
		}
	}
}

func lastEventID(r *http.Request) uint64 {
	s := r.Header.Get("Last-Event-ID")
	if s == "" {
		s = r.URL.Query().Get("after")
	}
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// sendSync sends the ids pending now, then the asks after last.
func (a *App) sendSync(ctx context.Context, w http.ResponseWriter, asks []*limenv1.PendingAsk, last uint64) uint64 {
	ids := make([]string, len(asks))
	for i, p := range asks {
		ids[i] = p.GetAskId()
	}
	send(w, "sync", last, map[string][]string{"ids": ids})
	for _, p := range asks {
		if id, err := store.ParseID(p.GetAskId()); err == nil && id > last {
			last = a.sendAsk(ctx, w, p, last)
		}
	}
	return last
}

func (a *App) sendAsk(ctx context.Context, w http.ResponseWriter, p *limenv1.PendingAsk, last uint64) uint64 {
	if id, err := store.ParseID(p.GetAskId()); err == nil && id > last {
		last = id
	}
	var html bytes.Buffer
	if err := a.tmpl.ExecuteTemplate(&html, "ask", a.views(ctx, []*limenv1.PendingAsk{p})[0]); err != nil {
		a.log.Error("render an ask", "err", err)
		return last
	}
	send(w, "ask", last, map[string]string{"id": p.GetAskId(), "html": html.String()})
	return last
}

// send writes one event; its data is one line of JSON.
func send(w http.ResponseWriter, event string, id uint64, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\nid: %d\ndata: %s\n\n", event, id, b)
}

// how words an ask's end for the page.
func how(o *limenv1.AskOutcome) string {
	switch {
	case o == nil:
		return "ended"
	case o.GetState() == limenv1.AskState_ASK_STATE_EXPIRED:
		return "expired"
	case o.GetChoice() == limenv1.Choice_CHOICE_APPROVE:
		return "approved by " + o.GetAnsweredBy()
	}
	return "denied by " + o.GetAnsweredBy()
}

// addStream records a live stream of a device, so that revoking the
// device ends it; done forgets it.
func (a *App) addStream(device string, cancel context.CancelFunc) (done func()) {
	key := new(int)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.streams[device] == nil {
		a.streams[device] = map[*int]context.CancelFunc{}
	}
	a.streams[device][key] = cancel
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		delete(a.streams[device], key)
	}
}
