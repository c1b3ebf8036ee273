package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestViewGolden renders every view at 80 and 120 columns, colour
// stripped, against testdata/*.golden (go test ./tui -update rewrites them).
func TestViewGolden(t *testing.T) {
	views := []struct {
		name  string
		setup func(t *testing.T, m *Model)
	}{
		{"pending", func(*testing.T, *Model) {}},
		{"pending-second", func(t *testing.T, m *Model) { press(t, m, "j") }},
		{"pending-help", func(t *testing.T, m *Model) { press(t, m, "?") }},
		{"pending-filter", func(t *testing.T, m *Model) { press(t, m, "/"); typeText(t, m, "bob"); press(t, m, "enter") }},
		{"note", func(t *testing.T, m *Model) { press(t, m, "D"); typeText(t, m, "never force-push main") }},
		{"rule", func(t *testing.T, m *Model) { press(t, m, "r") }},
		{"rule-block", func(t *testing.T, m *Model) { press(t, m, "r", "tab") }},
		{"rule-invalid", func(t *testing.T, m *Model) { press(t, m, "r", "ctrl+u"); typeText(t, m, "Bash(git push") }},
		{"history", func(t *testing.T, m *Model) { press(t, m, "tab") }},
		{"history-note", func(t *testing.T, m *Model) { press(t, m, "tab", "j", "j", "j") }},
		{"pending-pages", func(t *testing.T, m *Model) {
			asks, _ := fixtures()
			for i := range 12 {
				a := proto.CloneOf(asks[i%3])
				a.AskId = fmt.Sprint(100 + i)
				m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: a}})
			}
		}},
		{"stats", func(t *testing.T, m *Model) { press(t, m, "3") }},
		{"disconnected", func(t *testing.T, m *Model) {
			m.Update(watchErrMsg{gen: m.watch.gen, err: status.Error(codes.Unavailable, "connection refused")})
		}},
		{"answer-failed", func(t *testing.T, m *Model) {
			m.c.opts.Client.(*fakeAPI).answerErr = status.Error(codes.Unavailable, "connection refused")
			press(t, m, "a")
		}},
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 30}} {
		for _, v := range views {
			name := fmt.Sprintf("%s-%d", v.name, size.w)
			t.Run(name, func(t *testing.T) {
				m, _ := newTestModel(t, size.w, size.h)
				v.setup(t, m)
				got := plain(m.View())
				golden(t, name, got)
				checkSize(t, got, size.w, size.h)
			})
		}
	}
}

// checkSize fails when the view is wider or taller than the window.
func checkSize(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := splitLines(view)
	if len(lines) > h {
		t.Errorf("view has %d lines; the window has %d", len(lines), h)
	}
	for i, l := range lines {
		if n := displayWidth(l); n > w {
			t.Errorf("line %d is %d cells wide; the window has %d: %q", i+1, n, w, l)
		}
	}
}

var _ = time.Second

// TestDetailScrolls: at 80×24 the selected ask's pane is taller than the
// window: its last line says how much is below and which key shows it
// (the trial saw it cut off after "r always", nothing said so), J scrolls
// down to the Key at the bottom and no further, K back up, and another
// ask shows from its top.
func TestDetailScrolls(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	v := plain(m.View())
	if !strings.Contains(v, "more lines: J scrolls down") || strings.Contains(v, "Key      Bash:git push") {
		t.Fatalf("the pane does not say it goes on:\n%s", v)
	}
	for range 30 {
		press(t, m, "J")
	}
	v = plain(m.View())
	if !strings.Contains(v, "Key      Bash:git push [-f] origin main") || !strings.Contains(v, "lines above: K scrolls up") || !strings.Contains(v, "d deny:") {
		t.Errorf("scrolled to the bottom, the pane lacks the deny answer, the key or the hint:\n%s", v)
	}
	checkSize(t, v, 80, 24)
	press(t, m, "K")
	if v := plain(m.View()); !strings.Contains(v, "below: K/J scroll") {
		t.Errorf("a line up from the bottom, the hint does not say both ways:\n%s", v)
	}
	press(t, m, "j")
	if v := plain(m.View()); !strings.Contains(v, "│ Ask 42 · asked") {
		t.Errorf("the next ask does not show from its top:\n%s", v)
	}
}
