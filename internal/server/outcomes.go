package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/outcome"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// Learning from the runtime's own dialog (issue 14). limen-hook posts the
// hook events around a tool call (internal/hookapi/events.go); the ones
// after an ask say what the person answered in Claude Code's dialog.
// internal/outcome turns them into outcomes; here they are checked against
// who sent them and recorded: a person's Yes or No as an answer that
// teaches, anything else (Esc, a hook's answer, a run nobody was asked
// about) as the ask's close, which teaches nothing.

// Channel names where the answers recorded here were given.
const Channel = "claude-code prompt"

// outcomes is the server's outcome tracker, fed one event at a time.
type outcomes struct {
	mu      sync.Mutex
	tracker outcome.Tracker
	// procs maps a tracked ask to the runtime process that
	// opened it, so that an ask whose dialog is showing stays open while
	// that process lives (holdExpiry).
	procs map[string]procKey
}

func (s *Server) outcomes() *outcomes {
	o := &s.seen
	o.mu.Lock()
	if o.procs == nil {
		o.procs = map[string]procKey{}
	}
	o.mu.Unlock()
	return o
}

// source names the agent runtime the caller runs under, with its user:
// "<user>@<pid>/<start>" of the runtime at the top of the recorded chain,
// or "<user>@" when limend records no runtime above it (ancestry off on
// this system, or a caller run from the person's own shell). An event is
// bound only to asks its source opened.
func (s *Server) source(ctx context.Context) (string, procKey, uint64, error) {
	c := s.guard.whoIs(ctx)
	if c.kind == kindAnonymous || c.kind == kindGateway {
		return "", procKey{}, 0, status.Error(codes.PermissionDenied, "hook events are taken only over limend's Unix socket, where the kernel names the process that sent them")
	}
	e, sameSession, since, err := s.guard.runtimes.runtimeSince(c.peer.PID, c.peer.Start)
	if err != nil {
		return "", procKey{}, 0, status.Error(codes.PermissionDenied, err.Error())
	}
	// A runtime's hooks are its children; a process only in its session
	// left its tree (nohup, a shell's & after the shell exited): an
	// agent's leftover, not a hook.
	if e == nil || sameSession {
		if s.guard.runtimes.off == nil {
			// With ancestry followed, a real hook always runs under a
			// runtime limend recorded as it decided: a process under
			// none that posts a runtime's dialog (one that left every
			// runtime's tree and session, or the person's shell) could
			// open an ask of its own and settle it with a Yes nobody
			// gave.
			return "", procKey{}, 0, status.Error(codes.PermissionDenied, "hook events are taken only from the hooks of an agent runtime limend saw decide; this process runs under none")
		}
		return c.name + "@", procKey{}, since, nil
	}
	top := s.guard.runtimes.top(e.key)
	if above := s.guard.runtimes.runtimeAbove(top); above != nil {
		// A "runtime" that an agent runtime started — a program the
		// agent ran that runs limen-hook itself, opening an ask of its
		// own and posting a PostToolUse for it — is the agent's
		// process: its dialog events are no person's answers.
		return "", procKey{}, 0, status.Error(codes.PermissionDenied, fmt.Sprintf("hook events are not taken from process %d: it runs under %s", top.pid, above))
	}
	return fmt.Sprintf("%s@%d/%d", c.name, top.pid, top.start), top, since, nil
}

// top follows the recorded links up from k to the runtime.
func (r *runtimes) top(k procKey) procKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; i < maxWalk; i++ {
		e := r.byKey[k]
		if e == nil || e.up == (procKey{}) {
			return k
		}
		k = e.up
	}
	return k
}

// ObserveHook takes one Claude Code hook event that limen-hook observed.
// askID is the ask a PreToolUse just opened ("" for other events, or when
// it did not ask). It never fails the runtime: an error only says what was
// not taken, for the log.
func (s *Server) ObserveHook(ctx context.Context, body []byte, askID string) error {
	o := s.outcomes()
	if askID == "" {
		// Most events (every PreToolUse limen allowed, every tool call
		// nobody was asked about) concern no ask: skip them before the
		// full parse and the walk up the caller's ancestry.
		session := outcome.SessionOf(body)
		o.mu.Lock()
		known := o.tracker.Knows(session)
		o.mu.Unlock()
		if !known && session != "" { // without one, the parse below says what is wrong
			return nil
		}
	}
	e, err := outcome.ParseClaudeCode(body)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	src, proc, since, err := s.source(ctx)
	if err != nil {
		return err
	}
	e.Source, e.Since, e.Opens = src, since, askID != ""
	switch e.Name {
	case outcome.PermissionRequest, outcome.PostToolUse, outcome.PostToolUseFailure:
		o.mu.Lock()
		open := o.tracker.HasOpen(e.Session)
		o.mu.Unlock()
		if open { // the file is read only when an answer may need it
			e.Rules = allowRules(e.Cwd)
		}
	}
	o.mu.Lock()
	o.tracker.Prune(func(id string) bool {
		n, err := store.ParseID(id)
		keep := err == nil && s.asks.get(n) != nil
		if !keep {
			delete(o.procs, id)
		}
		return keep
	})
	done, refused := o.tracker.Observe(e)
	var openErr error
	if e.Name == outcome.PreToolUse && askID != "" {
		openErr = s.openAsk(o, e, askID, proc)
	}
	for _, d := range done {
		delete(o.procs, d.Ask.ID)
	}
	o.mu.Unlock()
	for _, r := range refused {
		s.log.Warn("hook event not taken as an answer", "why", r)
	}
	for _, d := range done {
		s.settleOutcome(d)
	}
	return openErr
}

// Tracks reports whether session has asks the tracker follows (hookapi
// skips telling it of a decided call that opened no ask otherwise).
func (s *Server) Tracks(session string) bool {
	o := s.outcomes()
	o.mu.Lock()
	defer o.mu.Unlock()
	return session != "" && o.tracker.Knows(session)
}

// DialogMayAsk reports whether the runtime's own dialog may ask the person
// about ask askID instead of limen (limen-hook --on-ask dialog): the ask is
// pending and tracked, and the prediction made it. An ask a rule or a
// failure made is limen's to put to the person.
func (s *Server) DialogMayAsk(askID string) bool {
	id, err := store.ParseID(askID)
	if err != nil {
		return false
	}
	k := s.asks.get(id)
	if k == nil || k.msg.GetDecision().GetDecidedBy() != limenv1.Decider_DECIDER_PREDICTION {
		return false
	}
	o := s.outcomes()
	o.mu.Lock()
	defer o.mu.Unlock()
	_, tracked := o.procs[askID]
	return tracked
}

// openAsk starts tracking an ask that a PreToolUse opened, once it is
// sure the ask is pending, is this event's call, and is the caller's own.
func (s *Server) openAsk(o *outcomes, e outcome.Event, askID string, proc procKey) error {
	id, err := store.ParseID(askID)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	k := s.asks.get(id)
	if k == nil {
		return nil // settled already
	}
	a := k.msg.GetDecision().GetAction()
	if a.GetToolUseId() != e.ToolUseID || a.GetSession() != e.Session || !strings.HasPrefix(e.Source, a.GetUser()+"@") {
		return status.Errorf(codes.PermissionDenied, "ask %s is not this PreToolUse's (tool_use_id %s, session %s)", askID, e.ToolUseID, e.Session)
	}
	if err := o.tracker.Open(outcome.Ask{ID: askID, Session: e.Session, PromptID: e.PromptID, ToolUseID: e.ToolUseID, Tool: e.Tool, Input: e.Input, Source: e.Source, Since: e.Since}); err != nil {
		return status.Error(codes.ResourceExhausted, err.Error())
	}
	o.procs[askID] = proc
	return nil
}

// settleOutcome records what the events said about an ask still pending:
// a person's answer as an answer, anything else as the ask's close.
func (s *Server) settleOutcome(d outcome.Outcome) {
	id, err := store.ParseID(d.Ask.ID)
	if err != nil {
		return
	}
	k := s.asks.get(id)
	if k == nil {
		return // answered in limen, or expired, meanwhile
	}
	proof := fmt.Sprintf("%s, inferred from %s of %s (session %s)", Channel, d.Proof, d.Ask.ToolUseID, d.Ask.Session)
	if d.Person() {
		choice := limenv1.Choice_CHOICE_APPROVE
		if !d.Approves() {
			choice = limenv1.Choice_CHOICE_DENY
		}
		note := proof
		if d.Result == outcome.Interrupted {
			note += "; interrupted: no answer reached the model (No without a note, Esc, or Esc while it ran, which the runtime's events do not tell apart), taken as a No"
		}
		if d.Scope != "" {
			note += "; don't ask again: " + d.Scope + " saved in .claude/settings.local.json"
		}
		if d.Note != "" {
			note += "; the person said: " + d.Note
		}
		if err := s.answerInferred(k, id, choice, note); err != nil {
			s.log.Error("record an answer given in the runtime's dialog", "ask", d.Ask.ID, "err", err)
		}
		return
	}
	why := d.Result.String()
	switch {
	case d.HookAnswer != "":
		why += ", answered by limen's PermissionRequest hook (" + d.HookAnswer + "), not by a person"
	case d.Tainted != "":
		why += ", not taken as a person's: " + d.Tainted
	case d.Approver != "":
		why += " by " + d.Approver + ", not known to be a person, so it teaches nothing"
	case !d.Dialog:
		why += " with no dialog limen saw (a rule, a mode or another hook decided), not by a person"
	case d.Result == outcome.CutShort:
		why += ": approved, then stopped while it ran, which teaches nothing"
	case d.Result == outcome.Refused:
		why += ": the runtime did not run it, for a reason other than the person's No"
	}
	out := &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_EXPIRED, Note: proof + ": " + why, Time: timestamppb.New(s.now())}
	if _, err := s.store.Expire(id, out); err != nil {
		if !errors.Is(err, store.ErrResolved) && !errors.Is(err, store.ErrNotFound) {
			s.log.Error("close an ask from the runtime's events", "ask", d.Ask.ID, "err", err)
		}
		return
	}
	s.asks.resolve(id, &limenv1.AwaitResponse{
		Verdict: limenv1.Verdict_VERDICT_BLOCK, State: limenv1.AskState_ASK_STATE_EXPIRED, Outcome: out,
		Reason: "closed by the runtime's events: " + why,
	})
}

// answerInferred records a person's answer seen in the runtime's dialog,
// as Answer records one given in limen: durably, then it teaches and wakes
// the waiters. It is the ask's user's answer (the runtime runs as them).
func (s *Server) answerInferred(k *ask, id uint64, choice limenv1.Choice, note string) error {
	dec := k.msg.GetDecision()
	now := s.now()
	act, err := convert.Action(dec.GetAction(), now)
	if err != nil {
		return fmt.Errorf("decode the asked action: %w", err)
	}
	parts := action.Parts(act)
	if choice == limenv1.Choice_CHOICE_APPROVE {
		parts = inferable(parts)
	}
	ls := ladders(parts)
	if len(note) > 4096 {
		note = note[:4096]
	}
	by := dec.GetAction().GetUser()
	rec := &storev1.AnswerRecord{
		AskId: k.msg.GetAskId(), Action: storeAction(dec.GetAction()), Choice: storev1.Choice(choice), Scope: storev1.Scope_SCOPE_ONCE,
		Note: note, AnsweredBy: by, Time: timestamppb.New(now), KeyScheme: action.KeyScheme, Channel: inferredChannel,
	}
	for _, l := range ls {
		rec.Ladders = append(rec.Ladders, &storev1.Ladder{Keys: l})
	}
	s.learn.Lock() // server.go: stored and learned with no rebuild between
	answered, err := s.store.Answer(id, rec)
	if err != nil {
		s.learn.Unlock()
		return err
	}
	if attributed(by) {
		s.model.Observe(act.User, ls, choice == limenv1.Choice_CHOICE_APPROVE, now)
	}
	if choice == limenv1.Choice_CHOICE_APPROVE {
		// Not s.written.approved: what an agent wrote stays asked about
		// until a person approves running it in limen.
		s.approvedIn.ApproveAny(act.User, grantScope(act.Agent, act.Session, act.Cwd), parts)
	}
	s.learn.Unlock()
	s.asks.resolve(id, finalOf(answered.GetOutcome()))
	return nil
}

// inferredChannel is the channel of an answer limen inferred from a
// runtime's events (docs/integrations.md).
const inferredChannel = "runtime dialog"

// inferable returns the parts an approval inferred from a runtime's events
// may teach: those learning could allow on generalised answers. Any
// process the agent starts can post those events as the runtime's hook
// does (the eleventh red-team pass did, from a module an approved script
// imported), so such an approval is weak evidence: it never vouches for
// what needs this person's own exact approval (a command limen cannot
// read, a secret read, a package install, a risk mark such as rm -rf, one
// of limen's own controls), and never clears what an agent wrote.
func inferable(parts []action.Part) []action.Part {
	var out []action.Part
	for _, p := range parts {
		if p.Opaque || p.Control != "" || action.ReadsSecret(p) || action.InstallsPackage(p) || action.MarkLevel(p.Keys) > 0 {
			continue
		}
		out = append(out, p)
	}
	return out
}

// holdExpiry keeps an ask from expiring while the runtime's dialog shows
// it: that dialog never times out, and the ask closes on the runtime's
// events instead (the person's answer, the session moving on or ending).
// It holds only while the runtime that opened the ask is alive; it
// re-arms the expiry and reports true when it holds.
func (s *Server) holdExpiry(id uint64) bool {
	askID := store.FormatID(id)
	o := s.outcomes()
	o.mu.Lock()
	showing := o.tracker.Showing(askID)
	proc := o.procs[askID]
	o.mu.Unlock()
	if !showing {
		return false
	}
	if proc != (procKey{}) {
		if p, err := s.guard.runtimes.read(proc.pid); err != nil || p.Start != proc.start {
			o.mu.Lock()
			o.tracker.Close(askID)
			delete(o.procs, askID)
			o.mu.Unlock()
			return false // the runtime is gone: nobody is looking at the dialog
		}
	}
	wait := 10 * time.Minute
	if ps := s.policy.Load(); ps.pol != nil {
		wait = ps.pol.AskTimeout
	}
	s.asks.rearm(id, wait, s.expire)
	return true
}

// rearm sets a pending ask's expiry d from now.
func (a *asks) rearm(id uint64, d time.Duration, expire func(uint64)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if k := a.byID[id]; k != nil {
		k.timer = time.AfterFunc(max(d, time.Second), func() { expire(id) })
	}
}

// maxSettings bounds the settings file read for "don't ask again".
const maxSettings = 1 << 20

// allowRules reads permissions.allow of the project's
// .claude/settings.local.json, where Claude Code's dialog saves "don't ask
// again"; nil when it cannot be read (a missing file is an empty list).
func allowRules(cwd string) []string {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil
	}
	// O_NONBLOCK: cwd comes from the event, and a FIFO there must not
	// hold limend up; only a regular file is read.
	f, err := os.OpenFile(filepath.Join(cwd, ".claude", "settings.local.json"), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return []string{}
	}
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSettings))
	if err != nil {
		return nil
	}
	var doc struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return nil
	}
	if doc.Permissions.Allow == nil {
		return []string{}
	}
	return doc.Permissions.Allow
}
