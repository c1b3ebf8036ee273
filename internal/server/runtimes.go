package server

import (
	"container/list"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"sync"
	"time"

	"github.com/limenhq/limen/internal/peercred"
)

// The runtime registry is limend's second line against an agent answering
// its own asks (the first is the policy's recognition of limen's own
// controls). Every Decide over the Unix socket comes from a process an agent
// runtime started: limen-hook (Claude Code, Codex and Gemini CLI start one
// per tool call) or mcp-gate (started once per MCP server). limend records
// that process and the runtime above it (see note), by pid and start time;
// Answer and SetPolicy then refuse a caller that has any recorded process
// among its ancestors, or that is in a session known to be a live
// runtime's. A person's TUI, started in their own terminal, is neither, so
// it is let through. docs/SECURITY.md says what this does not stop.

// DefaultMaxRuntimes bounds the registry. Entries are small (tens of bytes);
// the bound keeps a caller that spawns processes without end from growing
// limend's memory, and is far above the processes one person's agents keep
// alive, so that evicting a live runtime takes more live processes than a
// user is normally allowed to run.
const DefaultMaxRuntimes = 1 << 16

// maxWalk bounds a walk up the parent links. Real chains are a few dozen
// deep at most; the bound only stops a loop in a broken /proc.
const maxWalk = 4096

// interactiveShells are the shells a person types into. A session leader
// with a terminal running one of these is the person's own shell: a hook
// run by hand there is the person testing it, not an agent runtime, so the
// walk stops below it.
var interactiveShells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true,
	"ksh": true, "mksh": true, "tcsh": true, "csh": true, "yash": true,
	"nu": true, "elvish": true, "xonsh": true, "pwsh": true, "busybox": true,
}

// passThrough are programs that sit between an agent runtime and the hook
// it starts without being the runtime: the shell of `sh -c "limen-hook"`,
// and wrappers a hook command may be given. The walk goes on past them to
// the runtime.
var passThrough = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true,
	"ksh": true, "mksh": true, "yash": true, "busybox": true,
	"env": true, "timeout": true, "nice": true, "ionice": true, "nohup": true,
	"stdbuf": true, "time": true, "chrt": true, "taskset": true, "flock": true,
}

// neverRuntimes are programs that are never an agent runtime but become a
// parent of orphans (init, a user's service manager, a container's init):
// recording one would lock every person's process out of answering.
var neverRuntimes = map[string]bool{
	"systemd": true, "init": true, "launchd": true, "tini": true,
	"dumb-init": true, "docker-init": true, "catatonit": true,
	"s6-svscan": true, "runit": true, "sshd": true, "login": true,
	"tmux: server": true, "tmux": true, "screen": true, "SCREEN": true,
}

type procKey struct {
	pid   int
	start uint64
}

func keyOf(p peercred.Proc) procKey { return procKey{p.PID, p.Start} }

// runtimeEntry is one recorded process.
type runtimeEntry struct {
	key  procKey
	comm string
	sid  int // its session
	// up is the next recorded process above this one (zero at the top of
	// what was recorded): seeing a process again refreshes its ancestors,
	// so that a long-lived gate keeps its runtime in the registry.
	up   procKey
	seen time.Time // when first recorded
	elem *list.Element
}

func (e *runtimeEntry) String() string {
	return fmt.Sprintf("process %d (%s), which limen saw run an agent's hook at %s", e.key.pid, e.comm, e.seen.Format("15:04:05"))
}

// runtimes is the registry: a bounded LRU of processes that agent runtimes
// run under, safe for concurrent use.
type runtimes struct {
	read func(pid int) (peercred.Proc, error)
	now  func() time.Time
	log  *slog.Logger
	max  int
	// off says why ancestry cannot be followed on this system (nil on
	// Linux): then nothing is recorded and nothing is refused for it.
	off error

	mu    sync.Mutex
	byKey map[procKey]*runtimeEntry
	lru   *list.List       // of *runtimeEntry, most recently seen first
	self  map[procKey]bool // limend and its ancestors
	// sessions maps a session that a recorded runtime runs in, up to its
	// leader, to that runtime.
	sessions map[int]procKey
	// walked are callers already walked that recorded nothing themselves
	// (limend's own process in tests and benchmarks, a trusted gateway):
	// their next Decide reads no /proc. Cleared when full and on eviction,
	// so that an evicted chain is walked, and recorded, again.
	walked map[procKey]struct{}
	warned bool // the log has said that a runtime started limend
}

// newRuntimes returns an empty registry that reads processes with read.
// self is limend's pid (0: none, in tests of fake process tables).
func newRuntimes(read func(int) (peercred.Proc, error), now func() time.Time, log *slog.Logger, max, self int) *runtimes {
	if max <= 0 {
		max = DefaultMaxRuntimes
	}
	r := &runtimes{read: read, now: now, log: log, max: max,
		byKey: map[procKey]*runtimeEntry{}, lru: list.New(), self: map[procKey]bool{}, walked: map[procKey]struct{}{}, sessions: map[int]procKey{}}
	if _, err := read(os.Getpid()); errors.Is(err, peercred.ErrNoAncestry) {
		r.off = err
		log.Warn("limend cannot follow process ancestry on this system, so it cannot refuse answers and policy changes from an agent runtime's processes; only the policy's rules guard limen's own controls", "err", err)
		return r
	}
	// limend and whatever started it (a service manager, the person's
	// terminal) are never runtimes: see note.
	for pid := self; pid > 0 && len(r.self) < maxWalk; {
		p, err := read(pid)
		if err != nil {
			break
		}
		r.self[keyOf(p)] = true
		pid = p.PPID
	}
	return r
}

// note records the agent runtime that the caller (pid, started at start; 0
// when unknown) runs under. The caller is limen-hook or mcp-gate, started
// by the runtime, or a runtime that links the Go client; it cannot be told
// which, so note records:
//
//   - the caller itself (unless notSelf: a trusted gateway, a service that
//     decides and answers for others by design);
//   - up from it, each process in passThrough (the `sh -c` a runtime
//     starts its hook through, timeout, env …);
//   - and the first process above those: the runtime.
//
// It records no more than that, because above the runtime is the person's
// world: their terminal, or the editor a runtime runs inside (an editor's
// integrated terminal is a child of the editor, not of its extension
// host). It records nothing from where it meets pid 1, a program in
// neverRuntimes, the person's own shell (a session leader on a terminal
// running an interactive shell, where a hook run by hand sits), or limend
// or one of its ancestors (a runtime that started limend cannot be told
// from the person; the log says so, once).
//
// When the runtime leads its own session, or was started from the person's
// shell that leads the session it is in, that session is the runtime's too
// (see add).
func (r *runtimes) note(pid int32, start uint64, known peercred.Proc, notSelf bool) {
	if r.off != nil || pid <= 1 {
		return
	}
	caller := procKey{int(pid), start}
	if start != 0 && r.seen(caller, notSelf) {
		return
	}
	var found []peercred.Proc
	session := 0 // the session that is the runtime's, if it is known
	// stop reports whether p ends the walk before it is recorded.
	stop := func(p peercred.Proc) bool {
		switch {
		case p.PID <= 1 || neverRuntimes[p.Comm]:
			return true
		case personsShell(p):
			session = p.PID
			return true
		case r.isSelf(keyOf(p)):
			if p.PID != os.Getpid() {
				r.warnSelf(p)
			}
			return true
		}
		return false
	}
	// The caller as it connected, or as it is now.
	p := known
	if p.PID != int(pid) || p.Start != start || start == 0 {
		var err error
		if p, err = r.read(int(pid)); err != nil || (start != 0 && p.Start != start) {
			return // gone, or its pid already reused
		}
	}
	if stop(p) {
		r.rememberWalked(caller, start)
		return
	}
	if !notSelf {
		found = append(found, p)
	}
	leadsTerminal := func(p peercred.Proc) bool { return p.SID == p.PID && p.TTY != 0 }
	if p.SID == p.PID {
		session = p.PID
	}
	// A caller leading a terminal's session is a runtime run directly in
	// a terminal or tmux window: above it is the person's terminal.
	var above peercred.Proc // the last process read above the chain
	for climb := !(leadsTerminal(p) && !notSelf); climb && p.PPID > 1; {
		q, err := r.read(p.PPID)
		if err == nil {
			above = q
		}
		if err != nil || q.Start > p.Start || stop(q) {
			break // gone, or its pid reused by a later process
		}
		if r.touch(keyOf(q)) {
			// The process above is recorded already (the runtime, for
			// its next hook): what is above it, and its session, are
			// known. This saves a hook call a /proc read or two.
			r.addUnder(found, 0, keyOf(q))
			if len(found) == 0 {
				r.rememberWalked(caller, start)
			}
			return
		}
		found = append(found, q)
		if q.SID == q.PID {
			session = q.PID
		}
		// Past the wrappers, the first process is the runtime; a
		// wrapper that leads a terminal's session ends the walk too.
		climb = passThrough[q.Comm] && !leadsTerminal(q)
		p = q
	}
	if n := len(found); n > 0 && session == 0 {
		// The runtime started from the person's shell, in the shell's
		// session: the session is the runtime's while it runs.
		top := found[n-1]
		q, err := above, error(nil)
		if q.PID != top.PPID {
			q, err = r.read(top.PPID)
		}
		if err == nil && personsShell(q) && q.PID == top.SID {
			session = q.PID
		}
	}
	r.add(found, session)
	if len(found) == 0 || notSelf {
		r.rememberWalked(caller, start)
	}
}

// personsShell reports whether p is the person's own shell: an interactive
// shell leading a terminal's session.
func personsShell(p peercred.Proc) bool {
	return p.SID == p.PID && p.TTY != 0 && interactiveShells[p.Comm]
}

// rememberWalked notes a caller whose walk recorded nothing of itself, so
// that its next Decide reads no /proc.
func (r *runtimes) rememberWalked(caller procKey, start uint64) {
	if start == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.walked) >= r.max {
		clear(r.walked)
	}
	r.walked[caller] = struct{}{}
}

// seenReady is seen for a caller whose connection's /proc read is done: a
// long-lived client (mcp-gate, the TUI, a gateway) walked before needs no
// walk, nor the goroutine Decide starts for one. False when the read is
// still under way or the caller is new.
func (r *runtimes) seenReady(peer peercred.AuthInfo, notSelf bool) bool {
	p, ok := peer.Ready()
	if !ok || r.off != nil || p.PID <= 1 || p.Start == 0 {
		return false
	}
	return r.seen(procKey{int(p.PID), p.Start}, notSelf)
}

// seen reports whether the caller was walked before; a recorded caller and
// what it runs under are marked as just seen.
func (r *runtimes) seen(caller procKey, notSelf bool) bool {
	if !notSelf && r.touch(caller) {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.walked[caller]
	return ok
}

func (r *runtimes) isSelf(k procKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.self[k]
}

func (r *runtimes) warnSelf(p peercred.Proc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.warned {
		return
	}
	r.warned = true
	r.log.Warn("an agent's hook runs under a process that also started limend, so limend cannot tell that process's other children from the person: start limend outside the agent (its own terminal, or a systemd user service)",
		"pid", p.PID, "program", p.Comm)
}

// touch marks a recorded process and the recorded ones above it as just
// seen; it reports whether k was recorded.
func (r *runtimes) touch(k procKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.byKey[k]
	if e == nil {
		return false
	}
	var chain []*runtimeEntry
	for ; e != nil && len(chain) < maxWalk; e = r.byKey[e.up] {
		chain = append(chain, e)
	}
	for i := len(chain) - 1; i >= 0; i-- { // the caller ends up first, as add leaves it
		r.lru.MoveToFront(chain[i].elem)
	}
	return true
}

// add records found (the caller first, its ancestors after), the top one
// first so that it is the least recently seen of them. When the walk
// reached the leader of the session the top one is in (session), that
// session is the runtime's: a process that leaves the runtime's tree but
// stays in its session (`cmd &` in a subshell, nohup, disown) is still
// found by runtimeOf while the runtime lives.
func (r *runtimes) add(found []peercred.Proc, session int) { r.addUnder(found, session, procKey{}) }

// addUnder is add for a chain whose top runs under above, a process
// already recorded (procKey{} for none): the top links up to it, and a top
// already recorded keeps the link it has.
func (r *runtimes) addUnder(found []peercred.Proc, session int, above procKey) {
	if len(found) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if top := found[len(found)-1]; session > 1 && top.SID == session {
		r.sessions[session] = keyOf(top)
	}
	now := r.now()
	for i := len(found) - 1; i >= 0; i-- {
		p := found[i]
		up := above
		if i+1 < len(found) {
			up = keyOf(found[i+1])
		}
		if e := r.byKey[keyOf(p)]; e != nil {
			if up != (procKey{}) {
				e.up = up
			}
			r.lru.MoveToFront(e.elem)
			continue
		}
		e := &runtimeEntry{key: keyOf(p), comm: p.Comm, sid: p.SID, up: up, seen: now}
		e.elem = r.lru.PushFront(e)
		r.byKey[e.key] = e
	}
	if r.lru.Len() > r.max {
		r.evictLocked()
	}
}

// evictLocked makes room: first it forgets processes that have exited
// (their pid and start time can never match again), and if that frees
// less than an eighth of the registry, the least recently seen ones, so
// that the next scan is at least max/8 additions away.
func (r *runtimes) evictLocked() {
	for el := r.lru.Front(); el != nil; {
		next := el.Next()
		e := el.Value.(*runtimeEntry)
		if p, err := r.read(e.key.pid); err != nil || p.Start != e.key.start {
			r.removeLocked(e)
		}
		el = next
	}
	for r.lru.Len() > r.max-r.max/8 {
		r.removeLocked(r.lru.Back().Value.(*runtimeEntry))
	}
	clear(r.walked)
}

func (r *runtimes) removeLocked(e *runtimeEntry) {
	r.lru.Remove(e.elem)
	delete(r.byKey, e.key)
	if r.sessions[e.sid] == e.key {
		delete(r.sessions, e.sid)
	}
}

func (r *runtimes) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lru.Len()
}

// errAncestry is a caller whose ancestry limend could not follow: the
// check fails closed.
type errAncestry struct{ why string }

func (e errAncestry) Error() string { return e.why }

// runtimeOf walks from the caller (pid, started at start; 0 when unknown)
// up to init and returns the first recorded process on the way, or else
// the live runtime whose session the caller is in (sameSession), or nil
// when there is neither. An error means the ancestry could not be
// followed, which the callers treat as a refusal.
func (r *runtimes) runtimeOf(pid int32, start uint64) (e *runtimeEntry, sameSession bool, err error) {
	e, sameSession, _, err = r.runtimeSince(pid, start)
	return e, sameSession, err
}

// runtimeSince is runtimeOf, and also when the oldest process between the
// caller and the runtime started (those it walked, and the recorded ones
// below the runtime; 0 when ancestry is not followed): a hook the runtime
// started for an event is younger than the ask it reports on, a tool of
// the agent's that is still running may not be.
func (r *runtimes) runtimeSince(pid int32, start uint64) (e *runtimeEntry, sameSession bool, since uint64, err error) {
	if r.off != nil {
		return nil, false, 0, nil
	}
	if pid <= 0 {
		return nil, false, 0, errAncestry{"limend cannot see which process is calling (it may run in another pid namespace), so it cannot tell whether an agent started it"}
	}
	caller, err := r.read(int(pid))
	if err != nil {
		return nil, false, 0, errAncestry{fmt.Sprintf("limend cannot read the calling process %d (%v), so it cannot tell whether an agent started it", pid, err)}
	}
	if start != 0 && caller.Start != start {
		return nil, false, 0, errAncestry{fmt.Sprintf("the process that opened this connection (pid %d) has exited and its pid now names another process; call again from a process that stays until the answer is in", pid)}
	}
	p := caller
	since = caller.Start
	for i := 0; ; i++ {
		if e := r.lookup(keyOf(p)); e != nil {
			if i > 0 {
				// Met a recorded process above the caller: what is
				// below its runtime counts too.
				since = min(since, r.startBelowTop(e.key))
			}
			return e, false, since, nil
		}
		since = min(since, p.Start)
		if p.PPID <= 0 {
			break
		}
		if i == maxWalk {
			return nil, false, 0, errAncestry{"the caller's ancestry is deeper than limend follows"}
		}
		child, parent := p, p.PPID
		if p, err = r.read(parent); err != nil {
			return nil, false, 0, errAncestry{fmt.Sprintf("limend could not follow the caller's ancestry (process %d: %v); try again", parent, err)}
		}
		if p.Start > child.Start {
			// A parent starts before its child: this pid was reused
			// after the real parent exited, during the walk.
			return nil, false, 0, errAncestry{fmt.Sprintf("the caller's ancestry changed while limend followed it (process %d exited); try again", parent)}
		}
	}
	return r.sessionRuntime(caller.SID), true, since, nil
}

// detached returns the process that detached the caller's chain from any
// terminal, or nil: walking up from the caller, no process has a
// terminal, up to the one below pid 1 or a service manager (setsid -f,
// a daemon's double fork, a cron job, a service). A
// person answers from a terminal, or from limend's own process (the web
// app, the tests); an agent's code that escaped its runtime's tree this
// way is what the twelfth red-team pass answered with (git's fsmonitor
// ran `setsid -f sh p.sh`, which ran `limenctl answer`). A chain that
// reaches a terminal, limend, or a process that cannot be read is not
// detached: the last fails elsewhere, the others are the person's.
func (r *runtimes) detached(pid int32, start uint64) *peercred.Proc {
	if r.off != nil || pid <= 1 {
		return nil
	}
	p, err := r.read(int(pid))
	if err != nil || start != 0 && p.Start != start {
		return nil
	}
	for i := 0; i < maxWalk; i++ {
		if p.TTY != 0 || r.isSelf(keyOf(p)) {
			return nil
		}
		if p.PPID <= 1 || serviceManagers[r.comm(p.PPID)] {
			return &p // reparented, or a service: no terminal anywhere above
		}
		q, err := r.read(p.PPID)
		if err != nil || q.Start > p.Start {
			return nil
		}
		p = q
	}
	return nil
}

// serviceManagers are the parents a detached process is reparented to
// besides pid 1: the user's service manager, a subreaper.
var serviceManagers = map[string]bool{"systemd": true, "launchd": true, "init": true}

// comm is the program name of pid, or "" when it cannot be read.
func (r *runtimes) comm(pid int) string {
	q, err := r.read(pid)
	if err != nil {
		return ""
	}
	return q.Comm
}

// startBelowTop returns the earliest start of the recorded processes from
// k up to, not including, the runtime at the top of its chain. A process
// the agent started is recorded too once it calls Decide itself (the
// eleventh red-team pass sent one PreToolUse from a script for that),
// and its children must not pass for the fresh hooks of a dialog opened
// after it started: they descend from a process older than that dialog.
func (r *runtimes) startBelowTop(k procKey) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	since := uint64(math.MaxUint64)
	for i := 0; i < maxWalk; i++ {
		e := r.byKey[k]
		if e == nil || e.up == (procKey{}) {
			break
		}
		since = min(since, k.start)
		k = e.up
	}
	return since
}

// sessionRuntime returns the recorded runtime that runs in session sid, if
// it is still alive; a session whose runtime has exited is the person's
// again.
func (r *runtimes) sessionRuntime(sid int) *runtimeEntry {
	if sid <= 1 {
		return nil
	}
	r.mu.Lock()
	k, ok := r.sessions[sid]
	e := r.byKey[k]
	r.mu.Unlock()
	if !ok || e == nil {
		return nil
	}
	if p, err := r.read(k.pid); err != nil || p.Start != k.start {
		r.mu.Lock()
		if r.sessions[sid] == k {
			delete(r.sessions, sid)
		}
		r.mu.Unlock()
		return nil
	}
	return e
}

// runtimeAbove returns a recorded runtime that process k (a recorded
// runtime itself) runs under: one of its ancestors, or the live runtime of
// a session it shares without leading it. nil when k runs under no other
// runtime, as a runtime the person started does.
func (r *runtimes) runtimeAbove(k procKey) *runtimeEntry {
	p, err := r.read(k.pid)
	if err != nil || p.Start != k.start {
		return nil // gone: its events settle nothing anyway
	}
	if e := r.sessionRuntime(p.SID); e != nil && e.key != k && p.SID != p.PID {
		return e
	}
	for i := 0; i < maxWalk && p.PPID > 1; i++ {
		q, err := r.read(p.PPID)
		if err != nil || q.Start > p.Start {
			return nil
		}
		if e := r.lookup(keyOf(q)); e != nil {
			return e
		}
		if r.isSelf(keyOf(q)) {
			return nil // limend and what started it are never runtimes
		}
		p = q
	}
	return nil
}

func (r *runtimes) lookup(k procKey) *runtimeEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byKey[k]
}
