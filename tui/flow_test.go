package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// runtime drives a model the way bubbletea does: commands run in their
// own goroutines and their messages come back to Update one at a time.
type runtime struct {
	t    *testing.T
	ctx  context.Context
	m    *Model
	msgs chan tea.Msg
}

func (r *runtime) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		select {
		case r.msgs <- msg:
		case <-r.ctx.Done():
		}
	}()
}

// until processes messages until cond holds, failing after a few seconds.
func (r *runtime) until(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case msg := <-r.msgs:
			switch msg := msg.(type) {
			case nil, tea.QuitMsg:
			case tea.BatchMsg:
				for _, c := range msg {
					r.run(c)
				}
			default:
				_, cmd := r.m.Update(msg)
				r.run(cmd)
			}
		case <-deadline:
			r.t.Fatalf("timed out waiting until %s; status %q, conn %v, pending %v", what, r.m.c.status, r.m.watch.conn, pendingIDs(r.m))
		}
	}
}

func (r *runtime) press(k string) {
	_, cmd := r.m.Update(keyMsg(k))
	r.run(cmd)
}

// TestFlowWithLimend runs the TUI against a real limend on a temporary
// socket: an ask appears through the watch stream, the TUI approves it and
// the agent's waiting Await returns allow; an ask answered elsewhere
// disappears; when limend stops the TUI says so, refuses to show an answer
// it could not deliver, and reconnects when limend is back.
func TestFlowWithLimend(t *testing.T) {
	dir := t.TempDir()
	cfg := daemon.Config{
		Socket:          filepath.Join(dir, "run", "limend.sock"),
		DB:              filepath.Join(dir, "data", "limen.db"),
		ShutdownTimeout: 2 * time.Second,
		LockTimeout:     time.Second,
	}
	d, err := daemon.Start(cfg, nil)
	if err != nil {
		t.Fatalf("start limend: %v", err)
	}
	t.Cleanup(func() {
		// t.Context is done by now; give the stop its own bound.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := d.Stop(ctx); err != nil {
			t.Errorf("stop limend: %v", err)
		}
	})
	c, err := client.Dial(cfg.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// An ask rule makes every command an ask, whatever the predictor
	// learns from the answers below.
	cur, err := c.GetPolicy(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(policy.DefaultDocument, "ask = []", `ask = ["Bash"]`, 1)
	if _, err := c.SetPolicy(t.Context(), cur.GetVersion(), doc); err != nil {
		t.Fatalf("SetPolicy: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	m := New(ctx, Options{Client: c, Renderer: NewRenderer(nil, true), CallTimeout: 2 * time.Second})
	defer m.Close()
	// Real timers, but ones that end with the test.
	m.c.after = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg {
			select {
			case at := <-time.After(d):
				return fn(at)
			case <-ctx.Done():
				return nil
			}
		}
	}
	r := &runtime{t: t, ctx: ctx, m: m, msgs: make(chan tea.Msg, 64)}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	r.run(m.watch.open())
	r.until("the first snapshot arrives", func() bool { return m.watch.synced && m.watch.conn == connLive })

	decide := func(cmd string) string {
		t.Helper()
		v := c.Decide(t.Context(), &limenv1.Action{
			User: "ana", Agent: "claude-code", Session: "s1", Tool: "Bash",
			InputJson: `{"command":"` + cmd + `"}`, Cwd: "/home/ana/shop"})
		if v.Err != nil || v.Decision.GetAskId() == "" {
			t.Fatalf("Decide(%s) = %v %q, %v; want an ask", cmd, v.Verdict, v.Reason, v.Err)
		}
		return v.Decision.GetAskId()
	}

	// An ask appears without a refresh, and the TUI approves it.
	id := decide("npm run test")
	r.until("the ask appears", func() bool { return m.pending.asks[id] != nil && selectedID(m) == id })
	if !strings.Contains(plain(m.View()), "npm run test") {
		t.Errorf("the view does not show the ask:\n%s", plain(m.View()))
	}
	awaited := make(chan *limenv1.AwaitResponse, 1)
	go func() {
		resp, err := c.Await(t.Context(), id, 5*time.Second)
		if err != nil {
			t.Errorf("Await: %v", err)
		}
		awaited <- resp
	}()
	r.press("a")
	r.until("the answer is acknowledged", func() bool { return m.pending.asks[id] == nil && strings.Contains(m.c.status, "answered: allow") })
	select {
	case resp := <-awaited:
		if resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("Await = %v; want allow", resp)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Await did not return after the TUI approved")
	}

	// An ask answered elsewhere (as limenctl answer does) disappears.
	other := decide("terraform plan")
	r.until("the second ask appears", func() bool { return m.pending.asks[other] != nil })
	if _, err := c.Answer(t.Context(), &limenv1.AnswerRequest{AskId: other, Choice: limenv1.Choice_CHOICE_DENY}); err != nil {
		t.Fatal(err)
	}
	r.until("the ask answered elsewhere disappears", func() bool { return m.pending.asks[other] == nil })
	if !strings.Contains(m.c.status, "denied elsewhere") {
		t.Errorf("status %q; want it to say the ask was denied elsewhere", m.c.status)
	}

	// limend stops: the TUI says so, and an answer cannot be given.
	left := decide("make deploy")
	r.until("the third ask appears", func() bool { return m.pending.asks[left] != nil })
	if err := d.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.until("the TUI notices limend is gone", func() bool { return m.watch.conn == connDown })
	if !strings.Contains(plain(m.View()), "limend unreachable") {
		t.Errorf("the header does not say limend is unreachable:\n%s", plain(m.View()))
	}
	r.press("a")
	r.until("the answer fails", func() bool { return len(m.pending.sending) == 0 && strings.Contains(m.c.status, "could not approve") })
	if m.pending.asks[left] == nil || !m.c.statusErr {
		t.Errorf("ask %s pending %v, status %q; want it kept and the error shown", left, m.pending.asks[left] != nil, m.c.status)
	}

	// limend is back: the TUI reconnects by itself and the ask is still
	// there to answer.
	d, err = daemon.Start(cfg, nil)
	if err != nil {
		t.Fatalf("restart limend: %v", err)
	}
	r.until("the TUI reconnects", func() bool { return m.watch.conn == connLive && m.pending.asks[left] != nil })
	r.press("d")
	r.until("the deny is acknowledged", func() bool { return m.pending.asks[left] == nil && strings.Contains(m.c.status, "answered: block") })
}
