// Package hookapi serves limen's decisions as HTTP/JSON, for callers that
// must not link gRPC: limen-hook (a process per tool call, which has to
// start fast, so it posts the runtime's JSON to /v1/hooks unread and prints
// the answer) and runtimes that call a URL instead of a command, such as
// Claude Code's "type": "http" hooks.
//
// It calls the same DecisionService in-process, so every request goes
// through the same validation, identity checks and limits as gRPC. Over the
// Unix socket the caller's identity comes from the kernel (SO_PEERCRED, see
// ConnContext), never from the request. That identity carries limen-hook's
// pid and start time: each decision records the agent runtime that started
// the hook, so that no process under that runtime can answer an ask or
// change the policy (internal/server/runtimes.go). Over --http-tcp the
// caller is anonymous: it may decide and await its own asks, nothing else.
//
// Routes (all POST, JSON in and out):
//
//	/v1/decide                 hookfmt.DecideRequest → hookfmt.DecideResponse
//	/v1/await                  hookfmt.AwaitRequest  → hookfmt.DecideResponse
//	/v1/hooks/claude-code      Claude Code hook JSON → Claude Code hook output
//	/v1/hooks/codex            Codex hook JSON       → Codex hook output
//	/v1/hooks/gemini           Gemini CLI hook JSON  → Gemini CLI hook output
//
// The /v1/hooks routes take ?wait=20s to wait for a person's answer to an
// ask before replying. They always answer 200 with the runtime's JSON, even
// on bad input or an internal error (then ask, or deny where the runtime has
// no ask), because a runtime treats a non-2xx reply as "no opinion" and falls
// through to its own rules. The reply has a Content-Length and a
// Limen-Verdict header (allow, ask or deny) saying what the body answers.
package hookapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/hookfmt"
	"github.com/limenhq/limen/internal/hookfmt/hookout"
	"github.com/limenhq/limen/internal/peercred"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// MaxWait caps how long one request may wait for a person's answer.
const MaxWait = 10 * time.Minute

// Handler is the HTTP/JSON face of a DecisionService.
type Handler struct {
	svc limenv1.DecisionServiceServer
	log *slog.Logger
	mux *http.ServeMux
}

// New returns a Handler calling svc (a *server.Server in limend).
func New(svc limenv1.DecisionServiceServer, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{svc: svc, log: log, mux: http.NewServeMux()}
	h.mux.HandleFunc("POST /v1/decide", h.decide)
	h.mux.HandleFunc("POST /v1/await", h.await)
	h.mux.HandleFunc("POST /v1/hooks/{format}", h.hook)
	h.registerEvents() // events.go
	h.mux.HandleFunc("GET /v1/health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "serving"})
	})
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// ConnContext is for http.Server.ConnContext: on a Unix socket it attaches
// the peer's kernel-reported identity to every request of the connection,
// where the service's identity checks find it. TCP connections carry none
// and are served as the anonymous user.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if ai, ok := peercred.FromConn(c); ok {
		return peercred.NewContext(ctx, ai)
	}
	return ctx
}

// NewServer returns the http.Server limend runs on its HTTP listeners.
func NewServer(h http.Handler, log *slog.Logger) *http.Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &http.Server{
		Handler:           h,
		ConnContext:       ConnContext,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		// No WriteTimeout: a reply may wait for a person (bounded by MaxWait).
		IdleTimeout: 60 * time.Second,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

func (h *Handler) decide(w http.ResponseWriter, r *http.Request) {
	var req hookfmt.DecideRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.WaitMS < 0 {
		writeError(w, http.StatusBadRequest, "wait_ms must be zero or positive (milliseconds to wait for a person)")
		return
	}
	resp, err := h.run(r.Context(), req)
	if err != nil {
		writeStatus(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (h *Handler) await(w http.ResponseWriter, r *http.Request) {
	var req hookfmt.AwaitRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.WaitMS < 0 {
		writeError(w, http.StatusBadRequest, "wait_ms must be zero or positive (milliseconds to wait for a person)")
		return
	}
	resp, err := h.wait(r.Context(), req.AskID, waitOf(req.WaitMS))
	if err != nil {
		writeStatus(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// VerdictHeader names the reply header of the /v1/hooks routes that says
// which verdict the body renders: allow, ask or deny. limen-hook prints a
// reply only when the header and the body agree (hookout.Allows), so a
// garbled reply never becomes an allow.
const VerdictHeader = "Limen-Verdict"

// hook answers a runtime's own hook JSON with the runtime's own answer. It
// serves the runtimes' "type": "http" hooks and limen-hook alike: limen-hook
// posts its stdin here unread and prints the reply, so that all JSON
// parsing and rendering happens in limend, not in a process started per
// tool call.
func (h *Handler) hook(w http.ResponseWriter, r *http.Request) {
	f, err := hookout.ParseFormat(r.PathValue("format"))
	if err != nil {
		writeError(w, http.StatusNotFound, "no hook route for "+err.Error()+" (/v1/hooks/claude-code, /v1/hooks/codex, /v1/hooks/gemini)")
		return
	}
	event := hookout.DefaultEvent(f)
	answer := func(a hookfmt.Answer) {
		b := hookout.Render(f, event, a.Verdict, a.Reason)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Header().Set(VerdictHeader, string(a.Verdict))
		w.WriteHeader(http.StatusOK)
		w.Write(b)
	}
	var wait time.Duration
	if s := r.URL.Query().Get("wait"); s != "" {
		if wait, err = time.ParseDuration(s); err != nil || wait < 0 {
			answer(hookout.FailClosed(f, event, fmt.Errorf("the hook URL's wait=%q is not a duration such as 20s; fix the URL in the hook settings", s)))
			return
		}
	}
	if err := checkOnAsk(r.URL.Query().Get("on_ask")); err != nil { // events.go
		answer(hookout.FailClosed(f, event, err))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, hookout.MaxInput+1))
	if err != nil {
		answer(hookout.FailClosed(f, event, fmt.Errorf("read the hook input: %w", err)))
		return
	}
	call, err := hookfmt.Parse(f, body)
	if errors.Is(err, hookfmt.ErrTooLarge) {
		answer(hookout.TooLarge())
		return
	}
	if err != nil {
		answer(hookout.FailClosed(f, event, fmt.Errorf("malformed hook input: %w", err)))
		return
	}
	event = call.Event
	resp, err := h.run(r.Context(), hookfmt.RequestFor(f, call, wait.Milliseconds()))
	if err != nil {
		answer(hookout.FailClosed(f, event, errors.New("limend refused the call: "+client.Message(err))))
		return
	}
	if h.observeDecided(r.Context(), f, call, body, resp, r.URL.Query().Get("on_ask")) { // events.go
		writeNoDecision(w)
		return
	}
	answer(hookfmt.Explain(f, event, resp))
}

// run decides and, for an ask when asked to, waits for a person. A panic
// anywhere below is an ask, never an allow.
func (h *Handler) run(ctx context.Context, req hookfmt.DecideRequest) (resp hookfmt.DecideResponse, err error) {
	defer func() {
		if v := recover(); v != nil {
			h.log.Error("hook API handler panicked", "panic", v, "stack", string(debug.Stack()))
			resp = hookfmt.DecideResponse{Verdict: "ask", Reason: fmt.Sprintf("limen hit an internal error and asks a person instead (failing closed): %v", v)}
			err = nil
		}
	}()
	input := strings.TrimSpace(string(req.Input))
	if input == "" || input == "null" {
		input = "{}"
	}
	d, err := h.svc.Decide(ctx, &limenv1.DecideRequest{Action: &limenv1.Action{
		Agent: req.Agent, Session: req.Session, Tool: req.Tool, InputJson: input, Cwd: req.Cwd, ToolUseId: req.ToolUseID,
	}})
	if err != nil {
		return hookfmt.DecideResponse{}, err
	}
	dec := d.GetDecision()
	resp = hookfmt.DecideResponse{Verdict: convert.VerdictName(dec.GetVerdict()), Reason: dec.GetReason(), DecisionID: dec.GetDecisionId(), AskID: dec.GetAskId()}
	if resp.Verdict != "ask" || resp.AskID == "" {
		return resp, nil
	}
	resp.State = "pending"
	if req.WaitMS <= 0 {
		return resp, nil
	}
	began := time.Now()
	waited, err := h.wait(ctx, resp.AskID, waitOf(req.WaitMS))
	resp.WaitedMS = max(time.Since(began).Milliseconds(), 1)
	if err != nil {
		// The decision stands as ask; say why the wait ended.
		resp.Reason += " (waiting for a person failed: " + client.Message(err) + ")"
		return resp, nil
	}
	if waited.State == "pending" {
		waited.Reason = resp.Reason
	}
	waited.DecisionID, waited.WaitedMS = resp.DecisionID, resp.WaitedMS
	return waited, nil
}

// wait awaits an ask's answer for at most d.
func (h *Handler) wait(ctx context.Context, askID string, d time.Duration) (hookfmt.DecideResponse, error) {
	a, err := h.svc.Await(ctx, &limenv1.AwaitRequest{AskId: askID, Timeout: durationpb.New(d)})
	if err != nil {
		return hookfmt.DecideResponse{}, err
	}
	resp := hookfmt.DecideResponse{Verdict: convert.VerdictName(a.GetVerdict()), Reason: a.GetReason(), AskID: askID}
	switch a.GetState() {
	case limenv1.AskState_ASK_STATE_PENDING:
		resp.State, resp.Verdict = "pending", "ask"
	case limenv1.AskState_ASK_STATE_ANSWERED:
		resp.State = "answered"
	case limenv1.AskState_ASK_STATE_EXPIRED:
		resp.State = "expired"
	default:
		resp.State, resp.Verdict = "pending", "ask"
	}
	return resp, nil
}

// waitOf turns wait_ms into a bounded duration; zero waits the longest
// allowed, since the service reads a zero timeout as "until answered".
func waitOf(ms int64) time.Duration {
	d := time.Duration(ms) * time.Millisecond
	if d <= 0 || d > MaxWait || ms > int64(MaxWait/time.Millisecond) {
		return MaxWait
	}
	return d
}

func readJSON(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("Content-Type is %q: send application/json", ct)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, hookout.MaxInput+1))
	if err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	if err := hookfmt.ExactKeys(body, v); err != nil {
		return fmt.Errorf("request body: %w (see the fields in docs/integrations.md)", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("request body: %w (see the fields in docs/integrations.md)", err)
	}
	if dec.More() {
		return errors.New("request body: more than one JSON value; send one object")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, hookfmt.ErrorResponse{Error: msg})
}

// writeStatus maps the service's gRPC status to HTTP, in one place.
func writeStatus(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch client.ProblemOf(err) {
	case client.BadRequest:
		code = http.StatusBadRequest
	case client.NotFound:
		code = http.StatusNotFound
	case client.Conflict:
		code = http.StatusConflict
	case client.Denied:
		code = http.StatusForbidden
	case client.Exhausted:
		code = http.StatusTooManyRequests
	case client.Unreachable:
		code = http.StatusServiceUnavailable
	case client.Timeout, client.Canceled:
		code = http.StatusGatewayTimeout
	}
	writeError(w, code, client.Message(err))
}
