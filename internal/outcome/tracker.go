package outcome

import (
	"fmt"
	"slices"
)

// Result is what became of an ask the runtime's dialog showed.
type Result int

const (
	// Approved: the tool ran (PostToolUse, or PostToolUseFailure that
	// was not an interruption).
	Approved Result = iota + 1
	// Denied: the runtime told the model the person did not want it
	// (PostToolBatch's rejection text).
	Denied
	// Refused: the tool did not run and the runtime told the model
	// something other than the person's No (a hook's deny, say).
	Refused
	// Interrupted: the session moved on with no word on the tool (No
	// without a note, Esc, or Esc while an approved tool ran: Claude
	// Code's events cannot tell these apart). From a dialog, it is taken
	// as the person's No: most people refuse without a note, and a limen
	// that heard only approvals would drift to allowing what they refuse
	// (measured with limenctl eval --interrupted, docs/integrations.md).
	Interrupted
	// CutShort: the tool ran and the runtime says the person interrupted
	// it while it ran: approved, then stopped, which says neither.
	CutShort
)

// String names the result as limen's notes word it.
func (r Result) String() string {
	switch r {
	case Approved:
		return "approved"
	case Denied:
		return "denied"
	case Refused:
		return "refused"
	case Interrupted:
		return "interrupted"
	case CutShort:
		return "cut short"
	}
	return "unknown"
}

// Ask is an ask limen opened at a PreToolUse, which the runtime's dialog
// may now show.
type Ask struct {
	ID        string // limen's ask id
	Session   string
	PromptID  string
	ToolUseID string
	Tool      string
	Input     string // canonical, as Event.Input
	Source    string // who opened it; see Event.Source
	// Since is when the PreToolUse hook that opened it started (as
	// Event.Since; 0 when unknown): events from processes older than it
	// settle nothing.
	Since uint64
}

// Outcome is what the events said about one ask.
type Outcome struct {
	Ask    Ask
	Result Result
	// Note is what the person typed with their No.
	Note string
	// Proof names the event that settled it: "PostToolUse", "PostToolBatch",
	// "UserPromptSubmit", "SessionEnd", "PreToolUse of prompt …".
	Proof string
	// Dialog: a PermissionRequest was bound to the ask, so the runtime
	// asked for a decision on it (a dialog, or a PermissionRequest hook).
	Dialog bool
	// HookAnswer is "allow" or "deny" when limen's own PermissionRequest
	// hook answered the dialog (Event.HookAnswer): then nobody was asked.
	HookAnswer string
	// Approver is Event.Approver of the bound PermissionRequest: who
	// other than a person may have answered (then it is no person's).
	Approver string
	// Scope is the allow rule that appeared in the project's settings
	// between the dialog and the tool's run: the person's "don't ask
	// again", as the runtime saved it.
	Scope string
	// Tainted says why what the events said may not be the person's: a
	// call of the same session that limen did not ask about could run
	// while the dialog was open, and a process it started could have
	// posted them (the tenth red-team pass). Then it is no person's.
	Tainted string
}

// Person reports whether the outcome is a person's answer: approved,
// denied or interrupted in a dialog the runtime asked for, which no hook
// of limen's answered. An interruption is the person's No (see
// Interrupted).
func (o Outcome) Person() bool {
	return o.Dialog && o.HookAnswer == "" && o.Approver == "" && o.Tainted == "" && (o.Result == Approved || o.Result == Denied || o.Result == Interrupted)
}

// Approves reports whether the person's answer is an approval.
func (o Outcome) Approves() bool { return o.Result == Approved }

// MaxOpen bounds the asks a Tracker holds, so that a runtime that never
// sends what closes its asks cannot grow limend's memory without end: past
// it, the oldest is forgotten (its ask then expires in limen as usual).
const MaxOpen = 4096

type open struct {
	Ask
	dialog     bool
	hookAnswer string
	approver   string
	rules      []string // the allow list when the dialog opened
	tainted    string   // Outcome.Tainted
}

// Tracker binds hook events to open asks. It is not safe for concurrent
// use: limend feeds it one event at a time, in the order received.
type Tracker struct {
	asks []*open // oldest first
	// approved remembers the last asks settled as approved, by session
	// and tool_use_id, so that a later rejection of the same call — which
	// Claude Code never sends after running it — is reported as a
	// contradiction: one of the two events was forged.
	approved map[callKey]string
	order    []callKey
}

type callKey struct{ source, session, toolUseID string }

// maxApproved bounds what Tracker.approved remembers.
const maxApproved = 1024

func (t *Tracker) rememberApproved(k *open) {
	if t.approved == nil {
		t.approved = map[callKey]string{}
	}
	key := callKey{k.Source, k.Session, k.ToolUseID}
	if len(t.order) >= maxApproved {
		delete(t.approved, t.order[0])
		t.order = t.order[1:]
	}
	t.approved[key] = k.ID
	t.order = append(t.order, key)
}

// Open starts tracking an ask. An ask whose session and tool_use_id are
// already open is refused: a runtime never reuses a tool_use_id.
func (t *Tracker) Open(a Ask) error {
	if a.ID == "" || a.Session == "" || a.ToolUseID == "" {
		return fmt.Errorf("ask %q: an ask needs an id, a session and a tool_use_id to be tracked", a.ID)
	}
	if t.find(a.Session, a.ToolUseID) != nil {
		return fmt.Errorf("ask %s: tool_use_id %s of session %s is already open", a.ID, a.ToolUseID, a.Session)
	}
	if len(t.asks) >= MaxOpen {
		t.asks = slices.Delete(t.asks, 0, 1)
	}
	t.asks = append(t.asks, &open{Ask: a})
	return nil
}

// Len is how many asks are open.
func (t *Tracker) Len() int { return len(t.asks) }

// Knows reports whether an event of session can matter: the session has
// an open ask, or an approval an event could contradict.
func (t *Tracker) Knows(session string) bool {
	if t.HasOpen(session) {
		return true
	}
	for k := range t.approved {
		if k.session == session {
			return true
		}
	}
	return false
}

// HasOpen reports whether session has an open ask.
func (t *Tracker) HasOpen(session string) bool {
	for _, k := range t.asks {
		if k.Session == session {
			return true
		}
	}
	return false
}

// Showing reports whether ask id is open and a dialog was asked for it.
func (t *Tracker) Showing(id string) bool {
	for _, k := range t.asks {
		if k.ID == id {
			return k.dialog
		}
	}
	return false
}

// Prune forgets the asks that keep says are no longer open (answered in
// limen, expired), so that no event binds to them.
func (t *Tracker) Prune(keep func(id string) bool) {
	t.asks = slices.DeleteFunc(t.asks, func(k *open) bool { return !keep(k.ID) })
}

// Close forgets ask id (answered elsewhere, in limen, or expired).
func (t *Tracker) Close(id string) {
	t.asks = slices.DeleteFunc(t.asks, func(k *open) bool { return k.ID == id })
}

func (t *Tracker) find(session, toolUseID string) *open {
	for _, k := range t.asks {
		if k.Session == session && k.ToolUseID == toolUseID {
			return k
		}
	}
	return nil
}

// Observe feeds one event. It returns the asks it settled, and a line for
// each thing it refused to bind (an event from another source than the
// ask's opener), for the log.
func (t *Tracker) Observe(e Event) (done []Outcome, refused []string) {
	settle := func(k *open, r Result, note, proof string) {
		o := Outcome{Ask: k.Ask, Result: r, Note: note, Proof: proof, Dialog: k.dialog, HookAnswer: k.hookAnswer, Approver: k.approver, Tainted: k.tainted}
		if r == Approved {
			o.Scope = newRule(k.rules, e.Rules)
			t.rememberApproved(k)
		}
		done = append(done, o)
		t.Close(k.ID)
	}
	// mine finds the open ask of this event's call; a call of another
	// source is refused, not bound.
	mine := func(toolUseID string) *open {
		k := t.find(e.Session, toolUseID)
		if k != nil && k.Source != e.Source {
			refused = append(refused, fmt.Sprintf("%s for %s of session %s came from %s, not from %s, which opened ask %s", e.Name, toolUseID, e.Session, orNone(e.Source), orNone(k.Source), k.ID))
			return nil
		}
		if k != nil && older(e, k) {
			refused = append(refused, fmt.Sprintf("%s for %s of session %s came from a process older than ask %s (started at tick %d, the ask at %d): a tool the runtime ran, not one of its hooks", e.Name, toolUseID, e.Session, k.ID, e.Since, k.Since))
			return nil
		}
		return k
	}
	switch e.Name {
	case PreToolUse:
		if !e.Opens {
			// A call limen did not ask about may run while the open asks'
			// dialogs show; what it starts could post their events.
			for _, k := range t.asks {
				if k.Session == e.Session && k.Source == e.Source && k.ToolUseID != e.ToolUseID && k.tainted == "" {
					k.tainted = "the call " + orNone(e.ToolUseID) + " of the same session, which limen did not ask about, could run while its dialog was open"
				}
			}
		}
		// A new prompt: what the last one left open got no outcome.
		for _, k := range slices.Clone(t.asks) {
			if k.Session == e.Session && k.Source == e.Source && e.PromptID != "" && k.PromptID != e.PromptID {
				settle(k, Interrupted, "", "PreToolUse of prompt "+e.PromptID)
			}
		}
	case PermissionRequest:
		for _, k := range t.asks {
			if k.Session == e.Session && k.Tool == e.Tool && k.Input == e.Input && !k.dialog {
				if older(e, k) {
					refused = append(refused, fmt.Sprintf("PermissionRequest of session %s came from a process older than ask %s: a tool the runtime ran, not one of its hooks", e.Session, k.ID))
					break
				}
				if k.Source != e.Source {
					refused = append(refused, fmt.Sprintf("PermissionRequest of session %s came from %s, not from %s, which opened ask %s", e.Session, orNone(e.Source), orNone(k.Source), k.ID))
					break
				}
				k.dialog, k.hookAnswer, k.rules, k.approver = true, e.HookAnswer, e.Rules, e.Approver
				break
			}
		}
	case PostToolUse:
		if k := mine(e.ToolUseID); k != nil {
			settle(k, Approved, "", "PostToolUse")
		}
	case PostToolUseFailure:
		if k := mine(e.ToolUseID); k != nil {
			if e.IsInterrupt {
				settle(k, CutShort, "", "PostToolUseFailure (interrupted)")
			} else {
				settle(k, Approved, "", "PostToolUseFailure")
			}
		}
	case PostToolBatch:
		for _, c := range e.Calls {
			k := mine(c.ToolUseID)
			if k == nil {
				if id, ok := t.approved[callKey{e.Source, e.Session, c.ToolUseID}]; ok {
					if rejected, _ := rejectionNote(c.Response); rejected {
						refused = append(refused, fmt.Sprintf("CONTRADICTION: ask %s was recorded as approved, and now the runtime says the person rejected %s of session %s: one of the two events was forged", id, c.ToolUseID, e.Session))
					}
				}
				continue // settled by its PostToolUse, or not limen's
			}
			if rejected, note := rejectionNote(c.Response); rejected {
				settle(k, Denied, note, "PostToolBatch")
			} else {
				settle(k, Refused, "", "PostToolBatch")
			}
		}
	case UserPromptSubmit, SessionEnd, Stop: // Stop: Codex's turn ended
		for _, k := range slices.Clone(t.asks) {
			if k.Session == e.Session && k.Source == e.Source {
				settle(k, Interrupted, "", e.Name)
			}
		}
	}
	return done, refused
}

// older reports whether e was posted by a process older than ask k: both
// times known, and the poster's chain started before the hook that
// opened k.
func older(e Event, k *open) bool {
	return e.Since != 0 && k.Since != 0 && e.Since < k.Since
}

// newRule is the first rule in after that is not in before: what the
// runtime saved for "don't ask again". Unknown lists (nil) give none.
func newRule(before, after []string) string {
	if before == nil || after == nil {
		return ""
	}
	for _, r := range after {
		if !slices.Contains(before, r) {
			return r
		}
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "no known agent runtime"
	}
	return s
}
