package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/limenhq/limen/internal/peercred"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
)

// dialogMachine is machine() with a second hook process of the same
// claude (node 701: sh 720 → limen-hook 721), and a second claude in the
// person's other tab (node 802 → sh 803 → limen-hook 804), and a process
// the agent left behind in claude's session (730, reparented to init).
func dialogMachine() *procTable {
	pt := machine()
	pt.set(
		peercred.Proc{PID: 720, PPID: 701, Start: 76, Comm: "sh", SID: 700, TTY: tty},
		peercred.Proc{PID: 721, PPID: 720, Start: 77, Comm: "limen-hook", SID: 700, TTY: tty},
		peercred.Proc{PID: 802, PPID: 800, Start: 82, Comm: "node", SID: 800, TTY: tty + 1},
		peercred.Proc{PID: 803, PPID: 802, Start: 83, Comm: "sh", SID: 800, TTY: tty + 1},
		peercred.Proc{PID: 804, PPID: 803, Start: 84, Comm: "limen-hook", SID: 800, TTY: tty + 1},
		peercred.Proc{PID: 730, PPID: 1, Start: 78, Comm: "limen-hook", SID: 700, TTY: tty},
	)
	return pt
}

func newDialogServer(t *testing.T, pt *procTable) *Server {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "limen.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := New(Options{Store: st, Limits: Limits{Rate: 1e9, Burst: 1 << 30}, readProc: pt.read})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// as is a request context from process pid of pt, run by the test's user.
func as(t *testing.T, pt *procTable, pid int) context.Context {
	p, err := pt.read(pid)
	if err != nil {
		t.Fatal(err)
	}
	return peercred.NewContext(t.Context(), peercred.AuthInfo{UID: uint32(os.Getuid()), User: "alice", PID: int32(pid), Start: p.Start, Proc: p})
}

// hookEvent is a Claude Code hook event of session s1 for touch(file).
func hookEvent(event, toolUseID, cwd, file string, extra map[string]any) []byte {
	m := map[string]any{"session_id": "s1", "prompt_id": "p1", "cwd": cwd, "hook_event_name": event,
		"tool_name": "Bash", "tool_input": map[string]any{"command": "touch " + file, "description": "d"}}
	if toolUseID != "" {
		m["tool_use_id"] = toolUseID
	}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

// openDialogAsk has hook 703 of claude 701 ask for touch(file), as
// limen-hook's PreToolUse does.
func openDialogAsk(t *testing.T, s *Server, pt *procTable, cwd, file, toolUseID string) uint64 {
	t.Helper()
	ctx := as(t, pt, 703)
	d, err := s.Decide(ctx, &limenv1.DecideRequest{Action: &limenv1.Action{Agent: "claude-code", Session: "s1", Tool: "Bash",
		InputJson: fmt.Sprintf(`{"command":"touch %s","description":"d"}`, file), Cwd: cwd, ToolUseId: toolUseID}})
	if err != nil {
		t.Fatal(err)
	}
	if d.GetDecision().GetAskId() == "" {
		t.Fatalf("decision %v did not ask", d.GetDecision())
	}
	if err := s.ObserveHook(ctx, hookEvent("PreToolUse", toolUseID, cwd, file, nil), d.GetDecision().GetAskId()); err != nil {
		t.Fatal(err)
	}
	id, _ := store.ParseID(d.GetDecision().GetAskId())
	return id
}

func outcomeOf(t *testing.T, s *Server, id uint64) *limenv1.AskOutcome {
	t.Helper()
	if s.asks.get(id) != nil {
		return nil
	}
	if err := s.store.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	d, err := s.store.Decision(id)
	if err != nil {
		t.Fatal(err)
	}
	return d.GetOutcome()
}

func TestDialogAnswersAreLearned(t *testing.T) {
	cwd := t.TempDir()
	os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755)
	reject := "The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\nnot there"
	for _, c := range []struct {
		name   string
		events func(file, id string) [][]byte
		rule   string // written to settings.local.json after the PermissionRequest
		state  limenv1.AskState
		choice limenv1.Choice
		note   []string
	}{
		{"yes", func(f, id string) [][]byte {
			return [][]byte{hookEvent("PermissionRequest", "", cwd, f, nil), hookEvent("PostToolUse", id, cwd, f, nil)}
		}, "", limenv1.AskState_ASK_STATE_ANSWERED, limenv1.Choice_CHOICE_APPROVE,
			[]string{"claude-code prompt, inferred from PostToolUse of"}},
		{"don't ask again", func(f, id string) [][]byte {
			return [][]byte{hookEvent("PermissionRequest", "", cwd, f, nil), hookEvent("PostToolUse", id, cwd, f, nil)}
		}, "Bash(touch *)", limenv1.AskState_ASK_STATE_ANSWERED, limenv1.Choice_CHOICE_APPROVE,
			[]string{"don't ask again: Bash(touch *)"}},
		{"no with a note", func(f, id string) [][]byte {
			return [][]byte{hookEvent("PermissionRequest", "", cwd, f, nil),
				hookEvent("PostToolBatch", "", cwd, f, map[string]any{"tool_calls": []any{map[string]any{"tool_use_id": id, "tool_name": "Bash", "tool_response": reject}}})}
		}, "", limenv1.AskState_ASK_STATE_ANSWERED, limenv1.Choice_CHOICE_DENY,
			[]string{"inferred from PostToolBatch", "the person said: not there"}},
		{"esc", func(f, id string) [][]byte {
			return [][]byte{hookEvent("PermissionRequest", "", cwd, f, nil), hookEvent("UserPromptSubmit", "", cwd, f, nil)}
		}, "", limenv1.AskState_ASK_STATE_ANSWERED, limenv1.Choice_CHOICE_DENY,
			[]string{"inferred from UserPromptSubmit", "interrupted", "taken as a No"}},
		{"ran with no dialog", func(f, id string) [][]byte {
			return [][]byte{hookEvent("PostToolUse", id, cwd, f, nil)}
		}, "", limenv1.AskState_ASK_STATE_EXPIRED, limenv1.Choice_CHOICE_UNSPECIFIED,
			[]string{"no dialog limen saw"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pt := dialogMachine()
			s := newDialogServer(t, pt)
			os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"), []byte(`{"permissions":{"allow":[]}}`), 0o644)
			file := filepath.Join(cwd, "m-"+strings.ReplaceAll(c.name, " ", "-"))
			id := openDialogAsk(t, s, pt, cwd, file, "toolu_1")
			for i, ev := range c.events(file, "toolu_1") {
				if i == 1 && c.rule != "" {
					os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"), []byte(`{"permissions":{"allow":["`+c.rule+`"]}}`), 0o644)
				}
				// every observing call is a new limen-hook of the same claude
				if err := s.ObserveHook(as(t, pt, 721), ev, ""); err != nil {
					t.Fatal(err)
				}
			}
			o := outcomeOf(t, s, id)
			if o == nil {
				t.Fatal("the ask is still pending")
			}
			if o.GetState() != c.state || o.GetChoice() != c.choice {
				t.Errorf("outcome %v %v, want %v %v", o.GetState(), o.GetChoice(), c.state, c.choice)
			}
			for _, n := range c.note {
				if !strings.Contains(o.GetNote(), n) {
					t.Errorf("note %q does not say %q", o.GetNote(), n)
				}
			}
			if c.state == limenv1.AskState_ASK_STATE_ANSWERED && o.GetAnsweredBy() != "alice" {
				t.Errorf("answered by %q, want the ask's user", o.GetAnsweredBy())
			}
		})
	}
}

// TestForgedEventsAreNotTaken: an event from another runtime (the other
// claude in the person's second tab), from the person's own shell, from a
// process that left claude's tree but not its session, or for an ask that
// is not open, settles nothing.
func TestForgedEventsAreNotTaken(t *testing.T) {
	cwd := t.TempDir()
	pt := dialogMachine()
	s := newDialogServer(t, pt)
	file := filepath.Join(cwd, "m")
	id := openDialogAsk(t, s, pt, cwd, file, "toolu_1")
	for _, pid := range []int{804, 801, 730} {
		for _, ev := range [][]byte{hookEvent("PermissionRequest", "", cwd, file, nil), hookEvent("PostToolUse", "toolu_1", cwd, file, nil), hookEvent("SessionEnd", "", cwd, file, nil)} {
			s.ObserveHook(as(t, pt, pid), ev, "")
		}
		if outcomeOf(t, s, id) != nil {
			t.Fatalf("events from process %d settled the ask of claude 701", pid)
		}
	}
	// A PreToolUse that claims an ask it did not open is refused.
	if err := s.ObserveHook(as(t, pt, 804), hookEvent("PreToolUse", "toolu_9", cwd, file, nil), store.FormatID(id)); err == nil {
		t.Error("a PreToolUse of another tool_use_id was let claim the ask")
	}
	// An event for an id that is not open does nothing.
	if err := s.ObserveHook(as(t, pt, 721), hookEvent("PostToolUse", "toolu_2", cwd, file, nil), ""); err != nil {
		t.Fatal(err)
	}
	if outcomeOf(t, s, id) != nil {
		t.Fatal("an event for another tool_use_id settled the ask")
	}
	// The genuine ones still do.
	s.ObserveHook(as(t, pt, 721), hookEvent("PermissionRequest", "", cwd, file, nil), "")
	s.ObserveHook(as(t, pt, 721), hookEvent("PostToolUse", "toolu_1", cwd, file, nil), "")
	if o := outcomeOf(t, s, id); o.GetChoice() != limenv1.Choice_CHOICE_APPROVE {
		t.Fatalf("outcome %v, want the genuine approval", o)
	}
}

// TestDialogAskDoesNotExpire: while Claude Code's dialog shows an ask (and
// the claude that opened it lives), its expiry does not settle it; once
// that claude is gone, it expires as any ask does.
func TestDialogAskDoesNotExpire(t *testing.T) {
	cwd := t.TempDir()
	pt := dialogMachine()
	s := newDialogServer(t, pt)
	file := filepath.Join(cwd, "m")
	id := openDialogAsk(t, s, pt, cwd, file, "toolu_1")
	s.expire(id) // before the dialog: expires as before
	if o := outcomeOf(t, s, id); o.GetState() != limenv1.AskState_ASK_STATE_EXPIRED {
		t.Fatalf("an ask no dialog shows did not expire: %v", o)
	}
	id = openDialogAsk(t, s, pt, cwd, file, "toolu_2")
	s.ObserveHook(as(t, pt, 721), hookEvent("PermissionRequest", "", cwd, file, nil), "")
	s.expire(id)
	if outcomeOf(t, s, id) != nil {
		t.Fatal("an ask the dialog shows expired on the clock")
	}
	pt.kill(701)
	s.expire(id)
	if o := outcomeOf(t, s, id); o.GetState() != limenv1.AskState_ASK_STATE_EXPIRED {
		t.Fatalf("the ask of a claude that has exited did not expire: %v", o)
	}
}

func TestAllowRules(t *testing.T) {
	dir := t.TempDir()
	if got := allowRules(dir); got == nil || len(got) != 0 {
		t.Errorf("no settings file: %v; want an empty list", got)
	}
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	p := filepath.Join(dir, ".claude", "settings.local.json")
	os.WriteFile(p, []byte(`{"permissions":{"allow":["Bash(python3 *)"]}}`), 0o644)
	if got := allowRules(dir); len(got) != 1 || got[0] != "Bash(python3 *)" {
		t.Errorf("allowRules = %v", got)
	}
	os.WriteFile(p, []byte(`{"permissions":`), 0o644)
	if got := allowRules(dir); got != nil {
		t.Errorf("unreadable settings: %v; want unknown (nil)", got)
	}
	if got := allowRules("relative/dir"); got != nil {
		t.Errorf("a relative cwd: %v; want unknown", got)
	}
	// A FIFO where the settings would be does not hold limend up.
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	if got := allowRules(dir); got != nil {
		t.Errorf("a FIFO: %v; want unknown", got)
	}
}

// TestNestedRuntimeEventsAreNotTaken: a program the agent ran that runs
// limen-hook itself (python3 741 under claude 701's Bash tool, in claude's
// session or in a session of its own) is recorded as a runtime when it
// asks, but its dialog events are no person's: the ask it opens and
// "approves" with a PostToolUse stays pending. A seventh red-team pass
// taught limen a secret read this way.
func TestNestedRuntimeEventsAreNotTaken(t *testing.T) {
	for _, sid := range []int{700, 741} {
		cwd := t.TempDir()
		pt := dialogMachine()
		pt.set(
			peercred.Proc{PID: 740, PPID: 701, Start: 90, Comm: "bash", SID: 700, TTY: tty},
			peercred.Proc{PID: 741, PPID: 740, Start: 91, Comm: "python3", SID: sid},
			peercred.Proc{PID: 742, PPID: 741, Start: 92, Comm: "sh", SID: sid},
			peercred.Proc{PID: 743, PPID: 742, Start: 93, Comm: "limen-hook", SID: sid},
		)
		s := newDialogServer(t, pt)
		file := filepath.Join(cwd, "m")
		openDialogAsk(t, s, pt, cwd, file, "toolu_0") // claude 701 is recorded
		ctx := as(t, pt, 743)
		d, err := s.Decide(ctx, &limenv1.DecideRequest{Action: &limenv1.Action{Agent: "claude-code", Session: "s1", Tool: "Bash",
			InputJson: fmt.Sprintf(`{"command":"touch %s","description":"d"}`, file), Cwd: cwd, ToolUseId: "toolu_f"}})
		if err != nil || d.GetDecision().GetAskId() == "" {
			t.Fatalf("the nested runtime's call was not asked: %v, %v", d, err)
		}
		ask := d.GetDecision().GetAskId()
		if err := s.ObserveHook(ctx, hookEvent("PreToolUse", "toolu_f", cwd, file, nil), ask); err == nil || !strings.Contains(err.Error(), "runs under process 701") {
			t.Errorf("session %d: the nested runtime's PreToolUse was taken (err %v)", sid, err)
		}
		s.ObserveHook(ctx, hookEvent("PermissionRequest", "", cwd, file, nil), "")
		s.ObserveHook(ctx, hookEvent("PostToolUse", "toolu_f", cwd, file, nil), "")
		id, _ := store.ParseID(ask)
		if o := outcomeOf(t, s, id); o != nil {
			t.Fatalf("session %d: the nested runtime settled its own ask: %v", sid, o)
		}
	}
}

// TestEventsFromTheAgentsToolsAreNotTaken: the tenth red-team pass's
// forgery. A tool of the agent's runs under the same claude as its hooks,
// so what it posts passes the ancestry check; but it was started before
// the ask it forges events for (a tool still running, in the background),
// or it could run while the dialog was open (a call of the same session
// limen did not ask about). Either way the events settle nothing as the
// person's: the first are refused, the second close the ask without
// teaching. The runtime's own hooks, started after the ask, still do.
func TestEventsFromTheAgentsToolsAreNotTaken(t *testing.T) {
	cwd := t.TempDir()
	pt := dialogMachine()
	pt.set(
		peercred.Proc{PID: 740, PPID: 701, Start: 72, Comm: "bash", SID: 700, TTY: tty},       // a Bash tool started before the ask
		peercred.Proc{PID: 741, PPID: 740, Start: 90, Comm: "python3", SID: 700, TTY: tty},    // what it runs now
		peercred.Proc{PID: 742, PPID: 741, Start: 91, Comm: "limen-hook", SID: 700, TTY: tty}, // and what that runs
	)
	s := newDialogServer(t, pt)
	file := filepath.Join(cwd, "m")
	id := openDialogAsk(t, s, pt, cwd, file, "toolu_1") // opened by 703, started at 73
	for _, pid := range []int{741, 742} {
		s.ObserveHook(as(t, pt, pid), hookEvent("PermissionRequest", "", cwd, file, nil), "")
		s.ObserveHook(as(t, pt, pid), hookEvent("PostToolUse", "toolu_1", cwd, file, nil), "")
		if o := outcomeOf(t, s, id); o != nil {
			t.Fatalf("events from process %d, under a tool older than the ask, settled it: %v", pid, o)
		}
	}
	// The genuine hooks are younger than the ask: they settle it.
	s.ObserveHook(as(t, pt, 721), hookEvent("PermissionRequest", "", cwd, file, nil), "")
	s.ObserveHook(as(t, pt, 721), hookEvent("PostToolUse", "toolu_1", cwd, file, nil), "")
	if o := outcomeOf(t, s, id); o.GetChoice() != limenv1.Choice_CHOICE_APPROVE {
		t.Fatalf("outcome %v, want the genuine approval", o)
	}

	// A call of the same session that limen let run while the dialog was
	// open could have posted the events: the ask closes, teaching nothing.
	file2 := filepath.Join(cwd, "m2")
	id2 := openDialogAsk(t, s, pt, cwd, file2, "toolu_2")
	s.ObserveHook(as(t, pt, 721), hookEvent("PreToolUse", "toolu_3", cwd, filepath.Join(cwd, "other"), nil), "") // decided, no ask
	s.ObserveHook(as(t, pt, 721), hookEvent("PermissionRequest", "", cwd, file2, nil), "")
	s.ObserveHook(as(t, pt, 721), hookEvent("PostToolUse", "toolu_2", cwd, file2, nil), "")
	o := outcomeOf(t, s, id2)
	if o == nil || o.GetState() != limenv1.AskState_ASK_STATE_EXPIRED || !strings.Contains(o.GetNote(), "could run while its dialog was open") {
		t.Fatalf("outcome %v; want the ask closed as no person's, saying why", o)
	}
}

// TestEventsFromBelowARecordedToolAreNotTaken: the eleventh red-team pass
// had a script the agent ran send one PreToolUse of its own, so that
// limend recorded it under the runtime, and then posted the dialog events
// from a child forked after the ask: younger than the ask, but below a
// tool older than it. They settle nothing; the genuine hooks still do.
func TestEventsFromBelowARecordedToolAreNotTaken(t *testing.T) {
	cwd := t.TempDir()
	pt := dialogMachine()
	pt.set(
		peercred.Proc{PID: 740, PPID: 701, Start: 72, Comm: "bash", SID: 700, TTY: tty},    // a Bash tool started before the ask
		peercred.Proc{PID: 741, PPID: 740, Start: 72, Comm: "python3", SID: 700, TTY: tty}, // the script it runs
		peercred.Proc{PID: 745, PPID: 741, Start: 95, Comm: "python3", SID: 700, TTY: tty}, // forked after the ask
	)
	s := newDialogServer(t, pt)
	// The script's own PreToolUse: limend records it under the runtime.
	side := filepath.Join(cwd, "side")
	if _, err := s.Decide(as(t, pt, 741), &limenv1.DecideRequest{Action: &limenv1.Action{Agent: "claude-code", Session: "side", Tool: "Bash",
		InputJson: fmt.Sprintf(`{"command":"ls %s"}`, side), Cwd: cwd, ToolUseId: "toolu_side"}}); err != nil {
		t.Fatal(err)
	}
	if e, _, _ := s.guard.runtimes.runtimeOf(741, 72); e == nil {
		t.Fatal("the script's Decide recorded nothing: the test would prove nothing")
	}
	file := filepath.Join(cwd, "m")
	id := openDialogAsk(t, s, pt, cwd, file, "toolu_1") // opened by 703, started at 73
	s.ObserveHook(as(t, pt, 745), hookEvent("PermissionRequest", "", cwd, file, nil), "")
	s.ObserveHook(as(t, pt, 745), hookEvent("PostToolUse", "toolu_1", cwd, file, nil), "")
	if o := outcomeOf(t, s, id); o != nil {
		t.Fatalf("events from a child of a recorded tool older than the ask settled it: %v", o)
	}
	s.ObserveHook(as(t, pt, 721), hookEvent("PermissionRequest", "", cwd, file, nil), "")
	s.ObserveHook(as(t, pt, 721), hookEvent("PostToolUse", "toolu_1", cwd, file, nil), "")
	if o := outcomeOf(t, s, id); o.GetChoice() != limenv1.Choice_CHOICE_APPROVE {
		t.Fatalf("outcome %v, want the genuine approval", o)
	}
}
