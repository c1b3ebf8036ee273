package main

import (
	"bytes"
	"flag"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
)

// fakeLimend answers every connection with reply once it has read the
// request's headers, and then closes it.
func fakeLimend(t *testing.T, reply string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "fake.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			var req []byte
			buf := make([]byte, 4096)
			for !bytes.Contains(req, []byte("\r\n\r\n")) {
				n, err := c.Read(buf)
				req = append(req, buf[:n]...)
				if err != nil {
					break
				}
			}
			io.WriteString(c, reply)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); wg.Wait() })
	return sock
}

func httpReply(verdict, body string) string {
	h := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	if verdict != "" {
		h += "Limen-Verdict: " + verdict + "\r\n"
	}
	return h + "\r\n" + body
}

// TestReplyChecked: the hook prints limend's answer only when it is a
// complete 200 reply whose verdict header and body agree; anything else is
// the fail-closed ask. Above all a garbled reply never becomes allow.
func TestReplyChecked(t *testing.T) {
	allow := string(hookout.Render(hookout.ClaudeCode, hookout.PreToolUse, hookout.Allow, "limen allows this: fake"))
	ask := string(hookout.Render(hookout.ClaudeCode, hookout.PreToolUse, hookout.Ask, "fake ask"))
	tests := []struct {
		name, reply string
		want        string // decision printed
		reason      string // the reason mentions this
	}{
		{"allow", httpReply("allow", allow), "allow", "limen allows this: fake"},
		{"ask", httpReply("ask", ask), "ask", "fake ask"},
		{"allow body, ask header", httpReply("ask", allow), "ask", "disagree"},
		{"ask body, allow header", httpReply("allow", ask), "ask", "disagree"},
		{"no verdict header", httpReply("", allow), "ask", "no Limen-Verdict"},
		{"unknown verdict", httpReply("yes", allow), "ask", "not allow, ask or deny"},
		{"cut short", strings.Replace(httpReply("allow", allow), "Content-Length: ", "Content-Length: 1", 1), "ask", "cut short"},
		{"headers only", "HTTP/1.1 200 OK\r\nLimen-Verdict: allow\r\n", "ask", "before its headers"},
		{"not JSON", httpReply("allow", `"permissionDecision":"allow"`), "ask", "not one line holding one JSON object"},
		{"two lines", httpReply("allow", allow[:len(allow)-2]+"\n}}"), "ask", "not one line holding one JSON object"},
		{"cut after an inner brace", httpReply("ask", ask[:strings.LastIndex(ask, "}")]), "ask", "not one line holding one JSON object"},
		{"two objects", httpReply("ask", ask+ask), "ask", "not one line holding one JSON object"},
		{"no length, closed early", "HTTP/1.1 200 OK\r\nLimen-Verdict: ask\r\n\r\n" + ask[:strings.LastIndex(ask, "}")], "ask", "no Content-Length"},
		{"error", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 19\r\n\r\n{\"error\":\"too busy\"}", "ask", `HTTP 503: {"error":"too busy"`},
		{"nothing", "", "ask", "before its headers"},
		{"chunked", "HTTP/1.1 200 OK\r\nLimen-Verdict: allow\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{}\r\n0\r\n\r\n", "ask", "Transfer-Encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := claude(t, golden(t, "read.json"), "--socket", fakeLimend(t, tt.reply))
			if out.Specific.Decision != tt.want || !strings.Contains(out.Specific.Reason, tt.reason) {
				t.Fatalf("decision = %s %q; want %s mentioning %q", out.Specific.Decision, out.Specific.Reason, tt.want, tt.reason)
			}
		})
	}
}

// TestFailClosedEvent: when limend cannot be asked, the fail-closed answer
// still has the shape of the event the runtime sent.
func TestFailClosedEvent(t *testing.T) {
	permission := bytes.Replace(golden(t, "bash.json"), []byte(`"PreToolUse"`), []byte(`"PermissionRequest"`), 1)
	escaped := bytes.Replace(golden(t, "bash.json"), []byte(`"hook_event_name":"PreToolUse"`), []byte(`"Hook_Event_Name": "Permission\u0052equest"`), 1)
	if bytes.Equal(escaped, golden(t, "bash.json")) {
		t.Fatal("bash.json has no hook_event_name to rewrite")
	}
	want := `{}` // no decision: the runtime's own dialog asks the person
	for _, in := range [][]byte{permission, escaped} {
		for _, format := range []string{"claude-code", "codex"} {
			out, _ := runHook(t, in, "--format", format, "--socket", filepath.Join(t.TempDir(), "none.sock"))
			if string(out) != want {
				t.Errorf("%s with limend down printed %s; want %s", format, out, want)
			}
		}
	}
}

func TestObjectScanner(t *testing.T) {
	tests := []struct {
		in, object, event, err string
	}{
		{` {"a":1} trailing`, `{"a":1}`, "", ""},
		{`{"hook_event_name":"PreToolUse","tool_input":{"x":"}{\"]"}}`, `{"hook_event_name":"PreToolUse","tool_input":{"x":"}{\"]"}}`, "PreToolUse", ""},
		{`{"tool_input":{"hook_event_name":"Nested"},"s":"hook_event_name","t":"x"}`, "", "", ""},
		{`{"hook_event_name":"A","hook_event_name":"B"}`, "", "B", ""},
		{`{"hook_event_name":"A","hook_event_name":null}`, "", "", ""},
		{`{"HOOK_EVENT_NAME" : "Permission\u0052equest"}`, "", "PermissionRequest", ""},
		{`{"k":"hook_event_name","v":["a","b"]}`, "", "", ""},
		{`{"a":"\\"}`, `{"a":"\\"}`, "", ""},
		{`["a"]`, "", "", "starts with '['"},
		{`Bash`, "", "", "starts with 'B'"},
		{`{"a":`, "", "", "ended before"},
		{``, "", "", "empty"},
	}
	for _, tt := range tests {
		// Whole, and a byte at a time as a slow pipe would deliver it.
		for _, step := range []int{len(tt.in) + 1, 1} {
			var s objectScanner
			var buf []byte
			end, err := 0, error(nil)
			for i := 0; i < len(tt.in) && end == 0 && err == nil; i += step {
				buf = append(buf, tt.in[i:min(i+step, len(tt.in))]...)
				end, err = s.scan(buf)
			}
			if err == nil && end == 0 {
				if !s.started {
					err = errorString("stdin is empty")
				} else {
					err = errorString("ended before the object did")
				}
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("%s (step %d): err = %v; want %q", tt.in, step, err, tt.err)
				}
				continue
			}
			want := tt.object
			if want == "" {
				want = tt.in
			}
			if err != nil || string(buf[s.start:end]) != want || s.event != tt.event {
				t.Errorf("%s (step %d) = %q, event %q, %v; want %q, event %q", tt.in, step, buf[s.start:max(end, s.start)], s.event, err, want, tt.event)
			}
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestUsageIsFlagPackage: the hand-written flag parsing prints the help
// the flag package would, and fails on the same command lines with the
// same messages.
func TestUsageIsFlagPackage(t *testing.T) {
	newFlags := func(w io.Writer) *flag.FlagSet {
		fs := flag.NewFlagSet("limen-hook", flag.ContinueOnError)
		fs.SetOutput(w)
		fs.Usage = func() { io.WriteString(w, usage); fs.PrintDefaults() }
		fs.String("format", "claude-code", formatHelp)
		fs.String("on-ask", "prompt", onAskHelp)
		fs.Duration("timeout", defaultTimeout, timeoutHelp)
		fs.String("socket", "", socketHelp)
		fs.String("server-uid", "", serverUIDHelp)
		return fs
	}
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"--colour"}, {"-timeout=abc"}, {"--timeout"}, {"---x"}, {"-=x"},
		{"--format", "codex", "--on-ask=wait", "-timeout", "2s", "--socket=/s"},
		{"--format", "codex", "--", "--colour"}, {"--format=gemini", "positional", "--colour"},
		{"--timeout", "1m", "--timeout=3s"}, {}, {"-"},
	} {
		var want, got bytes.Buffer
		fs := newFlags(&want)
		wantErr := fs.Parse(args)
		o, err := parseFlags(args, &got)
		if got.String() != want.String() {
			t.Errorf("%q printed\n%s\nthe flag package prints\n%s", args, got.String(), want.String())
		}
		switch {
		case wantErr == flag.ErrHelp:
			if err != errHelp {
				t.Errorf("%q: err = %v; want help", args, err)
			}
		case wantErr != nil:
			if err == nil || err.Error() != wantErr.Error() {
				t.Errorf("%q: err = %v; the flag package says %v", args, err, wantErr)
			}
		default:
			f := func(name string) string { return fs.Lookup(name).Value.String() }
			if err != nil || o.format != f("format") || o.onAsk != f("on-ask") || o.timeout.String() != f("timeout") || o.socket != f("socket") {
				t.Errorf("%q = %+v, %v; the flag package has %s %s %s %s", args, o, err, f("format"), f("on-ask"), f("timeout"), f("socket"))
			}
		}
	}
}
