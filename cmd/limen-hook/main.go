// Command limen-hook is limen's hook for agent runtimes that run a command
// before each tool call: Claude Code (PreToolUse), Codex (PreToolUse,
// PermissionRequest) and Gemini CLI (BeforeTool).
//
// It reads the runtime's hook JSON on stdin, passes it to limend over its
// HTTP Unix socket (the /v1/hooks route, which parses it, decides and
// renders the runtime's answer), prints that answer on stdout and exits 0.
// It always prints an answer, and never allow unless limend said allow:
// limend down, malformed input, a reply that is not a complete, consistent
// answer, its own deadline, any internal error — all are ask (or deny where
// the runtime has no ask), with the reason.
//
// The runtime starts a new process for every tool call, so start-up is on
// every call's path (docs/BENCHMARKS.md, "Hook start"). limen-hook links
// no gRPC, no net/http, not even the net package, and no encoding/json,
// fmt, reflect or flag: JSON is parsed and rendered in limend, and the
// fail-closed answer is written by hookout, which needs none of them.
package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/serverpeer"
)

func main() {
	os.Exit(run(os.Args[1:], 0, os.Stdout, os.Stderr))
}

// answerer prints exactly one answer.
type answerer struct {
	w       io.Writer
	format  hookout.Format
	event   string
	printed bool
}

func (a *answerer) print(answer []byte) {
	if a.printed {
		return
	}
	a.printed = true
	a.w.Write(append(answer, '\n'))
}

func (a *answerer) fail(err error) {
	v := hookout.FailClosed(a.format, a.event, err)
	a.print(hookout.Render(a.format, a.event, v.Verdict, v.Reason))
}

// run is main without the process; stdin is a file descriptor. It returns 0
// even when the flags are wrong (after printing ask and the error on
// stderr): to Claude Code a non-zero exit other than 2 means "no opinion",
// which is not fail-closed.
func run(args []string, stdin int, stdout, stderr io.Writer) int {
	out := &answerer{w: stdout, format: hookout.ClaudeCode, event: hookout.PreToolUse}
	defer func() {
		if v := recover(); v != nil {
			out.fail(errors.New("limen-hook hit an internal error: " + panicText(v)))
		}
	}()
	o, err := parseFlags(args, stderr)
	if err != nil {
		// Help and the version go to stdout, as cobra prints them for
		// limenctl and limend; no answer is due, and the runtime, which
		// never passes these flags, is not the reader.
		switch err {
		case errHelp:
			io.WriteString(stdout, usage+flagDefaults)
			return 0
		case errVersion:
			io.WriteString(stdout, versionLine()+"\n")
			return 0
		}
		// A wrong installation must still not fail open.
		out.fail(errors.New("limen-hook is misconfigured: " + err.Error() + "; fix the hook command in the runtime's settings"))
		return 0
	}
	f, err := hookout.ParseFormat(o.format)
	if err != nil {
		out.fail(errors.New("limen-hook --" + err.Error() + "; fix the hook command in the runtime's settings"))
		return 0
	}
	out.format, out.event = f, hookout.DefaultEvent(f)
	if o.onAsk != "prompt" && o.onAsk != "wait" && o.onAsk != "dialog" {
		out.fail(errors.New("limen-hook --on-ask=" + strconv.Quote(o.onAsk) + ": use prompt, wait or dialog; fix the hook command in the runtime's settings"))
		return 0
	}
	if o.timeout <= 0 {
		o.timeout = defaultTimeout
	}
	if o.socket == "" {
		if o.socket, err = hookout.DefaultHTTPSocket(); err != nil {
			out.fail(err)
			return 0
		}
	}
	if o.serverUID != "" {
		if _, _, err := serverpeer.Expected(o.serverUID); err != nil {
			out.fail(errors.New("limen-hook is misconfigured: " + err.Error() + "; fix the hook command in the runtime's settings"))
			return 0
		}
	}
	decide(o, f, time.Now().Add(o.timeout), stdin, out)
	return 0
}

func panicText(v any) string {
	switch v := v.(type) {
	case error:
		return v.Error()
	case string:
		return v
	}
	return "panic"
}

// decide reads the call, has limend decide and render the answer, checks
// the answer and prints it.
func decide(o options, f hookout.Format, deadline time.Time, stdin int, out *answerer) {
	call, event, err := readCall(stdin, deadline)
	if event != "" {
		out.event = event
	}
	if observing(f, event) {
		observe(o, event, call, deadline, out) // observe.go: no decision
		return
	}
	if err == errDeadline {
		out.fail(errors.New("the runtime did not finish writing the hook input within limen-hook's --timeout of " + o.timeout.String()))
		return
	}
	if err == errTooLarge {
		a := hookout.TooLarge()
		out.print(hookout.Render(f, out.event, a.Verdict, a.Reason))
		return
	}
	if err != nil {
		out.fail(errors.New("malformed hook input: " + err.Error()))
		return
	}
	path := "/v1/hooks/" + string(f)
	if o.onAsk == "dialog" {
		path += "?on_ask=dialog" // observe.go
	}
	if o.onAsk == "wait" {
		// Leave limend's reply time to arrive before our own deadline.
		margin := min(o.timeout/10, 500*time.Millisecond)
		if ms := time.Until(deadline.Add(-margin)).Milliseconds(); ms >= 1 {
			path += "?wait=" + strconv.FormatInt(ms, 10) + "ms"
		}
	}
	r, err := post(o.socket, o.serverUID, path, call, deadline)
	if _, ok := err.(*serverpeer.MismatchError); ok {
		out.fail(err) // not unreachable: someone else is there
		return
	}
	if _, ok := err.(*serverpeer.ConfigError); ok {
		out.fail(errors.New("limen-hook is misconfigured: " + err.Error()))
		return
	}
	if err == errDeadline {
		out.fail(errors.New("limend did not answer within limen-hook's --timeout of " + o.timeout.String()))
		return
	}
	if err != nil {
		out.fail(errors.New("limend is unreachable at " + o.socket + " (" + err.Error() + "); start it with `limend`"))
		return
	}
	if o.onAsk == "dialog" && r.dialogNoDecision(out.event) { // observe.go
		out.print(r.body)
		return
	}
	if err := r.check(out.event); err != nil {
		out.fail(err)
		return
	}
	out.print(r.body)
}

// reply is limend's answer on /v1/hooks.
type reply struct {
	code    int
	verdict string // the Limen-Verdict header
	body    []byte
}

// check accepts a reply to a hook on event only as a complete answer whose
// verdict header and body agree, so a garbled reply is never printed, least
// of all as allow.
func (r reply) check(event string) error {
	if r.code != 200 {
		msg := strings.TrimSpace(string(r.body))
		if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
			msg = msg[:i]
		}
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		if msg != "" {
			msg = ": " + msg
		}
		return errors.New("limend refused the call: HTTP " + strconv.Itoa(r.code) + msg)
	}
	v, ok := hookout.ParseVerdict(r.verdict)
	if !ok {
		if r.verdict == "" {
			return errors.New("limend's reply has no Limen-Verdict header; restart limend, it may be older than limen-hook")
		}
		return errors.New("limend's reply has Limen-Verdict " + strconv.Quote(r.verdict) + ", which is not allow, ask or deny")
	}
	b := r.body
	var whole objectScanner
	if end, err := whole.scan(b); err != nil || end != len(b) || whole.start != 0 || bytes.ContainsAny(b, "\r\n") {
		// The runtime ignores an answer it cannot parse and falls back
		// to its own rules, which is not failing closed.
		return errors.New("limend sent a reply limen-hook cannot read: the answer is not one line holding one JSON object")
	}
	if hookout.Allows(event, b) != (v == hookout.Allow) {
		return errors.New("limend sent a reply limen-hook cannot read: its verdict " + string(v) + " and its answer disagree")
	}
	return nil
}

// post sends one HTTP/1.1 request over the Unix socket and reads the reply,
// all before the deadline. limend's replies are small and carry a
// Content-Length, so a full HTTP client is not needed.
// Hand-written, not net/http, because of BenchmarkStart (docs/BENCHMARKS.md, "Hook start").
func post(socket, serverUID, path string, body []byte, deadline time.Time) (reply, error) {
	fd, err := dialUnix(socket, serverUID, deadline)
	if err != nil {
		return reply{}, err
	}
	defer syscall.Close(fd)
	req := make([]byte, 0, 160+len(path)+len(body))
	req = append(req, "POST "...)
	req = append(req, path...)
	req = append(req, " HTTP/1.1\r\nHost: limend\r\nContent-Type: application/json\r\nContent-Length: "...)
	req = strconv.AppendInt(req, int64(len(body)), 10)
	req = append(req, "\r\nConnection: close\r\nUser-Agent: limen-hook\r\n\r\n"...)
	req = append(req, body...)
	if err := writeAll(fd, req, deadline); err != nil {
		if err == errDeadline {
			return reply{}, err
		}
		return reply{}, errors.New("send: " + err.Error())
	}
	buf := make([]byte, 0, 8<<10)
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= hookout.MaxInput {
				return reply{}, errors.New("the reply is larger than " + strconv.Itoa(hookout.MaxInput) + " bytes")
			}
			buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
		}
		n, err := readSocket(fd, buf[len(buf):cap(buf)], deadline)
		if err != nil {
			if err == errDeadline {
				return reply{}, err
			}
			return reply{}, errors.New("read the reply: " + err.Error())
		}
		buf = buf[:len(buf)+n]
		r, done, err := parseResponse(buf, n == 0)
		if err != nil || done {
			return r, err
		}
	}
}

// parseResponse reads an HTTP/1.1 response from the bytes received so far;
// done says it is complete. At the end of the stream (eof) an incomplete
// response is an error. The body must have a Content-Length.
func parseResponse(raw []byte, eof bool) (r reply, done bool, err error) {
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		if eof {
			return reply{}, false, errors.New("reply ended before its headers did")
		}
		return reply{}, false, nil
	}
	lines := strings.Split(string(head), "\r\n")
	proto, rest, _ := strings.Cut(lines[0], " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || len(rest) < 3 {
		return reply{}, false, errors.New("reply is not HTTP: " + strconv.Quote(lines[0]))
	}
	if r.code, err = strconv.Atoi(rest[:3]); err != nil {
		return reply{}, false, errors.New("reply has no status code: " + strconv.Quote(lines[0]))
	}
	length := -1
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "content-length":
			if length, err = strconv.Atoi(v); err != nil || length < 0 {
				return reply{}, false, errors.New("reply has a bad Content-Length " + strconv.Quote(v))
			}
		case "transfer-encoding":
			return reply{}, false, errors.New("reply has Transfer-Encoding " + strconv.Quote(v) + "; limen-hook reads only replies with a Content-Length")
		case "limen-verdict":
			r.verdict = v
		}
	}
	switch {
	case length < 0 && !eof:
		return reply{}, false, nil
	case length < 0:
		// Without a length, a reply cut short cannot be told from a
		// whole one; limend always sends it.
		return reply{}, false, errors.New("reply has no Content-Length; restart limend, it may be older than limen-hook")
	case len(body) < length && !eof:
		return reply{}, false, nil
	case len(body) < length:
		return reply{}, false, errors.New("reply body is cut short: " + strconv.Itoa(len(body)) + " of " + strconv.Itoa(length) + " bytes")
	default:
		r.body = body[:length]
	}
	return r, true, nil
}
