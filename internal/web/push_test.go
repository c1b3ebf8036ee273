package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/web"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

type pushed struct {
	header http.Header
	body   string
}

// ntfy is a stand-in ntfy server: it records each publish.
func ntfy(t *testing.T) (*httptest.Server, <-chan pushed) {
	ch := make(chan pushed, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ch <- pushed{r.Header.Clone(), string(b)}
	}))
	t.Cleanup(srv.Close)
	return srv, ch
}

func next(t *testing.T, ch <-chan pushed) pushed {
	t.Helper()
	select {
	case p := <-ch:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10s")
	}
	return pushed{}
}

var denyAction = regexp.MustCompile(`http, Deny, (https://[^,]+/push/[^,]+), method=POST`)

func TestPushNotifiesAndDeniesOnce(t *testing.T) {
	srv, ch := ntfy(t)
	l := startWeb(t, func(c *daemon.Config) {
		c.Web.Push = web.PushConfig{URL: srv.URL + "/limen-ana", Token: "tk_secret", DenyClasses: []string{"destructive"}}
	})
	user := me(t, l)
	client := newClient(t, l)

	id := decide(t, l, user, "rm -rf build")
	p := next(t, ch)
	if got := p.header.Get("Authorization"); got != "Bearer tk_secret" {
		t.Errorf("Authorization = %q; want the access token", got)
	}
	if !strings.Contains(p.body, "Bash (destructive)") || strings.Contains(p.body, "rm -rf") {
		t.Errorf("message = %q; want the tool and class, not the command (not opted in)", p.body)
	}
	if !strings.Contains(p.header.Get("Actions"), "view, Open, "+l.Web().URL()+"/asks/"+id) {
		t.Errorf("Actions = %q; want a view action opening ask %s", p.header.Get("Actions"), id)
	}
	m := denyAction.FindStringSubmatch(p.header.Get("Actions"))
	if m == nil {
		t.Fatalf("Actions = %q; want a one-tap deny for the destructive class", p.header.Get("Actions"))
	}
	tap := func(u string) int {
		resp, err := client.Post(u, "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := tap(m[1]); st != http.StatusNoContent {
		t.Fatalf("one-tap deny = %d; want 204", st)
	}
	if a := await(t, l, id); a.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK {
		t.Errorf("Await after the deny = %v; want block", a)
	}
	if st := tap(m[1]); st != http.StatusGone {
		t.Errorf("the same token again = %d; want 410 (used once)", st)
	}
	h, _ := l.Client.API.History(t.Context(), &limenv1.HistoryRequest{AsksOnly: true, Limit: 1})
	if o := h.GetDecisions()[0].GetOutcome(); o.GetChannel() != "push" {
		t.Errorf("outcome = %v; want channel push", o)
	}

	// A class the organisation did not enable gets no deny action.
	decide(t, l, user, "git status")
	if p := next(t, ch); strings.Contains(p.header.Get("Actions"), "Deny") {
		t.Errorf("read-only notification offers %q; want no deny", p.header.Get("Actions"))
	}
	// A token dies with its ask, whoever answered it.
	id = decide(t, l, user, "rm -rf dist")
	m = denyAction.FindStringSubmatch(next(t, ch).header.Get("Actions"))
	if _, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_DENY}); err != nil {
		t.Fatal(err)
	}
	gone := func() bool { return tap(m[1]) == http.StatusGone }
	if !eventually(gone) {
		t.Errorf("the token of an ask answered elsewhere still works")
	}
}

// eventually polls cond for a few seconds: the token is dropped when the
// watcher sees the ask end, just after the answer returns.
func eventually(cond func() bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

func TestPushFullCommandIsOptIn(t *testing.T) {
	srv, ch := ntfy(t)
	l := startWeb(t, func(c *daemon.Config) { c.Web.Push = web.PushConfig{URL: srv.URL + "/t", FullCommand: true} })
	decide(t, l, me(t, l), "git push origin main")
	if p := next(t, ch); !strings.Contains(p.body, "git push origin main") || p.header.Get("Authorization") != "" {
		t.Errorf("notification = %q %v; want the full command and no token", p.body, p.header)
	}
}

// logs records what the web app logs.
type logs struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logs) Enabled(context.Context, slog.Level) bool { return true }
func (l *logs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}
func (l *logs) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logs) WithGroup(string) slog.Handler      { return l }
func (l *logs) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.HasPrefix(m, prefix) {
			n++
		}
	}
	return n
}

// TestUnreachablePushLeavesAsksPending: a push server that is down costs
// a log line, once, and nothing else: the asks wait for a person.
func TestUnreachablePushLeavesAsksPending(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	rec := &logs{}
	l := startWeb(t, func(c *daemon.Config) {
		c.Web.Push = web.PushConfig{URL: down.URL + "/t"}
		c.Web.Logger = slog.New(rec)
	})
	user := me(t, l)
	a, b := decide(t, l, user, "git status"), decide(t, l, user, "git log")
	if !eventually(func() bool { return rec.count("push notification not sent") >= 1 }) {
		t.Fatal("an unreachable push server was not logged")
	}
	resp, err := l.Client.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	if err != nil || len(resp.GetAsks()) != 2 {
		t.Fatalf("pending = %v, %v; want asks %s and %s still pending", resp, err, a, b)
	}
}

// TestFailingPushIsLoggedOnce: while the push server keeps failing, one
// log line says so, not one per ask.
func TestFailingPushIsLoggedOnce(t *testing.T) {
	tried := make(chan struct{}, 16)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		tried <- struct{}{}
	}))
	t.Cleanup(failing.Close)
	rec := &logs{}
	l := startWeb(t, func(c *daemon.Config) {
		c.Web.Push = web.PushConfig{URL: failing.URL + "/t"}
		c.Web.Logger = slog.New(rec)
	})
	user := me(t, l)
	for _, cmd := range []string{"git status", "git log", "git diff"} {
		decide(t, l, user, cmd)
		select {
		case <-tried:
		case <-time.After(10 * time.Second):
			t.Fatal("no notification tried within 10s")
		}
	}
	// The third attempt's failure is handled once its response is read;
	// the log count settles by the time the pending list is read back.
	if !eventually(func() bool { return rec.count("push notification not sent") == 1 }) || rec.count("push notification not sent") != 1 {
		t.Errorf("logged %d times for 3 failed notifications; want once", rec.count("push notification not sent"))
	}
}
