package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestApprovalRefusedByLimend: against a real limend, approving an ask
// that a block rule added since forbids is refused; the TUI says why in
// limend's words, keeps the ask, and a deny then goes through. This is the
// client's ErrAnswerRefused, read by the TUI without any gRPC code.
func TestApprovalRefusedByLimend(t *testing.T) {
	l := limentest.Start(t)
	c := l.Client
	asking := strings.Replace(policy.DefaultDocument, "ask = []", `ask = ["Bash"]`, 1)
	l.SetPolicy(t, asking)
	v := c.Decide(t.Context(), &limenv1.Action{User: "ana", Agent: "claude-code", Session: "s1", Tool: "Bash",
		InputJson: `{"command":"make deploy"}`, Cwd: "/home/ana/shop"})
	id := v.Decision.GetAskId()
	if v.Err != nil || id == "" {
		t.Fatalf("Decide = %v %q, %v; want an ask", v.Verdict, v.Reason, v.Err)
	}
	blocking, err := policy.AddRule(asking, "block", "Bash(make:*)")
	if err != nil {
		t.Fatal(err)
	}
	l.SetPolicy(t, blocking)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	m := New(ctx, Options{Client: c, Renderer: NewRenderer(nil, true), CallTimeout: 2 * time.Second})
	defer m.Close()
	m.c.after = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	r := &runtime{t: t, ctx: ctx, m: m, msgs: make(chan tea.Msg, 64)}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	r.run(m.watch.open())
	r.until("the ask is shown", func() bool { return selectedID(m) == id })

	r.press("a")
	r.until("the approval comes back", func() bool { return len(m.pending.sending) == 0 })
	if !m.c.statusErr || !strings.Contains(m.c.status, "ask "+id+" was not answered by you") ||
		!strings.Contains(m.c.status, "the policy in force now blocks it") {
		t.Errorf("status %q; want the refusal in limend's words", m.c.status)
	}
	if m.pending.asks[id] == nil {
		t.Fatalf("ask %s left the list after a refused approval", id)
	}
	r.press("d")
	r.until("the deny is acknowledged", func() bool { return m.pending.asks[id] == nil && strings.Contains(m.c.status, "answered: block") })
}
