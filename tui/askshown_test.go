package tui

import (
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// askShown starts a real limend, has it ask about the Bash command (JSON
// string text, escapes kept) and returns a TUI of the given width that
// shows the ask, for the tests of what an ask's pane says.
func askShown(t *testing.T, command string, width int) (*client.Client, *Model, *runtime, client.Verdict) {
	t.Helper()
	l := limentest.Start(t)
	c := l.Client
	v := c.Decide(t.Context(), &limenv1.Action{User: "ana", Agent: "claude-code", Session: "s1", Tool: "Bash",
		InputJson: `{"command":"` + command + `"}`, Cwd: "/home/ana/shop"})
	id := v.Decision.GetAskId()
	if v.Err != nil || id == "" {
		t.Fatalf("Decide = %v %q, %v; want an ask", v.Verdict, v.Reason, v.Err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	m := New(ctx, Options{Client: c, Renderer: NewRenderer(nil, true), CallTimeout: 2 * time.Second})
	t.Cleanup(m.Close)
	m.c.after = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	r := &runtime{t: t, ctx: ctx, m: m, msgs: make(chan tea.Msg, 64)}
	m.Update(tea.WindowSizeMsg{Width: width, Height: 40})
	r.run(m.watch.open())
	r.until("the ask is shown", func() bool { return selectedID(m) == id })
	return c, m, r, v
}
