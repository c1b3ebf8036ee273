package outcome

import (
	"fmt"
	"strings"
	"testing"
)

const src = "alice@100/1"

func ask(id, session, prompt, input string) Ask {
	return Ask{ID: id, Session: session, PromptID: prompt, ToolUseID: "toolu_" + id, Tool: "Bash", Input: input, Source: src}
}

func ev(name, session, id string) Event {
	e := Event{Name: name, Session: session, Source: src, Tool: "Bash"}
	if id != "" {
		e.ToolUseID = "toolu_" + id
	}
	return e
}

func permReq(session, input string) Event {
	e := ev(PermissionRequest, session, "")
	e.Input = input
	return e
}

func ids(os []Outcome) string {
	var b []string
	for _, o := range os {
		b = append(b, fmt.Sprintf("%s:%s:%v", o.Ask.ID, o.Result, o.Person()))
	}
	return strings.Join(b, " ")
}

func TestTrackerEdges(t *testing.T) {
	const inA, inB = `{"command":"a"}`, `{"command":"b"}`
	type step struct {
		e       Event
		want    string // ids(outcomes)
		refused int
	}
	cases := []struct {
		name  string
		asks  []Ask
		steps []step
		open  int // asks left open
	}{
		{"parallel calls bind by input, not by order", []Ask{ask("1", "s", "p", inA), ask("2", "s", "p", inB)}, []step{
			{e: permReq("s", inB)},
			{e: ev(PostToolUse, "s", "2"), want: "2:approved:true"},
			// the first call's PermissionRequest comes late; it binds to 1
			{e: permReq("s", inA)},
			{e: ev(PostToolUse, "s", "1"), want: "1:approved:true"},
		}, 0},
		{"a PostToolUse before its PermissionRequest is no person's answer", []Ask{ask("1", "s", "p", inA)}, []step{
			{e: ev(PostToolUse, "s", "1"), want: "1:approved:false"},
			{e: permReq("s", inA)}, // binds nothing: the ask is closed
		}, 0},
		{"duplicates settle once", []Ask{ask("1", "s", "p", inA)}, []step{
			{e: permReq("s", inA)},
			{e: permReq("s", inA)}, // a second dialog for the same input binds nothing
			{e: ev(PostToolUse, "s", "1"), want: "1:approved:true"},
			{e: ev(PostToolUse, "s", "1")},
			// a rejection after the run contradicts it: reported
			{e: Event{Name: PostToolBatch, Session: "s", Source: src, Calls: []Call{{ToolUseID: "toolu_1", Response: Rejection}}}, refused: 1},
		}, 0},
		{"unknown ids and other sessions are ignored", []Ask{ask("1", "s", "p", inA)}, []step{
			{e: ev(PostToolUse, "s", "9")},
			{e: ev(PostToolUse, "other", "1")},
			{e: ev(UserPromptSubmit, "other", "")},
			{e: permReq("other", inA)},
		}, 1},
		{"a forged event from another runtime is refused and binds nothing", []Ask{ask("1", "s", "p", inA)}, []step{
			{e: func() Event { e := permReq("s", inA); e.Source = "alice@200/1"; return e }(), refused: 1},
			{e: func() Event { e := ev(PostToolUse, "s", "1"); e.Source = "alice@200/1"; return e }(), refused: 1},
			{e: func() Event { e := ev(UserPromptSubmit, "s", ""); e.Source = "mallory@"; return e }()},
			// the genuine events still settle it, as the person answered
			{e: permReq("s", inA)},
			{e: Event{Name: PostToolBatch, Session: "s", Source: src, Calls: []Call{{ToolUseID: "toolu_1", Response: Rejection + " … the user said:\nnot now"}}}, want: "1:denied:true"},
		}, 0},
		{"a forged event for an id that is not open does nothing", nil, []step{
			{e: ev(PostToolUse, "s", "1")},
			{e: Event{Name: PostToolBatch, Session: "s", Source: src, Calls: []Call{{ToolUseID: "toolu_1", Response: Rejection}}}},
		}, 0},
		{"a new prompt closes the last prompt's asks, not its own", []Ask{ask("1", "s", "p1", inA), ask("2", "s", "p2", inB)}, []step{
			{e: func() Event { e := ev(PreToolUse, "s", "3"); e.PromptID = "p2"; return e }(), want: "1:interrupted:false"},
		}, 1},
		{"a run interrupted while it ran is cut short, no one's answer", []Ask{ask("1", "s", "p", inA)}, []step{
			{e: permReq("s", inA)},
			{e: func() Event { e := ev(PostToolUseFailure, "s", "1"); e.IsInterrupt = true; return e }(), want: "1:cut short:false"},
		}, 0},
		{"session end closes every ask of the session", []Ask{ask("1", "s", "p", inA), ask("2", "s", "p", inB), ask("3", "t", "p", inB)}, []step{
			{e: ev(SessionEnd, "s", ""), want: "1:interrupted:false 2:interrupted:false"},
		}, 1},
		{"a batch response that is not the person's No is refused", []Ask{ask("1", "s", "p", inA)}, []step{
			{e: permReq("s", inA)},
			{e: Event{Name: PostToolBatch, Session: "s", Source: src, Calls: []Call{{ToolUseID: "toolu_1", Response: "PreToolUse:Bash hook error: no"}}}, want: "1:refused:false"},
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tr Tracker
			for _, a := range c.asks {
				if err := tr.Open(a); err != nil {
					t.Fatal(err)
				}
			}
			for i, s := range c.steps {
				done, refused := tr.Observe(s.e)
				if got := ids(done); got != s.want {
					t.Errorf("step %d (%s): settled %q, want %q", i, s.e.Name, got, s.want)
				}
				if len(refused) != s.refused {
					t.Errorf("step %d (%s): refused %q, want %d", i, s.e.Name, refused, s.refused)
				}
			}
			if tr.Len() != c.open {
				t.Errorf("%d asks open, want %d", tr.Len(), c.open)
			}
		})
	}
}

func TestOpenRefusesReusedIDs(t *testing.T) {
	var tr Tracker
	if err := tr.Open(ask("1", "s", "p", "{}")); err != nil {
		t.Fatal(err)
	}
	a := ask("2", "s", "p", "{}")
	a.ToolUseID = "toolu_1"
	if err := tr.Open(a); err == nil || !strings.Contains(err.Error(), "already open") {
		t.Errorf("Open of a tool_use_id already open: %v", err)
	}
	if err := tr.Open(Ask{ID: "3", Session: "s"}); err == nil || !strings.Contains(err.Error(), "tool_use_id") {
		t.Errorf("Open without a tool_use_id: %v", err)
	}
}

func TestOpenForgetsTheOldestPastMaxOpen(t *testing.T) {
	var tr Tracker
	for i := range MaxOpen + 1 {
		if err := tr.Open(ask(fmt.Sprint(i), "s", "p", "{}")); err != nil {
			t.Fatal(err)
		}
	}
	if tr.Len() != MaxOpen {
		t.Fatalf("%d open, want %d", tr.Len(), MaxOpen)
	}
	if done, _ := tr.Observe(ev(PostToolUse, "s", "0")); len(done) != 0 {
		t.Errorf("the oldest ask was not forgotten: %v", ids(done))
	}
	if done, _ := tr.Observe(ev(PostToolUse, "s", "1")); len(done) != 1 {
		t.Errorf("ask 1 was forgotten")
	}
}

func TestParseClaudeCode(t *testing.T) {
	e, err := ParseClaudeCode([]byte(`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"description":"d","command":"ls","n":1.50}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Input != `{"command":"ls","description":"d","n":1.50}` {
		t.Errorf("canonical input %s", e.Input)
	}
	for _, c := range []struct{ in, want string }{
		{`[]`, "not a JSON object"},
		{`{"session_id":"s"}`, "hook_event_name"},
		{`{"hook_event_name":"PostToolUse"}`, "session_id"},
		{`{"hook_event_name":"PostToolUse","session_id":"s"}`, "tool_use_id"},
	} {
		if _, err := ParseClaudeCode([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseClaudeCode(%s) = %v, want an error naming %s", c.in, err, c.want)
		}
	}
}

func TestRejectionNote(t *testing.T) {
	for _, c := range []struct {
		in     string
		reject bool
		note   string
	}{
		{Rejection + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse a different file please", true, "use a different file please"},
		{Rejection + " The tool use was rejected.", true, ""},
		{"denied by the PermissionRequest test hook", false, ""},
	} {
		r, n := rejectionNote(c.in)
		if r != c.reject || n != c.note {
			t.Errorf("rejectionNote(%q) = %v, %q", c.in, r, n)
		}
	}
}

func TestPruneForgetsClosedAsks(t *testing.T) {
	var tr Tracker
	tr.Open(ask("1", "s", "p", "{}"))
	tr.Open(ask("2", "s", "p", "{}"))
	tr.Prune(func(id string) bool { return id != "1" }) // 1 was answered in limen
	tr.Observe(permReq("s", "{}"))
	if done, _ := tr.Observe(ev(PostToolUse, "s", "2")); ids(done) != "2:approved:true" {
		t.Errorf("the dialog bound to an ask no longer open: %s", ids(done))
	}
}

// TestContradictionReported: a rejection of a call already settled as
// approved (a forged PostToolUse went first) is reported, not ignored.
func TestContradictionReported(t *testing.T) {
	var tr Tracker
	tr.Open(ask("1", "s", "p", "{}"))
	tr.Observe(permReq("s", "{}"))
	if done, _ := tr.Observe(ev(PostToolUse, "s", "1")); ids(done) != "1:approved:true" {
		t.Fatalf("settled %s", ids(done))
	}
	_, refused := tr.Observe(Event{Name: PostToolBatch, Session: "s", Source: src, Calls: []Call{{ToolUseID: "toolu_1", Response: Rejection}}})
	if len(refused) != 1 || !strings.Contains(refused[0], "CONTRADICTION: ask 1") {
		t.Errorf("refused %q; want the contradiction reported", refused)
	}
	// The batch that follows a real run carries the output: no report.
	_, refused = tr.Observe(Event{Name: PostToolBatch, Session: "s", Source: src, Calls: []Call{{ToolUseID: "toolu_1", Response: "(Bash completed with no output)"}}})
	if len(refused) != 0 {
		t.Errorf("refused %q on an ordinary batch", refused)
	}
}

func TestKnows(t *testing.T) {
	var tr Tracker
	if tr.Knows("s") {
		t.Error("an empty tracker knows session s")
	}
	tr.Open(ask("1", "s", "p", "{}"))
	if !tr.Knows("s") || tr.Knows("t") {
		t.Error("Knows does not follow the open asks")
	}
	tr.Observe(ev(PostToolUse, "s", "1"))
	if !tr.Knows("s") {
		t.Error("an approval an event could contradict is forgotten")
	}
	if SessionOf([]byte(`{"session_id":"s","tool_input":{"x":[1,2]}}`)) != "s" || SessionOf([]byte(`[`)) != "" {
		t.Error("SessionOf misreads")
	}
}
