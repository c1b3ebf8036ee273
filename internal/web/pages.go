package web

import (
	"fmt"
	"html/template"
	"net/http"
	"time"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
)

var funcs = template.FuncMap{
	"prob":    func(f float64) string { return fmt.Sprintf("%.3f", f) },
	"rfc3339": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12]
		}
		return s
	},
}

// queuePage is the logged-in person's pending asks.
func (a *App) queuePage(w http.ResponseWriter, r *http.Request) {
	d := a.who(r)
	if d == nil {
		w.WriteHeader(http.StatusUnauthorized)
		a.render(w, "message.html", map[string]any{"Title": "Not paired", "Message": notPaired, "Unpaired": true})
		return
	}
	ctx := a.as(r.Context(), d, "")
	resp, err := a.svc.ListPending(ctx, &limenv1.ListPendingRequest{})
	if err != nil {
		a.problem(w, r, http.StatusServiceUnavailable, "limend cannot list the asks now; reload in a moment")
		return
	}
	views := a.views(ctx, resp.GetAsks())
	var last uint64
	for _, v := range views {
		if id, err := store.ParseID(v.ID); err == nil && id > last {
			last = id
		}
	}
	a.render(w, "queue.html", map[string]any{"User": d.dev.GetUser(), "Device": d.dev.GetName(), "Asks": views, "Last": last})
}

// askPage is one ask (a notification's view action opens it), or why it
// can no longer be answered.
func (a *App) askPage(w http.ResponseWriter, r *http.Request) {
	d := a.who(r)
	if d == nil {
		w.WriteHeader(http.StatusUnauthorized)
		a.render(w, "message.html", map[string]any{"Title": "Not paired", "Message": notPaired, "Unpaired": true})
		return
	}
	ctx := a.as(r.Context(), d, "")
	p, code, msg := a.lookup(ctx, r.PathValue("id"))
	if code != http.StatusOK {
		a.problem(w, r, code, msg)
		return
	}
	v := a.views(ctx, []*limenv1.PendingAsk{p})[0]
	a.render(w, "queue.html", map[string]any{"User": d.dev.GetUser(), "Device": d.dev.GetName(), "Asks": []AskView{v}, "Single": true})
}
