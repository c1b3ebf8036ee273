package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/outcome"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestObservedEventsMatch(t *testing.T) {
	if !slices.Equal(observedEvents, outcome.Observed) {
		t.Errorf("limen-hook observes %v; internal/outcome reads %v", observedEvents, outcome.Observed)
	}
	if observing(hookout.ClaudeCode, "PreToolUse") || observing(hookout.Codex, "PermissionRequest") {
		t.Error("a deciding event is only observed")
	}
}

// TestObserverNeverStopsTheRuntime: on the observed events limen-hook
// prints no decision and exits 0, with limend down and with input it
// cannot read: never an answer the runtime would act on.
func TestObserverNeverStopsTheRuntime(t *testing.T) {
	for _, ev := range observedEvents {
		for name, in := range map[string]string{
			"limend down": `{"session_id":"s","hook_event_name":"` + ev + `","tool_use_id":"t","tool_name":"Bash","tool_input":{}}`,
			"cut short":   `{"session_id":"s","hook_event_name":"` + ev + `","tool_input":{`,
		} {
			t.Run(ev+"/"+name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, hookBin, "--socket", "/nonexistent/limen-test.sock")
				cmd.Stdin = strings.NewReader(in)
				var stdout bytes.Buffer
				cmd.Stdout = &stdout
				began := time.Now()
				if err := cmd.Run(); err != nil {
					t.Fatalf("limen-hook on %s: %v; it must exit 0", ev, err)
				}
				want := ""
				if ev == "PermissionRequest" {
					want = "{}\n" // no decision: Claude Code shows its dialog
				}
				if stdout.String() != want {
					t.Errorf("limen-hook on %s printed %q; want %q", ev, stdout.String(), want)
				}
				if d := time.Since(began); d > observeTimeout+time.Second {
					t.Errorf("limen-hook on %s took %v", ev, d)
				}
			})
		}
	}
}

// TestObservedYesIsLearned runs limen-hook as Claude Code does, from one
// runtime process (a shell standing in for claude): PreToolUse asks, the
// person says Yes in the dialog (PermissionRequest, PostToolUse), and
// limend records the approval, with where it came from.
func TestObservedYesIsLearned(t *testing.T) {
	l := start(t)
	dir := t.TempDir()
	ev := func(name, event string, extra string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`{"session_id":"s1","prompt_id":"p1","cwd":"`+dir+`","hook_event_name":"`+event+`","tool_name":"Bash","tool_input":{"command":"touch `+dir+`/m"}`+extra+`}`), 0o644)
		return p
	}
	pre := ev("pre.json", "PreToolUse", `,"tool_use_id":"toolu_1"`)
	perm := ev("perm.json", "PermissionRequest", "")
	post := ev("post.json", "PostToolUse", `,"tool_use_id":"toolu_1"`)
	hook := hookBin + " --socket " + l.http
	script := hook + " < " + pre + " > " + dir + "/pre.out; " + hook + " < " + perm + " > " + dir + "/perm.out; " + hook + " < " + post + " > " + dir + "/post.out; true"
	if out, err := exec.CommandContext(t.Context(), "bash", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if b, _ := os.ReadFile(dir + "/pre.out"); !bytes.Contains(b, []byte(`"permissionDecision":"ask"`)) {
		t.Fatalf("PreToolUse answered %s; the test needs an ask", b)
	}
	for f, want := range map[string]string{"perm.out": "{}\n", "post.out": ""} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("%s: the observer printed %q, want %q", f, b, want)
		}
	}
	h, err := l.c.API.History(t.Context(), &limenv1.HistoryRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got *limenv1.AskOutcome
	for _, d := range h.GetDecisions() {
		if d.GetAction().GetToolUseId() == "toolu_1" {
			got = d.GetOutcome()
		}
	}
	if got.GetChoice() != limenv1.Choice_CHOICE_APPROVE || !strings.Contains(got.GetNote(), "claude-code prompt, inferred from PostToolUse of toolu_1 (session s1)") {
		t.Fatalf("the ask's outcome is %v; want the approval seen in Claude Code's dialog", got)
	}
}

// TestOnAskDialog: with --on-ask dialog, an ask the prediction made gets no
// decision ({}), so Claude Code's own rules and dialog decide; an ask of a
// rule, or any ask in a mode where Claude Code would ask nobody, is still
// printed as ask.
func TestOnAskDialog(t *testing.T) {
	l := start(t)
	l.rules(t, nil, []string{"Bash(git push *)"})
	call := func(mode, command, id string) string {
		in := `{"session_id":"s1","prompt_id":"p1","cwd":"/tmp","permission_mode":"` + mode + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + command + `"},"tool_use_id":"` + id + `"}`
		out, _ := runHook(t, []byte(in), "--on-ask", "dialog", "--socket", l.http)
		return string(out)
	}
	if got := call("default", "touch /tmp/x", "toolu_1"); got != "{}" {
		t.Errorf("a predicted ask in default mode: %s; want no decision", got)
	}
	for _, c := range []struct{ mode, command, id string }{
		{"bypassPermissions", "touch /tmp/y", "toolu_2"},
		{"acceptEdits", "touch /tmp/z", "toolu_3"},
		{"default", "git push origin main", "toolu_4"},
	} {
		if got := call(c.mode, c.command, c.id); !strings.Contains(got, `"permissionDecision":"ask"`) {
			t.Errorf("%s in %s mode: %s; want ask", c.command, c.mode, got)
		}
	}
}
