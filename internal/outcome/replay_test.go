package outcome

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The logs in testdata/claude-code-2.1.328/ are the real hook events of
// Claude Code 2.1.328, driven in tmux by the interactive claude-harness
// (drive.py SCENARIO; docs/integrations.md says how), trimmed by dropping
// transcript_path, effort and permission_suggestions. "reply" lines are
// what the harness's own PermissionRequest hook printed.

type logLine struct {
	Seq   int             `json:"seq"`
	Event string          `json:"event"`
	Input json.RawMessage `json:"input"`
	Reply string          `json:"reply"`
}

func readLog(t *testing.T, name string) []logLine {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "claude-code-2.1.328", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// replayOpts say how limen took part in the recorded session.
type replayOpts struct {
	// rules is the project's allow list as limend would read it at
	// event seq (nil: not read).
	rules func(seq int) []string
	// limenPermReq: the reply lines are limen's own PermissionRequest
	// hook's answers (HookAnswer); otherwise another hook's.
	limenPermReq bool
}

// replay feeds a log to a Tracker as limend would, as if limen-hook's
// PreToolUse had asked for every call (the ask id is the tool_use_id).
func replay(t *testing.T, name string, o replayOpts) []Outcome {
	t.Helper()
	lines := readLog(t, name)
	var tr Tracker
	var all []Outcome
	for i, l := range lines {
		if l.Input == nil {
			continue
		}
		e, err := ParseClaudeCode(l.Input)
		if err != nil {
			t.Fatalf("%s seq %d: %v", name, l.Seq, err)
		}
		e.Source = "alice@claude"
		if o.rules != nil {
			e.Rules = o.rules(l.Seq)
		}
		if e.Name == PermissionRequest && o.limenPermReq {
			for _, r := range lines[i+1:] {
				if r.Event == PermissionRequest && r.Input != nil {
					break
				}
				if r.Event == PermissionRequest && r.Reply != "" {
					var v struct {
						H struct {
							D struct {
								B string `json:"behavior"`
							} `json:"decision"`
						} `json:"hookSpecificOutput"`
					}
					json.Unmarshal([]byte(r.Reply), &v)
					e.HookAnswer = v.H.D.B
					break
				}
			}
		}
		done, refused := tr.Observe(e)
		if len(refused) > 0 {
			t.Errorf("%s seq %d: refused %v", name, l.Seq, refused)
		}
		all = append(all, done...)
		if e.Name == PreToolUse {
			if err := tr.Open(Ask{ID: e.ToolUseID, Session: e.Session, PromptID: e.PromptID, ToolUseID: e.ToolUseID, Tool: e.Tool, Input: e.Input, Source: e.Source}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if tr.Len() != 0 {
		t.Errorf("%s: %d asks still open at the end of the session", name, tr.Len())
	}
	return all
}

// want is one expected outcome, in order.
type want struct {
	result Result
	person bool
	proof  string
	note   string
	scope  string
}

func check(t *testing.T, name string, got []Outcome, ws ...want) {
	t.Helper()
	if len(got) != len(ws) {
		t.Fatalf("%s: %d outcomes, want %d: %+v", name, len(got), len(ws), got)
	}
	for i, w := range ws {
		g := got[i]
		if g.Result != w.result || g.Person() != w.person || g.Proof != w.proof || g.Note != w.note || g.Scope != w.scope {
			t.Errorf("%s outcome %d (ask %s): got %s person=%v proof=%q note=%q scope=%q; want %s person=%v proof=%q note=%q scope=%q",
				name, i, g.Ask.ID, g.Result, g.Person(), g.Proof, g.Note, g.Scope, w.result, w.person, w.proof, w.note, w.scope)
		}
	}
}

func TestReplayClaudeCode(t *testing.T) {
	cases := []struct {
		name string
		opts replayOpts
		want []want
	}{
		// Yes.
		{"a_once", replayOpts{}, []want{{Approved, true, "PostToolUse", "", ""}}},
		// Yes, and the command exits 3: it ran, so it was approved.
		{"f_tool_error", replayOpts{}, []want{{Approved, true, "PostToolUseFailure", "", ""}}},
		// "Yes, and don't ask again for: python3 *": the rule appears in
		// settings.local.json before PostToolUse (seq 5); the next two
		// calls run under it with no dialog, so they are nobody's answer.
		{"b3_always_prefix_dotclaude", replayOpts{rules: func(seq int) []string {
			if seq < 5 {
				return []string{}
			}
			return []string{"Bash(python3 *)"}
		}}, []want{
			{Approved, true, "PostToolUse", "", "Bash(python3 *)"},
			{Approved, false, "PostToolUse", "", ""},
			{Approved, false, "PostToolUse", "", ""},
		}},
		// No, with a note (Tab).
		{"c_deny_reason", replayOpts{}, []want{{Denied, true, "PostToolBatch", "use a different file please", ""}}},
		// No without a note, Esc, Yes then Esc while it ran: nothing
		// comes for the call until the next prompt, which is the
		// person's No.
		{"c_deny", replayOpts{}, []want{{Interrupted, true, "UserPromptSubmit", "", ""}}},
		{"d_esc", replayOpts{}, []want{{Interrupted, true, "UserPromptSubmit", "", ""}}},
		{"g_interrupt_running", replayOpts{}, []want{{Interrupted, true, "UserPromptSubmit", "", ""}}},
		// Two calls in one message: Yes to the first, No to the second,
		// whose batch never ends; the session does.
		{"h_parallel", replayOpts{}, []want{
			{Approved, true, "PostToolUse", "", ""},
			{Interrupted, true, "SessionEnd", "", ""},
		}},
		// The same command twice in one message: Yes, then No with a note;
		// each PermissionRequest binds to its own call.
		{"h5_parallel_same_command", replayOpts{}, []want{
			{Approved, true, "PostToolUse", "", ""},
			{Denied, true, "PostToolBatch", "once is enough", ""},
		}},
		// limen's own PermissionRequest hook allowed / denied: no person.
		{"j_permreq_allow", replayOpts{limenPermReq: true}, []want{{Approved, false, "PostToolUse", "", ""}}},
		{"k_permreq_deny", replayOpts{limenPermReq: true}, []want{{Refused, false, "PostToolBatch", "", ""}}},
		// Another hook's deny reaches the model as its own text, not the
		// person's No, so it is refused, not denied.
		{"k_permreq_deny", replayOpts{}, []want{{Refused, false, "PostToolBatch", "", ""}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, c.name, replay(t, c.name, c.opts), c.want...)
		})
	}
}
