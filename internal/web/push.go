package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/limenhq/limen/internal/server"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// PushConfig sends a notification by the ntfy protocol (a plain HTTP POST
// to a topic URL on a server the user runs or trusts) when an ask is
// queued.
type PushConfig struct {
	// URL is the ntfy topic, such as https://ntfy.example.com/limen-ana;
	// empty turns push off.
	URL string
	// Token is the ntfy access token (sent as a bearer token); empty sends
	// none, for a topic that needs none.
	Token string
	// FullCommand puts the whole command in the message; by default it
	// names only the tool and the class, since a notification passes
	// through the push server and shows on a locked screen.
	FullCommand bool
	// DenyClasses are the classes whose notification offers a one-tap
	// Deny (none by default: the organisation opts in).
	DenyClasses []string
	// Client sends the requests; nil means one with a 10 s timeout.
	Client *http.Client
}

// pushToken is a one-tap answer in a notification: good once, for one
// choice on one revision of one ask.
type pushToken struct {
	askID, user, choice string
	revision            uint64
}

// pusher sends the notifications and holds their tokens.
type pusher struct {
	cfg    PushConfig
	app    *App
	deny   map[string]bool
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	tokens  map[string]pushToken // token → binding
	byAsk   map[string]string    // ask id → token
	failing bool                 // the push server is failing (logged once)
}

func newPusher(cfg PushConfig, a *App) (*pusher, error) {
	p := &pusher{cfg: cfg, app: a, deny: map[string]bool{}, tokens: map[string]pushToken{}, byAsk: map[string]string{}}
	if cfg.URL == "" {
		return p, nil
	}
	if !strings.HasPrefix(cfg.URL, "https://") && !strings.HasPrefix(cfg.URL, "http://") {
		return nil, fmt.Errorf("--push-url %q: give the ntfy topic's URL, such as https://ntfy.example.com/limen-%s", cfg.URL, "yourname")
	}
	if p.cfg.Client == nil {
		p.cfg.Client = &http.Client{Timeout: 10 * time.Second}
	}
	for _, c := range cfg.DenyClasses {
		p.deny[c] = true
	}
	ctx, cancel := context.WithCancel(server.WithGateway(context.Background(), "web-push"))
	p.cancel, p.done = cancel, make(chan struct{})
	ch := make(chan *limenv1.WatchPendingResponse, 64)
	go func() {
		defer close(p.done)
		go a.svc.WatchPending(&limenv1.WatchPendingRequest{}, watchStream{ctx: ctx, ch: ch})
		p.run(ctx, ch)
	}()
	return p, nil
}

// run sends one notification per ask queued after the watch began (those
// pending at start were announced by the limend that queued them) and
// forgets the token of each ask that ends.
func (p *pusher) run(ctx context.Context, ch <-chan *limenv1.WatchPendingResponse) {
	synced := false
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-ch:
			switch ev.GetKind() {
			case limenv1.WatchPendingResponse_KIND_SYNCED:
				synced = true
			case limenv1.WatchPendingResponse_KIND_ADDED:
				if synced {
					p.notify(ctx, ev.GetAsk())
				}
			case limenv1.WatchPendingResponse_KIND_REMOVED:
				p.ended(ev.GetAsk().GetAskId())
			}
		}
	}
}

func (p *pusher) stop() {
	if p.cancel != nil {
		p.cancel()
		<-p.done
	}
}

// ended deletes the token of an ask that was answered or expired.
func (p *pusher) ended(askID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.byAsk[askID]; ok {
		delete(p.tokens, t)
		delete(p.byAsk, askID)
	}
}

// take uses a token up.
func (p *pusher) take(token string) (pushToken, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.tokens[token]
	if ok {
		delete(p.tokens, token)
		delete(p.byAsk, t.askID)
	}
	return t, ok
}

// notify POSTs one ask to the ntfy topic. A failure leaves the ask as it
// is, pending, and is logged once until the server answers again.
func (p *pusher) notify(ctx context.Context, ask *limenv1.PendingAsk) {
	pol, rev := p.app.policyNow(ctx)
	v := viewOf(ask, pol, rev, p.app.sign, p.app.now())
	msg := fmt.Sprintf("%s wants to run %s (%s)", dashed(v.Agent), v.Tool, v.Class)
	if p.cfg.FullCommand {
		msg += ":\n" + v.ArgText
	}
	view := p.app.base + "/asks/" + v.ID
	actions := "view, Open, " + view
	if p.deny[v.Class] {
		token := randomToken(24)
		p.mu.Lock()
		p.tokens[token] = pushToken{askID: v.ID, user: v.User, choice: "deny", revision: rev}
		p.byAsk[v.ID] = token
		p.mu.Unlock()
		actions += "; http, Deny, " + p.app.base + "/push/" + token + ", method=POST, clear=true"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.URL, bytes.NewBufferString(msg))
	if err != nil {
		p.failed(err)
		return
	}
	req.Header.Set("Title", "limen asks "+v.User+": ask "+v.ID)
	req.Header.Set("Tags", "lock")
	req.Header.Set("Click", view)
	req.Header.Set("Actions", actions)
	if p.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.cfg.Token)
	}
	resp, err := p.cfg.Client.Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			err = fmt.Errorf("the push server answered %s", resp.Status)
		}
	}
	if err != nil {
		p.failed(err)
		return
	}
	p.mu.Lock()
	was := p.failing
	p.failing = false
	p.mu.Unlock()
	if was {
		p.app.log.Info("push server reachable again", "url", p.cfg.URL)
	}
}

func (p *pusher) failed(err error) {
	p.mu.Lock()
	was := p.failing
	p.failing = true
	p.mu.Unlock()
	if !was {
		p.app.log.Warn("push notification not sent; asks stay pending, answer them in limenctl tui or the web app (logged once until the push server answers)", "url", p.cfg.URL, "err", err)
	}
}

func dashed(s string) string {
	if s == "" {
		return "an agent"
	}
	return s
}

// pushAnswer is a notification's one-tap Deny. The token is the
// credential: random, used once, bound to its ask, revision and choice,
// and only ever a deny, which cannot run anything.
func (a *App) pushAnswer(w http.ResponseWriter, r *http.Request) {
	t, ok := a.push.take(r.PathValue("token"))
	if !ok {
		http.Error(w, "this notification's action is used, expired or unknown", http.StatusGone)
		return
	}
	ctx := server.WithWebCaller(r.Context(), server.WebCaller{User: t.user, Channel: "push"})
	if _, rev := a.policyNow(ctx); rev != t.revision {
		http.Error(w, "the policy changed since the notification was sent: answer in the web app", http.StatusConflict)
		return
	}
	c := choices[t.choice]
	if _, err := a.svc.Answer(ctx, &limenv1.AnswerRequest{AskId: t.askID, Choice: c.choice, Scope: c.scope, Note: "denied from a notification"}); err != nil {
		if _, code, msg := a.lookup(ctx, t.askID); code != http.StatusOK {
			http.Error(w, msg, code)
			return
		}
		http.Error(w, "limend did not take the answer; the ask stays pending", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
