package mcpgate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// HTTPOptions configure an HTTP gate.
type HTTPOptions struct {
	Options
	// Upstream is the server's MCP endpoint, such as
	// https://api.example.com/mcp.
	Upstream *url.URL
	// Client sends to the upstream; nil means a client of its own. It
	// must not follow redirects for POSTs on its own (the default
	// client's policy is fine: Go re-sends a POST's body only on 307/308,
	// to the address the server named).
	Client *http.Client
	// Origins are the browser origins allowed besides loopback ones,
	// exactly as a browser sends them ("https://app.example.com").
	Origins []string
	// LoopbackHost requires the Host header to name a loopback address:
	// set when the gate listens on loopback, so that a web page whose
	// name was rebound to 127.0.0.1 cannot reach it even without Origin.
	LoopbackHost bool
	// CallTimeout bounds a POST's exchange with the upstream, from the
	// moment it is forwarded; past it the requests still unanswered are
	// refused and the upstream request is cancelled. Zero means
	// DefaultCallTimeout.
	CallTimeout time.Duration
}

// DefaultCallTimeout is how long the HTTP gate waits for the upstream's
// answer to one POST.
const DefaultCallTimeout = 5 * time.Minute

// maxBody bounds what the gate reads whole: a POST's body, a JSON answer
// it has to change, and one SSE event.
const maxBody = 16 << 20

// HTTPGate is an MCP Streamable HTTP endpoint that forwards to an upstream
// one, deciding each tools/call with limen first. It keeps no state
// between requests: sessions (Mcp-Session-Id), credentials
// (Authorization) and the server's stream (GET) pass through.
type HTTPGate struct {
	opts HTTPOptions

	mu sync.Mutex
	// waits are the tools/calls limen is deciding, by session and id, so
	// that the client's notifications/cancelled (a POST of its own) ends
	// the wait: a call the client gave up on is never forwarded.
	waits map[string]*httpWait
}

type httpWait struct {
	cancel    context.CancelFunc
	cancelled bool
}

// waitKey names a call for notifications/cancelled: the session (empty in
// the stateless revision) and the id. Ids are only unique per client, so
// one client may cancel another's wait with the same id: that refuses a
// call, never allows one.
func waitKey(r *http.Request, id json.RawMessage) string {
	return r.Header.Get("Mcp-Session-Id") + "\x00" + idKey(id)
}

// cancelWait ends the wait for the call a notifications/cancelled names.
func (g *HTTPGate) cancelWait(r *http.Request, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w := g.waits[waitKey(r, p.RequestID)]; w != nil {
		w.cancelled = true
		w.cancel()
	}
}

// NewHTTPGate checks opts and returns the gate.
func NewHTTPGate(opts HTTPOptions) (*HTTPGate, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if err := CheckUpstream(opts.Upstream); err != nil {
		return nil, err
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	for _, o := range opts.Origins {
		if u, err := url.Parse(o); err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" {
			return nil, fmt.Errorf("mcp gate: allowed origin %q: give scheme://host[:port], such as https://app.example.com", o)
		}
	}
	return &HTTPGate{opts: opts, waits: map[string]*httpWait{}}, nil
}

// CheckUpstream refuses an upstream URL the gate cannot forward to, or
// would forward credentials over in clear text (http:// to another host).
func CheckUpstream(u *url.URL) error {
	if u == nil {
		return errors.New("mcp gate: no upstream: pass --upstream, such as --upstream https://api.example.com/mcp")
	}
	switch {
	case u.Scheme == "https" && u.Host != "":
	case u.Scheme == "http" && u.Host != "" && isLoopback(u.Hostname()):
	case u.Scheme == "http" && u.Host != "":
		return fmt.Errorf("mcp gate: upstream %s: http:// only to a loopback address (the client's Authorization header would cross the network in clear text); use https://", Endpoint(u))
	default:
		return fmt.Errorf("mcp gate: upstream %q: give the server's MCP URL, such as https://api.example.com/mcp", Endpoint(u))
	}
	if u.User != nil {
		return errors.New("mcp gate: upstream: leave credentials out of the URL; the client's Authorization header is passed on")
	}
	return nil
}

// isLoopback: localhost or a loopback IP.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// firstWithoutBatches is the revision that dropped JSON-RPC batches,
// which 2025-03-26 had.
const firstWithoutBatches = "2025-06-18"

// wellKnown are the OAuth metadata documents a client may look up next to
// the MCP URL it was given (the gate's) during its login flow; the gate
// fetches them from the upstream's origin.
var wellKnown = []string{"oauth-protected-resource", "oauth-authorization-server", "openid-configuration"}

// ServeHTTP answers one HTTP request.
func (g *HTTPGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := g.checkOrigin(r); err != nil {
		g.opts.Logger.Warn("refused a request", "reason", err.Error())
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/.well-known/"); ok {
		doc, _, _ := strings.Cut(rest, "/")
		if r.Method == http.MethodGet && slices.Contains(wellKnown, doc) {
			g.metadata(w, r, doc, rest != doc)
			return
		}
		http.NotFound(w, r)
		return
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	switch r.Method {
	case http.MethodPost:
		g.post(w, r)
	case http.MethodGet, http.MethodDelete:
		if version >= Stateless {
			// The stateless revision has neither the server's stream nor
			// sessions to end.
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, fmt.Sprintf("limen's MCP gate: %s is not part of MCP revision %s; send POST", r.Method, version), http.StatusMethodNotAllowed)
			return
		}
		ctx := r.Context()
		if r.Method == http.MethodDelete {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, g.opts.CallTimeout)
			defer cancel()
		}
		resp, err := g.send(ctx, r, nil)
		if err != nil {
			http.Error(w, "limen's MCP gate: the MCP server did not answer: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		copyHeader(w.Header(), resp.Header)
		w.WriteHeader(resp.StatusCode)
		flushCopy(w, resp.Body)
	default:
		w.Header().Set("Allow", "POST, GET, DELETE")
		http.Error(w, fmt.Sprintf("limen's MCP gate: method %s is not part of MCP's HTTP transport; send POST (or GET, DELETE before revision %s)", r.Method, Stateless), http.StatusMethodNotAllowed)
	}
}

// checkOrigin refuses what a web page could send from another site (DNS
// rebinding): an Origin that is neither loopback nor allowed, and, on a
// loopback listener, a Host that is not loopback.
func (g *HTTPGate) checkOrigin(r *http.Request) error {
	if g.opts.LoopbackHost {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !isLoopback(strings.Trim(host, "[]")) {
			return fmt.Errorf("limen's MCP gate: Host %q is not a loopback address; point the client at http://127.0.0.1:PORT", r.Host)
		}
	}
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return nil
	}
	if len(origins) == 1 {
		o := origins[0]
		if slices.Contains(g.opts.Origins, o) {
			return nil
		}
		if u, err := url.Parse(o); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && isLoopback(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("limen's MCP gate: Origin %q is not allowed; allow it with --allow-origin", strings.Join(origins, ", "))
}

// metadata relays an OAuth metadata document from the upstream's origin,
// so that a client that looks it up next to the gate's URL still logs in.
func (g *HTTPGate) metadata(w http.ResponseWriter, r *http.Request, doc string, withPath bool) {
	u := *g.opts.Upstream
	u.Path = "/.well-known/" + doc
	if withPath {
		u.Path += g.opts.Upstream.Path
	}
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	ctx, cancel := context.WithTimeout(r.Context(), g.opts.CallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	copyRequestHeader(req.Header, r.Header)
	resp, err := g.opts.Client.Do(req)
	if err != nil {
		http.Error(w, "limen's MCP gate: the MCP server did not answer: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	copyHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, io.LimitReader(resp.Body, maxBody))
}

// message is one JSON-RPC message of a POST, as much of it as the gate
// reads; raw is what the client sent.
type message struct {
	raw     json.RawMessage
	id      json.RawMessage // nil: a notification or a response
	method  string
	params  json.RawMessage
	version string
}

func (m *message) isCall() bool { return m.method != "" && len(m.id) > 0 && string(m.id) != "null" }

// answer is the gate's own response to one request.
type answer struct {
	id   json.RawMessage
	body json.RawMessage // the whole JSON-RPC response
}

func response(id, result json.RawMessage, rpcErr *jsonrpc.Error) json.RawMessage {
	r := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *jsonrpc.Error  `json:"error,omitempty"`
	}{"2.0", id, result, rpcErr}
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // raw JSON the gate checked, and strings
	}
	return b
}

// idKey is how the gate matches a response to its request.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// rpcError answers a POST the gate refuses whole, before the upstream is
// touched.
func rpcError(w http.ResponseWriter, status int, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(response(json.RawMessage("null"), nil, &jsonrpc.Error{Code: code, Message: "limen's MCP gate: " + msg}))
}

// post decides the tools/calls of one POST, forwards the rest, and
// relays the upstream's answer with limen's refusals added.
func (g *HTTPGate) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		rpcError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the request body: %v (at most %d MiB)", err, maxBody>>20))
		return
	}
	// One reading for the gate and the server: a key given twice could be
	// read one way here and another there.
	if err := uniqueKeys(body); err != nil {
		rpcError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "the request body: "+err.Error())
		return
	}
	header := r.Header.Get("Mcp-Protocol-Version")
	var raws []json.RawMessage
	batch := len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '['
	if batch {
		if header >= firstWithoutBatches {
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, fmt.Sprintf("MCP revision %s has no JSON-RPC batches; send one message per POST", header))
			return
		}
		if err := json.Unmarshal(body, &raws); err != nil || len(raws) == 0 {
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "the request body: an empty or unreadable batch")
			return
		}
	} else {
		raws = []json.RawMessage{body}
	}
	msgs := make([]*message, len(raws))
	for i, raw := range raws {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "the request body: "+err.Error())
			return
		}
		m := &message{raw: raw, id: env.ID, method: env.Method, params: env.Params, version: requestVersion(env.Params)}
		if m.version == "" {
			m.version = header
		}
		msgs[i] = m
	}
	if !batch {
		// The stateless revision names the method and tool in headers
		// too; a server that routes on those must run what limen decided.
		m := msgs[0]
		if h := r.Header.Get("Mcp-Method"); h != "" && h != m.method {
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the Mcp-Method header %q does not match the body's method %q", h, m.method))
			return
		}
		if h := r.Header.Get("Mcp-Name"); h != "" && m.method == methodCallTool {
			if c, err := parseCall(m.params); err == nil && c.Name != h {
				rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the Mcp-Name header %q does not match the tool %q", h, c.Name))
				return
			}
		}
	}

	// Decide every tools/call of the POST at once: a batch waits for its
	// slowest ask, not for the sum of them. The client going away cancels
	// the waits, and a cancelled wait is never an allow.
	refused := make([]*answer, len(msgs))
	dropped := make([]bool, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		if m.method == "notifications/cancelled" {
			g.cancelWait(r, m.params)
		}
		if m.method != methodCallTool {
			continue
		}
		if !m.isCall() {
			g.opts.Logger.Warn("dropped a tools/call sent as a notification (no id)")
			dropped[i] = true
			continue
		}
		ctx, cancel := context.WithCancel(r.Context())
		wait := &httpWait{cancel: cancel}
		key := waitKey(r, m.id)
		g.mu.Lock()
		g.waits[key] = wait
		g.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			d := decide(ctx, &g.opts.Options, m.params, m.version)
			g.mu.Lock()
			if g.waits[key] == wait {
				delete(g.waits, key)
			}
			cancelled := wait.cancelled
			g.mu.Unlock()
			switch {
			case d.err != nil:
				refused[i] = &answer{m.id, response(m.id, nil, d.err)}
			case !d.allow:
				refused[i] = &answer{m.id, response(m.id, d.result, nil)}
			case cancelled:
				// Allowed as the client cancelled it: not forwarded.
				refused[i] = &answer{m.id, response(m.id, toolError(m.version, "the client cancelled the call before limen's gate forwarded it; the tool was not called."), nil)}
			}
		}()
	}
	wg.Wait()
	if r.Context().Err() != nil {
		return // the client is gone: nothing is forwarded for it
	}
	var forward []*message
	var answers []*answer
	for i, m := range msgs {
		switch {
		case refused[i] != nil:
			answers = append(answers, refused[i])
		case !dropped[i]:
			forward = append(forward, m)
		}
	}
	if len(forward) == 0 {
		writeAnswers(w, batch, answers)
		return
	}
	out := body
	if len(forward) != len(msgs) {
		parts := make([][]byte, len(forward))
		for i, m := range forward {
			parts[i] = m.raw
		}
		out = append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']')
	}
	g.forward(w, r, out, batch, forward, answers)
}

// writeAnswers writes the gate's own answers as the whole response.
func writeAnswers(w http.ResponseWriter, batch bool, answers []*answer) {
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if !batch {
		w.Write(answers[0].body)
		return
	}
	parts := make([][]byte, len(answers))
	for i, a := range answers {
		parts[i] = a.body
	}
	w.Write(append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']'))
}

// forward sends the POST on and relays the answer. Until the deadline:
// then each request still unanswered is refused (a tools/call as a tool
// error, anything else as a JSON-RPC error) and the upstream request is
// cancelled, so nothing is sent to the server after the refusal.
func (g *HTTPGate) forward(w http.ResponseWriter, r *http.Request, body []byte, batch bool, sent []*message, answers []*answer) {
	ctx, cancel := context.WithTimeout(r.Context(), g.opts.CallTimeout)
	defer cancel()
	waiting := map[string]*message{}
	for _, m := range sent {
		if m.isCall() {
			waiting[idKey(m.id)] = m
		}
	}
	resp, err := g.send(ctx, r, body)
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		why := fmt.Sprintf("the MCP server did not answer within %s", g.opts.CallTimeout)
		if !errors.Is(err, context.DeadlineExceeded) {
			why = "the MCP server could not be reached: " + err.Error()
		}
		g.opts.Logger.Warn("forward", "error", why)
		writeAnswers(w, batch, append(answers, g.unanswered(waiting, why)...))
		return
	}
	defer resp.Body.Close()
	mediaType, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	mediaType = strings.TrimSpace(strings.ToLower(mediaType))
	switch {
	case resp.StatusCode == http.StatusOK && mediaType == "text/event-stream":
		copyHeader(w.Header(), resp.Header)
		w.WriteHeader(http.StatusOK)
		g.relayEvents(ctx, r.Context(), w, resp.Body, waiting, answers)
	case resp.StatusCode == http.StatusOK && mediaType == "application/json":
		g.relayJSON(w, resp, batch, waiting, answers)
	case resp.StatusCode == http.StatusAccepted && len(answers) > 0:
		writeAnswers(w, batch, answers)
	default:
		// Errors (a 401 with WWW-Authenticate, a 404 for an expired
		// session) and acknowledgements reach the client as they are.
		copyHeader(w.Header(), resp.Header)
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, io.LimitReader(resp.Body, maxBody))
	}
}

// unanswered refuses the requests in waiting.
func (g *HTTPGate) unanswered(waiting map[string]*message, why string) []*answer {
	var out []*answer
	for _, m := range waiting {
		var body json.RawMessage
		if m.method == methodCallTool {
			body = response(m.id, toolError(m.version, fmt.Sprintf("limen's MCP gate refused %s: %s. The call was cancelled; it may not have run, or run only in part.", ToolName(g.opts.Name, callName(m.params)), why)), nil)
		} else {
			body = response(m.id, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "limen's MCP gate: " + why})
		}
		out = append(out, &answer{m.id, body})
	}
	slices.SortFunc(out, func(a, b *answer) int { return strings.Compare(string(a.id), string(b.id)) })
	return out
}

func callName(params json.RawMessage) string {
	c, _ := parseCall(params)
	return c.Name
}

// settle marks the response in data answered, and returns it as the
// client gets it: a stateless tools/call result gains resultType if it
// lacks it; anything else is returned as it came (ok false).
func settle(data []byte, waiting map[string]*message) (out []byte, changed bool) {
	var env map[string]json.RawMessage
	if json.Unmarshal(data, &env) != nil {
		return data, false
	}
	id, hasID := env["id"]
	_, isResponse := env["result"]
	_, isError := env["error"]
	if !hasID || env["method"] != nil || !(isResponse || isError) {
		return data, false
	}
	m, ok := waiting[idKey(id)]
	if !ok {
		return data, false
	}
	delete(waiting, idKey(id))
	if !isResponse || m.method != methodCallTool || m.version < Stateless {
		return data, false
	}
	patched := completed(env["result"])
	if bytes.Equal(patched, env["result"]) {
		return data, false
	}
	env["result"] = patched
	b, err := json.Marshal(env)
	if err != nil {
		return data, false
	}
	return b, true
}

// relayJSON relays a single JSON answer (one response, or a batch's
// array), adding limen's refusals and any missing resultType.
func (g *HTTPGate) relayJSON(w http.ResponseWriter, resp *http.Response, batch bool, waiting map[string]*message, answers []*answer) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil || len(data) > maxBody {
		why := "the MCP server's answer could not be read"
		if err == nil {
			why = fmt.Sprintf("the MCP server's answer is over %d MiB", maxBody>>20)
		}
		writeAnswers(w, batch, append(answers, g.unanswered(waiting, why)...))
		return
	}
	copyHeader(w.Header(), resp.Header)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var parts []json.RawMessage
		if json.Unmarshal(trimmed, &parts) == nil {
			changed := len(answers) > 0
			for i, p := range parts {
				var c bool
				if parts[i], c = settle(p, waiting); c {
					changed = true
				}
			}
			if changed {
				for _, a := range answers {
					parts = append(parts, a.body)
				}
				data = append(append([]byte("["), bytes.Join(bytesOf(parts), []byte(","))...), ']')
			}
		}
	} else if out, changed := settle(data, waiting); changed {
		data = out
	}
	w.WriteHeader(http.StatusOK)
	w.Write(data)
}

func bytesOf(parts []json.RawMessage) [][]byte {
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

// relayEvents relays an SSE stream event by event as the upstream sends
// them (the server's notifications first, then its response), writing
// limen's refusals first. At the deadline the requests still unanswered
// are refused as events of their own and the stream ends.
func (g *HTTPGate) relayEvents(ctx, clientCtx context.Context, w http.ResponseWriter, body io.Reader, waiting map[string]*message, answers []*answer) {
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	event := func(data []byte) {
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", data)
	}
	for _, a := range answers {
		event(a.body)
	}
	flush()
	br := bufio.NewReaderSize(body, 64<<10)
	var lines [][]byte
	var size int
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long data line: keep reading it whole, up to the bound.
			full := append([]byte{}, line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(full) <= maxBody {
				line, err = br.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		} else {
			line = append([]byte{}, line...)
		}
		if len(line) > 0 {
			size += len(line)
			lines = append(lines, line)
		}
		if size > maxBody {
			err = fmt.Errorf("an event over %d MiB", maxBody>>20)
		}
		if err != nil {
			if clientCtx.Err() != nil {
				return
			}
			if len(waiting) > 0 {
				why := fmt.Sprintf("the MCP server did not answer within %s", g.opts.CallTimeout)
				if ctx.Err() == nil {
					why = "the MCP server's stream ended without an answer"
					if !errors.Is(err, io.EOF) {
						why = "the MCP server's stream broke: " + err.Error()
					}
				}
				g.opts.Logger.Warn("relay", "error", why)
				for _, a := range g.unanswered(waiting, why) {
					event(a.body)
				}
				flush()
			}
			return
		}
		if len(bytes.TrimRight(line, "\r\n")) != 0 {
			continue // the event goes on
		}
		g.writeEvent(w, lines, waiting)
		flush()
		lines, size = lines[:0], 0
	}
}

// writeEvent writes one SSE event as it came, unless its data is a
// response the gate completes (see settle).
func (g *HTTPGate) writeEvent(w io.Writer, lines [][]byte, waiting map[string]*message) {
	var data [][]byte
	for _, l := range lines {
		if rest, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(bytes.TrimRight(rest, "\r\n"), []byte(" ")))
		}
	}
	if len(data) > 0 {
		if out, changed := settle(bytes.Join(data, []byte("\n")), waiting); changed {
			for _, l := range lines {
				if !bytes.HasPrefix(l, []byte("data:")) && len(bytes.TrimRight(l, "\r\n")) != 0 {
					w.Write(l)
				}
			}
			fmt.Fprintf(w, "data: %s\n\n", out)
			return
		}
	}
	for _, l := range lines {
		w.Write(l)
	}
}

// send makes the upstream request for r: its method and headers (the
// client's Authorization and Mcp-Session-Id included), body if given.
func (g *HTTPGate) send(ctx context.Context, r *http.Request, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	u := *g.opts.Upstream
	switch {
	case u.RawQuery == "":
		u.RawQuery = r.URL.RawQuery
	case r.URL.RawQuery != "":
		u.RawQuery += "&" + r.URL.RawQuery
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	copyRequestHeader(req.Header, r.Header)
	resp, err := g.opts.Client.Do(req)
	var uerr *url.Error
	if errors.As(err, &uerr) {
		// The URL's query may hold a key: the error names the endpoint
		// without it, as the gate's log does.
		return nil, fmt.Errorf("%s %s: %w", r.Method, Endpoint(g.opts.Upstream), uerr.Err)
	}
	return resp, err
}

// Endpoint is u without its query, fragment or user: what the gate may
// log of the upstream's URL.
func Endpoint(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// hopByHop are the headers that describe one connection, not the
// message (RFC 9110 7.6.1), and those the gate sets or must not relay:
// the body's length (the gate may change the body), cookies (set for the
// gate's address, not the server's), and the encoding (Go's client
// decompresses, so the gate can read events).
var hopByHop = []string{
	"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Content-Encoding",
	"Cookie", "Set-Cookie", "Accept-Encoding",
}

func copyHeader(dst, src http.Header) {
	skip := map[string]bool{}
	for _, h := range hopByHop {
		skip[h] = true
	}
	for _, f := range src.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			skip[http.CanonicalHeaderKey(strings.TrimSpace(name))] = true
		}
	}
	for k, vs := range src {
		if !skip[http.CanonicalHeaderKey(k)] {
			dst[k] = append([]string(nil), vs...)
		}
	}
}

// copyRequestHeader is copyHeader for the upstream request, which also
// leaves out Origin: it names the client's page, which the upstream did
// not serve.
func copyRequestHeader(dst, src http.Header) {
	copyHeader(dst, src)
	dst.Del("Origin")
	dst.Del("Host")
}

// flushCopy copies a stream, flushing as it goes (the server's GET
// stream is open for as long as the session is).
func flushCopy(w http.ResponseWriter, r io.Reader) {
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if f != nil {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// CheckListen validates the HTTP gate's listen address: loopback, or any
// address when the gate serves TLS (the client's credentials cross the
// network through it). It reports whether the address is loopback.
func CheckListen(addr string, tls bool) (loopback bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false, fmt.Errorf("mcp gate: --listen %q: give host:port, such as --listen 127.0.0.1:8931", addr)
	}
	loopback = host != "" && isLoopback(host)
	if !loopback && !tls {
		return false, fmt.Errorf("mcp gate: --listen %q is not a loopback address: the gate would take other machines' requests, and their credentials, in clear text; listen on 127.0.0.1, or give --tls-cert and --tls-key", addr)
	}
	return loopback, nil
}
