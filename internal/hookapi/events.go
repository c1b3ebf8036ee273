package hookapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/limenhq/limen/internal/hookfmt"
	"github.com/limenhq/limen/internal/hookfmt/hookout"
)

// Observed hook events (issue 14): limen-hook posts the Claude Code events
// around a tool call that decide nothing — PermissionRequest, PostToolUse,
// PostToolUseFailure, PostToolBatch, UserPromptSubmit, SessionEnd — to
//
//	/v1/events/claude-code     Claude Code hook JSON → 200 {}
//
// and limend learns from them what the person answered in Claude Code's
// own dialog (internal/outcome). PreToolUse, which does decide, reaches the
// observer from the /v1/hooks route, with the ask it opened. The reply
// says nothing the runtime acts on: limen-hook prints no answer for these
// events, whatever limend replies.

// Observer takes observed hook events (a *server.Server in limend).
type Observer interface {
	// ObserveHook takes one event; askID is the ask a PreToolUse just
	// opened, "" otherwise. An error says what was not taken.
	ObserveHook(ctx context.Context, body []byte, askID string) error
	// DialogMayAsk reports whether the runtime's own dialog may ask the
	// person about ask askID instead of limen (--on-ask dialog): only an
	// ask the prediction made, not one a rule or a failure made.
	DialogMayAsk(askID string) bool
	// Tracks reports whether session has asks being tracked: a decided
	// PreToolUse that opened no ask concerns limen only then.
	Tracks(session string) bool
}

// registerEvents adds the events route when the service observes.
func (h *Handler) registerEvents() {
	obs, ok := h.svc.(Observer)
	if !ok {
		return
	}
	h.mux.HandleFunc("POST /v1/events/{format}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("format") != string(hookout.ClaudeCode) {
			writeError(w, http.StatusNotFound, "limen observes only Claude Code's events so far (/v1/events/claude-code)")
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, hookout.MaxInput+1))
		if err != nil {
			writeError(w, http.StatusBadRequest, "read the hook event: "+err.Error())
			return
		}
		if len(body) > hookout.MaxInput {
			writeError(w, http.StatusRequestEntityTooLarge, "hook event is larger than "+strconv.Itoa(hookout.MaxInput)+" bytes")
			return
		}
		if err := obs.ObserveHook(r.Context(), body, ""); err != nil {
			h.log.Debug("hook event not taken", "err", err)
			writeStatus(w, err)
			return
		}
		writeJSON(w, http.StatusOK, struct{}{})
	})
}

// observeDecided tells the observer of a Claude Code PreToolUse that was
// just decided, with the ask it opened, if any: the ask is tracked from
// there, and the PreToolUse of a new prompt closes the last one's asks.
// It reports whether the hook should give no decision rather than ask
// (onAsk "dialog", see dialogMayAsk).
func (h *Handler) observeDecided(ctx context.Context, f hookout.Format, call hookfmt.Call, body []byte, resp hookfmt.DecideResponse, onAsk string) bool {
	obs, ok := h.svc.(Observer)
	if !ok || f != hookout.ClaudeCode || call.Event != hookout.PreToolUse {
		return false
	}
	askID := ""
	if resp.Verdict == "ask" && resp.State == "pending" {
		askID = resp.AskID
	}
	if askID == "" && !obs.Tracks(call.Session) {
		// Most tool calls: allowed, in a session with nothing open. The
		// session is known from the parse already; nothing to tell.
		return false
	}
	err := obs.ObserveHook(ctx, body, askID)
	if err != nil {
		h.log.Debug("PreToolUse not tracked", "err", err)
	}
	return onAsk == "dialog" && askID != "" && err == nil && dialogMode(body) && obs.DialogMayAsk(askID)
}

// dialogModes are the permission modes in which Claude Code's own rules
// ask the person about what they do not allow: there, --on-ask dialog may
// leave an ask to Claude Code's dialog. In any other mode (bypassPermissions,
// acceptEdits, auto, dontAsk) its rules would let the tool run, or refuse
// it, with nobody asked, so limen asks itself.
var dialogModes = map[string]bool{"default": true, "plan": true}

func dialogMode(body []byte) bool {
	var in struct {
		Mode string `json:"permission_mode"`
	}
	return json.Unmarshal(body, &in) == nil && dialogModes[in.Mode]
}

// checkOnAsk reads the hook URL's on_ask: "" or prompt (print ask), dialog
// (leave the asks of the prediction to the runtime's dialog).
func checkOnAsk(v string) error {
	switch v {
	case "", "prompt", "dialog":
		return nil
	}
	return fmt.Errorf("the hook URL's on_ask=%q is not prompt or dialog; fix the URL in the hook settings", v)
}

// writeNoDecision answers a hook with no decision ({}): the runtime's own
// rules and dialog decide. The verdict header says ask, which is what it is.
func writeNoDecision(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "2")
	w.Header().Set(VerdictHeader, string(hookout.Ask))
	w.WriteHeader(http.StatusOK)
	w.Write([]byte("{}"))
}
