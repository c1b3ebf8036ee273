// Command limen-hook is limen's hook for agent runtimes that run a command
// before each tool call: Claude Code (PreToolUse), Codex (PreToolUse,
// PermissionRequest) and Gemini CLI (BeforeTool).
//
// It reads the runtime's hook JSON on stdin, asks limend over its HTTP Unix
// socket, prints the runtime's answer on stdout and exits 0. It always
// prints an answer, and never allow unless limend said allow: limend down,
// malformed input, its own deadline, any internal error — all are ask (or
// deny where the runtime has no ask), with the reason.
//
// It links no gRPC, no net/http and not even the net package: the runtime
// starts a new process for every tool call, so start-up is on every call's
// path (docs/BENCHMARKS.md, "Hook start").
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/limenhq/limen/internal/hookfmt"
)

const usage = `limen-hook asks limend whether an agent may make a tool call.

The agent runtime runs it before each tool call with the call as JSON on
stdin; it prints the runtime's answer on stdout and exits 0. Install it in
Claude Code with:

  limenctl hook install claude-code

What happens to an ask is chosen with --on-ask:
  prompt  print ask at once, so the runtime asks the person its own way
  wait    wait for an answer in limen (limenctl answer, the TUI) until
          --timeout, then print allow or deny; ask if nobody answered

At --timeout it prints ask and exits, whatever it was doing: keep --timeout
well below the runtime's hook timeout (Claude Code kills a late hook and
ignores its answer).

Examples:
  limen-hook < call.json
  limen-hook --on-ask=wait --timeout=50s
  limen-hook --format codex
  limen-hook --format gemini --socket /run/user/1000/limen/limend-http.sock

Flags:
`

type options struct {
	format  hookfmt.Format
	onAsk   string
	timeout time.Duration
	socket  string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process. It returns 0 even when the flags are
// wrong (after printing ask and the error on stderr): to Claude Code a
// non-zero exit other than 2 means "no opinion", which is not fail-closed.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("limen-hook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	format := fs.String("format", string(hookfmt.ClaudeCode), "the runtime's hook format: claude-code, codex or gemini")
	fs.StringVar(&o.onAsk, "on-ask", "prompt", "prompt: print ask at once; wait: wait for an answer in limen until --timeout")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Second, "print ask and exit at this deadline; keep it below the runtime's hook timeout")
	fs.StringVar(&o.socket, "socket", "", "limend's HTTP socket (default $LIMEN_HTTP_SOCKET, else beside $LIMEN_SOCKET, else $XDG_RUNTIME_DIR/limen/limend-http.sock)")

	out := &answerer{w: stdout, format: hookfmt.ClaudeCode, event: hookfmt.PreToolUse}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		// A wrong installation must still not fail open.
		out.fail(fmt.Errorf("limen-hook is misconfigured: %v; fix the hook command in the runtime's settings", err))
		return 0
	}
	f, err := hookfmt.ParseFormat(*format)
	if err != nil {
		out.fail(fmt.Errorf("limen-hook --%v; fix the hook command in the runtime's settings", err))
		return 0
	}
	o.format, out.format, out.event = f, f, hookfmt.DefaultEvent(f)
	if o.onAsk != "prompt" && o.onAsk != "wait" {
		out.fail(fmt.Errorf("limen-hook --on-ask=%q: use prompt or wait; fix the hook command in the runtime's settings", o.onAsk))
		return 0
	}
	if o.timeout <= 0 {
		o.timeout = 5 * time.Second
	}
	if o.socket == "" {
		if o.socket, err = hookfmt.DefaultHTTPSocket(); err != nil {
			out.fail(err)
			return 0
		}
	}

	deadline := time.Now().Add(o.timeout)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				out.fail(fmt.Errorf("limen-hook hit an internal error: %v", v))
			}
		}()
		decide(o, deadline, stdin, out)
	}()
	timer := time.NewTimer(o.timeout)
	select {
	case <-done:
	case <-timer.C:
		out.fail(fmt.Errorf("limend did not answer within limen-hook's --timeout of %v", o.timeout))
	}
	return 0
}

// answerer prints exactly one answer, whichever of the decision and the
// deadline comes first.
type answerer struct {
	once   sync.Once
	w      io.Writer
	format hookfmt.Format
	mu     sync.Mutex
	event  string
}

func (a *answerer) setEvent(e string) {
	a.mu.Lock()
	a.event = e
	a.mu.Unlock()
}

func (a *answerer) print(ans hookfmt.Answer) {
	a.once.Do(func() {
		a.mu.Lock()
		event := a.event
		a.mu.Unlock()
		b := hookfmt.Render(a.format, event, ans.Verdict, ans.Reason)
		a.w.Write(append(b, '\n'))
	})
}

func (a *answerer) fail(err error) {
	a.mu.Lock()
	event := a.event
	a.mu.Unlock()
	a.print(hookfmt.FailClosed(a.format, event, err))
}

// decide reads the call, asks limend and prints the answer.
func decide(o options, deadline time.Time, stdin io.Reader, out *answerer) {
	// One JSON value, not "until EOF": a runtime that keeps stdin open
	// must not cost the whole deadline.
	var data json.RawMessage
	if err := json.NewDecoder(io.LimitReader(stdin, hookfmt.MaxInput+1)).Decode(&data); err != nil {
		out.fail(fmt.Errorf("malformed hook input: stdin does not hold one JSON object: %w", err))
		return
	}
	call, err := hookfmt.Parse(o.format, data)
	if err != nil {
		out.fail(fmt.Errorf("malformed hook input: %w", err))
		return
	}
	out.setEvent(call.Event)
	var waitMS int64
	if o.onAsk == "wait" {
		// Leave limend's reply time to arrive before our own deadline.
		margin := min(o.timeout/10, 500*time.Millisecond)
		waitMS = time.Until(deadline.Add(-margin)).Milliseconds()
		if waitMS < 1 {
			waitMS = 0
		}
	}
	body, err := json.Marshal(hookfmt.RequestFor(o.format, call, waitMS))
	if err != nil {
		out.fail(fmt.Errorf("encode the request: %w", err))
		return
	}
	code, reply, err := post(o.socket, "/v1/decide", body)
	if err != nil {
		out.fail(fmt.Errorf("limend is unreachable at %s (%v); start it with `limend`", o.socket, err))
		return
	}
	if code != 200 {
		var e hookfmt.ErrorResponse
		if json.Unmarshal(reply, &e) != nil || e.Error == "" {
			e.Error = "HTTP " + strconv.Itoa(code)
		}
		out.fail(fmt.Errorf("limend refused the call: %s", e.Error))
		return
	}
	var resp hookfmt.DecideResponse
	if err := json.Unmarshal(reply, &resp); err != nil {
		out.fail(fmt.Errorf("limend sent a reply limen-hook cannot read: %w", err))
		return
	}
	switch resp.Verdict {
	case "allow", "ask", "block":
	default:
		out.fail(fmt.Errorf("limend sent verdict %q, which is not allow, ask or block", resp.Verdict))
		return
	}
	out.print(hookfmt.Explain(o.format, call.Event, resp))
}

// post sends one HTTP/1.1 request over the Unix socket and returns the
// status code and body. limend's replies are small and the connection is
// closed after one exchange, so a full HTTP client is not needed.
func post(socket, path string, body []byte) (int, []byte, error) {
	conn, err := dialUnix(socket)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: limend\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\nUser-Agent: limen-hook\r\n\r\n", path, len(body))
	req.Write(body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		return 0, nil, fmt.Errorf("send: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(conn, hookfmt.MaxInput))
	if err != nil {
		return 0, nil, fmt.Errorf("read the reply: %w", err)
	}
	return parseResponse(raw)
}

// parseResponse reads a complete HTTP/1.1 response (the server closed the
// connection after it), with a Content-Length or chunked body.
func parseResponse(raw []byte) (int, []byte, error) {
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		return 0, nil, errors.New("reply ended before its headers did")
	}
	lines := strings.Split(string(head), "\r\n")
	proto, rest, _ := strings.Cut(lines[0], " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || len(rest) < 3 {
		return 0, nil, fmt.Errorf("reply is not HTTP: %q", lines[0])
	}
	code, err := strconv.Atoi(rest[:3])
	if err != nil {
		return 0, nil, fmt.Errorf("reply has no status code: %q", lines[0])
	}
	length, chunked := -1, false
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "content-length":
			if length, err = strconv.Atoi(v); err != nil || length < 0 {
				return 0, nil, fmt.Errorf("reply has a bad Content-Length %q", v)
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(v, "chunked")
		}
	}
	switch {
	case chunked:
		body, err = dechunk(body)
		if err != nil {
			return 0, nil, err
		}
	case length >= 0:
		if len(body) < length {
			return 0, nil, fmt.Errorf("reply body is cut short: %d of %d bytes", len(body), length)
		}
		body = body[:length]
	}
	return code, body, nil
}

func dechunk(b []byte) ([]byte, error) {
	var out []byte
	for {
		line, rest, ok := bytes.Cut(b, []byte("\r\n"))
		if !ok {
			return nil, errors.New("reply's chunked body is cut short")
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.SplitN(line, []byte(";"), 2)[0])), 16, 32)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("reply has a bad chunk size %q", line)
		}
		if size == 0 {
			return out, nil
		}
		if int64(len(rest)) < size+2 {
			return nil, errors.New("reply's chunked body is cut short")
		}
		out = append(out, rest[:size]...)
		b = rest[size+2:]
	}
}
