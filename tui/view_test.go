package tui

import (
	"fmt"
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
