package server

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/peercred"
)

// procTable is a fake /proc: pid → process. Processes can exit and their
// pids be reused by a later one.
type procTable struct {
	mu    sync.Mutex
	procs map[int]peercred.Proc
	reads int
}

func (pt *procTable) read(pid int) (peercred.Proc, error) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	pt.reads++
	p, ok := pt.procs[pid]
	if !ok {
		return peercred.Proc{}, fmt.Errorf("open /proc/%d/stat: %w", pid, fs.ErrNotExist)
	}
	return p, nil
}

func (pt *procTable) set(ps ...peercred.Proc) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	for _, p := range ps {
		pt.procs[p.PID] = p
	}
}

func (pt *procTable) kill(pid int) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	delete(pt.procs, pid)
}

const tty = 34816 // /dev/pts/0

// person's machine: systemd (1) → systemd --user (500) → a terminal (600)
// with two tabs, each a person's shell (session leaders on a tty, 700 and
// 800). In tab 1 the person runs claude (node, 701), which starts its hooks
// through sh -c (702 → limen-hook 703) and runs the agent's commands in
// bash (710 → limenctl 711). In tab 2 the person runs limenctl tui (801).
func machine() *procTable {
	pt := &procTable{procs: map[int]peercred.Proc{}}
	pt.set(
		peercred.Proc{PID: 1, PPID: 0, Start: 1, Comm: "systemd", SID: 1},
		peercred.Proc{PID: 500, PPID: 1, Start: 50, Comm: "systemd", SID: 500},
		peercred.Proc{PID: 600, PPID: 500, Start: 60, Comm: "gnome-terminal-", SID: 600},
		peercred.Proc{PID: 700, PPID: 600, Start: 70, Comm: "bash", SID: 700, TTY: tty},
		peercred.Proc{PID: 701, PPID: 700, Start: 71, Comm: "node", SID: 700, TTY: tty},
		peercred.Proc{PID: 702, PPID: 701, Start: 72, Comm: "sh", SID: 700, TTY: tty},
		peercred.Proc{PID: 703, PPID: 702, Start: 73, Comm: "limen-hook", SID: 700, TTY: tty},
		peercred.Proc{PID: 710, PPID: 701, Start: 74, Comm: "bash", SID: 700, TTY: tty},
		peercred.Proc{PID: 711, PPID: 710, Start: 75, Comm: "limenctl", SID: 700, TTY: tty},
		peercred.Proc{PID: 800, PPID: 600, Start: 80, Comm: "bash", SID: 800, TTY: tty + 1},
		peercred.Proc{PID: 801, PPID: 800, Start: 81, Comm: "limenctl", SID: 800, TTY: tty + 1},
	)
	return pt
}

func newTestRuntimes(pt *procTable, max int) *runtimes {
	return newRuntimes(pt.read, time.Now, slog.New(slog.DiscardHandler), max, 0)
}

// recorded lists the recorded pids, most recently seen first.
func recorded(r *runtimes) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for el := r.lru.Front(); el != nil; el = el.Next() {
		out = append(out, el.Value.(*runtimeEntry).key.pid)
	}
	return out
}

func under(t *testing.T, r *runtimes, pt *procTable, pid int) *runtimeEntry {
	t.Helper()
	p, err := pt.read(pid)
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := r.runtimeOf(int32(pid), p.Start)
	if err != nil {
		t.Fatalf("runtimeOf(%d): %v", pid, err)
	}
	return e
}

func TestRuntimeOfAgentAndPerson(t *testing.T) {
	pt := machine()
	r := newTestRuntimes(pt, 0)
	if e := under(t, r, pt, 711); e != nil {
		t.Fatalf("before any hook ran, the agent's limenctl runs under %v; want nothing recorded", e)
	}
	r.note(703, 73, peercred.Proc{}, false) // the hook's Decide
	if got := fmt.Sprint(recorded(r)); got != "[703 702 701]" {
		t.Fatalf("recorded %s; want the hook, its sh and node, and not the person's shell or anything above it", got)
	}
	e := under(t, r, pt, 711)
	if e == nil || e.key.pid != 701 {
		t.Fatalf("the agent's limenctl runs under %v; want node (701)", e)
	}
	if !strings.Contains(e.String(), "process 701 (node)") {
		t.Errorf("the refusal names %q; want the runtime's pid and program", e.String())
	}
	if e := under(t, r, pt, 801); e != nil {
		t.Fatalf("the person's TUI in another tab runs under %v; want nothing", e)
	}
	// The person quits claude and runs the TUI in the same tab.
	pt.kill(701)
	pt.set(peercred.Proc{PID: 720, PPID: 700, Start: 90, Comm: "limenctl", SID: 700, TTY: tty})
	if e := under(t, r, pt, 720); e != nil {
		t.Fatalf("the TUI in the tab where claude ran runs under %v; want nothing (the shell is the person's)", e)
	}
}

// TestRuntimeSession: a process that left the runtime's tree but stayed in
// its session (`(limenctl answer … &)`, nohup, disown) is found while the
// runtime lives; one that also left the session (setsid) is not: the
// documented gap.
func TestRuntimeSession(t *testing.T) {
	pt := machine()
	pt.set(
		peercred.Proc{PID: 750, PPID: 1, Start: 750, Comm: "limenctl", SID: 700, TTY: tty}, // orphan in claude's session
		peercred.Proc{PID: 751, PPID: 1, Start: 751, Comm: "limenctl", SID: 751},           // setsid -f
		// A runtime detached from any terminal (a service, CI): its own
		// session leader, under the user's service manager.
		peercred.Proc{PID: 980, PPID: 500, Start: 980, Comm: "codex", SID: 980},
		peercred.Proc{PID: 981, PPID: 980, Start: 981, Comm: "limen-hook", SID: 980},
		peercred.Proc{PID: 982, PPID: 1, Start: 982, Comm: "python3", SID: 980}, // its orphan
		// A Go-client runtime run from the person's shell in tab 2, and an
		// orphan of it.
		peercred.Proc{PID: 1020, PPID: 800, Start: 1020, Comm: "go-agent", SID: 800, TTY: tty + 1},
		peercred.Proc{PID: 1021, PPID: 1, Start: 1021, Comm: "sh", SID: 800, TTY: tty + 1},
		// A runtime in an editor shares the desktop's session: that
		// session must not become the runtime's.
		peercred.Proc{PID: 1000, PPID: 500, Start: 1000, Comm: "code", SID: 990},
		peercred.Proc{PID: 1002, PPID: 1000, Start: 1002, Comm: "claude", SID: 990},
		peercred.Proc{PID: 1004, PPID: 1002, Start: 1004, Comm: "limen-hook", SID: 990},
		peercred.Proc{PID: 1005, PPID: 1000, Start: 1005, Comm: "limenctl", SID: 990}, // a person's tool the editor runs
	)
	r := newTestRuntimes(pt, 0)
	r.note(703, 73, peercred.Proc{}, false)
	r.note(981, 981, peercred.Proc{}, false)
	r.note(1020, 1020, peercred.Proc{}, false)
	r.note(1004, 1004, peercred.Proc{}, false)
	for _, tt := range []struct {
		pid  int
		want int // the runtime found, 0 for none
	}{
		{750, 701}, {751, 0}, {982, 980}, {1021, 1020}, {1005, 0},
	} {
		p, _ := pt.read(tt.pid)
		e, same, err := r.runtimeOf(int32(tt.pid), p.Start)
		got := 0
		if e != nil {
			got = e.key.pid
		}
		if err != nil || got != tt.want || (e != nil && !same) {
			t.Errorf("runtimeOf(%d) = %v (same session %v), %v; want runtime %d by its session", tt.pid, e, same, err, tt.want)
		}
	}
	// Once claude exits, its session is the person's shell's again.
	pt.kill(701)
	if e, _, err := r.runtimeOf(750, 750); e != nil || err != nil {
		t.Errorf("after the runtime exited, runtimeOf(750) = %v, %v; want nothing", e, err)
	}
}

// TestRuntimePidReuse: a recorded runtime's pid taken by a later process
// (another start time) is not the runtime.
func TestRuntimePidReuse(t *testing.T) {
	pt := machine()
	r := newTestRuntimes(pt, 0)
	r.note(703, 73, peercred.Proc{}, false)
	pt.kill(711)
	pt.kill(710)
	pt.kill(701)
	pt.set(peercred.Proc{PID: 701, PPID: 800, Start: 999, Comm: "limenctl", SID: 800, TTY: tty + 1})
	if e := under(t, r, pt, 701); e != nil {
		t.Fatalf("a new process on the runtime's old pid runs under %v; want nothing", e)
	}
	// The hook's connection says who connected: if that process is gone and
	// its pid reused, the check refuses instead of reading the new one.
	if _, _, err := r.runtimeOf(701, 71); err == nil || !strings.Contains(err.Error(), "has exited") {
		t.Fatalf("runtimeOf a caller whose pid was reused = %v; want an error saying it exited", err)
	}
	// note of a caller whose pid was reused records nothing.
	r2 := newTestRuntimes(pt, 0)
	r2.note(701, 71, peercred.Proc{}, false)
	if got := recorded(r2); len(got) != 0 {
		t.Fatalf("note of a reused pid recorded %v; want nothing", got)
	}
}

// TestRuntimeWalkStops: what note records, case by case.
func TestRuntimeWalkStops(t *testing.T) {
	tests := []struct {
		name  string
		procs []peercred.Proc
		hook  int
		// notSelf: the caller is a trusted gateway
		notSelf bool
		want    string
	}{
		{
			name: "runtime exec'd in a tmux window: recorded, tmux not",
			procs: []peercred.Proc{
				{PID: 900, PPID: 1, Start: 900, Comm: "tmux: server", SID: 900},
				{PID: 901, PPID: 900, Start: 901, Comm: "codex", SID: 901, TTY: tty},
				{PID: 902, PPID: 901, Start: 902, Comm: "limen-hook", SID: 901, TTY: tty},
			},
			hook: 902, want: "[902 901]",
		},
		{
			name: "runtime as a session leader on a terminal: the terminal above it is not",
			procs: []peercred.Proc{
				{PID: 910, PPID: 600, Start: 910, Comm: "node", SID: 910, TTY: tty},
				{PID: 911, PPID: 910, Start: 911, Comm: "limen-hook", SID: 910, TTY: tty},
			},
			hook: 911, want: "[911 910]",
		},
		{
			name: "hook started detached (setsid, no terminal): the walk goes on to the runtime",
			procs: []peercred.Proc{
				{PID: 920, PPID: 700, Start: 920, Comm: "node", SID: 700, TTY: tty},
				{PID: 921, PPID: 920, Start: 921, Comm: "sh", SID: 921},
				{PID: 922, PPID: 921, Start: 922, Comm: "limen-hook", SID: 921},
			},
			hook: 922, want: "[922 921 920]",
		},
		{
			name: "hook run by hand in the person's shell: only the hook",
			procs: []peercred.Proc{
				{PID: 930, PPID: 800, Start: 930, Comm: "limen-hook", SID: 800, TTY: tty + 1},
			},
			hook: 930, want: "[930]",
		},
		{
			name: "orphan reparented to the user's service manager: never recorded",
			procs: []peercred.Proc{
				{PID: 940, PPID: 500, Start: 940, Comm: "limen-hook", SID: 940},
			},
			hook: 940, want: "[940]",
		},
		{
			name: "orphan reparented to init",
			procs: []peercred.Proc{
				{PID: 950, PPID: 1, Start: 950, Comm: "limen-hook", SID: 950},
			},
			hook: 950, want: "[950]",
		},
		{
			name: "a trusted gateway's own process is not recorded, what started it is",
			procs: []peercred.Proc{
				{PID: 970, PPID: 701, Start: 970, Comm: "slack-gateway", SID: 700, TTY: tty},
			},
			hook: 970, notSelf: true, want: "[701]",
		},
		{
			// The editor's integrated terminal is a child of the editor, so
			// recording above the runtime would lock the person out of it.
			name: "runtime inside an editor: the runtime, not the editor",
			procs: []peercred.Proc{
				{PID: 1000, PPID: 500, Start: 1000, Comm: "code", SID: 990},
				{PID: 1001, PPID: 1000, Start: 1001, Comm: "code", SID: 990}, // extension host
				{PID: 1002, PPID: 1001, Start: 1002, Comm: "claude", SID: 990},
				{PID: 1003, PPID: 1002, Start: 1003, Comm: "sh", SID: 990},
				{PID: 1004, PPID: 1003, Start: 1004, Comm: "limen-hook", SID: 990},
			},
			hook: 1004, want: "[1004 1003 1002]",
		},
		{
			name: "hook under a timeout wrapper: on to the runtime",
			procs: []peercred.Proc{
				{PID: 1010, PPID: 701, Start: 1010, Comm: "timeout", SID: 700, TTY: tty},
				{PID: 1011, PPID: 1010, Start: 1011, Comm: "limen-hook", SID: 700, TTY: tty},
			},
			hook: 1011, want: "[1011 1010 701]",
		},
		{
			name: "a runtime that links the Go client, run from the person's shell",
			procs: []peercred.Proc{
				{PID: 1020, PPID: 800, Start: 1020, Comm: "go-agent", SID: 800, TTY: tty + 1},
			},
			hook: 1020, want: "[1020]",
		},
		{
			name: "pid 1 itself",
			hook: 1, want: "[]",
		},
		{
			name: "a parent that is gone: what was read is recorded",
			procs: []peercred.Proc{
				{PID: 960, PPID: 4242, Start: 960, Comm: "limen-hook", SID: 960},
			},
			hook: 960, want: "[960]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pt := machine()
			pt.set(tt.procs...)
			r := newTestRuntimes(pt, 0)
			p, _ := pt.read(tt.hook)
			r.note(int32(tt.hook), p.Start, peercred.Proc{}, tt.notSelf)
			if got := fmt.Sprint(recorded(r)); got != tt.want {
				t.Fatalf("recorded %s; want %s", got, tt.want)
			}
		})
	}
}

// TestRuntimeNotLimendsAncestors: limend and what started it are never
// recorded, so a hook that limend itself is above (the tests, or a runtime
// that started limend) does not lock the person out.
func TestRuntimeNotLimendsAncestors(t *testing.T) {
	real := func(pid int) (peercred.Proc, error) { return peercred.ReadProc(pid) }
	r := newRuntimes(real, time.Now, slog.New(slog.DiscardHandler), 0, os.Getpid())
	if r.off != nil {
		t.Skip(r.off)
	}
	self, err := peercred.ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	r.note(int32(os.Getpid()), self.Start, peercred.Proc{}, false)
	if got := recorded(r); len(got) != 0 {
		t.Fatalf("a Decide from limend's own process tree recorded %v; want nothing", got)
	}
	if _, ok := r.walked[procKey{os.Getpid(), self.Start}]; !ok {
		t.Error("limend's own process is walked again on its next Decide; want it remembered")
	}
	if e, _, err := r.runtimeOf(int32(os.Getpid()), self.Start); e != nil || err != nil {
		t.Fatalf("runtimeOf(limend) = %v, %v; want nothing", e, err)
	}
}

// TestRuntimeAncestryUnreadable: a caller whose ancestry cannot be followed
// is refused (fail closed), and a system without /proc turns the check off.
func TestRuntimeAncestryUnreadable(t *testing.T) {
	pt := machine()
	r := newTestRuntimes(pt, 0)
	r.note(703, 73, peercred.Proc{}, false)
	if _, _, err := r.runtimeOf(0, 0); err == nil {
		t.Error("runtimeOf(pid 0) = nil; want an error (the caller is in another pid namespace)")
	}
	if _, _, err := r.runtimeOf(4242, 0); err == nil {
		t.Error("runtimeOf(a pid that is gone) = nil; want an error")
	}
	pt.set(peercred.Proc{PID: 730, PPID: 4243, Start: 9, Comm: "limenctl"})
	if _, _, err := r.runtimeOf(730, 9); err == nil || !strings.Contains(err.Error(), "try again") {
		t.Errorf("runtimeOf(a caller whose parent vanished) = %v; want an error", err)
	}
	// The parent's pid already names a process that started after the
	// caller: the real parent exited during the walk.
	pt.set(peercred.Proc{PID: 4243, PPID: 1, Start: 4243, Comm: "bash"})
	if _, _, err := r.runtimeOf(730, 9); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("runtimeOf(a caller whose parent's pid was reused) = %v; want an error", err)
	}

	off := newRuntimes(func(int) (peercred.Proc, error) { return peercred.Proc{}, peercred.ErrNoAncestry },
		time.Now, slog.New(slog.DiscardHandler), 0, os.Getpid())
	off.note(703, 73, peercred.Proc{}, false)
	if e, _, err := off.runtimeOf(711, 75); e != nil || err != nil || off.len() != 0 {
		t.Errorf("without ancestry: recorded %d, runtimeOf = %v, %v; want nothing recorded and nothing refused", off.len(), e, err)
	}
	if !errors.Is(off.off, peercred.ErrNoAncestry) {
		t.Errorf("off = %v; want ErrNoAncestry", off.off)
	}
}

// TestRuntimeRegistryBounded: the registry never holds more than its
// bound; processes that exited go first, then the least recently seen, and
// a runtime that keeps running hooks stays in.
func TestRuntimeRegistryBounded(t *testing.T) {
	pt := machine()
	const max = 16
	r := newTestRuntimes(pt, max)
	r.note(703, 73, peercred.Proc{}, false) // node and its hook shell
	// A flood of short-lived callers, each a process of its own under init.
	for i := range 10 * max {
		pid := 2000 + i
		pt.set(peercred.Proc{PID: pid, PPID: 1, Start: uint64(pid), Comm: "python3", SID: 1})
		r.note(int32(pid), uint64(pid), peercred.Proc{}, false)
		if i%2 == 1 {
			pt.kill(pid - 1) // half of them exit
		}
		if i%4 == 0 { // the real runtime keeps running hooks
			hook := 3000 + i
			pt.set(peercred.Proc{PID: hook, PPID: 702, Start: uint64(hook), Comm: "limen-hook", SID: 700, TTY: tty})
			r.note(int32(hook), uint64(hook), peercred.Proc{}, false)
		}
		if n := r.len(); n > max {
			t.Fatalf("after %d callers the registry holds %d; want at most %d", i+1, n, max)
		}
	}
	if e := under(t, r, pt, 711); e == nil || e.key.pid != 701 && e.key.pid != 702 {
		t.Fatalf("after the flood the agent's limenctl runs under %v; want the runtime still recorded", e)
	}
	// A long-lived caller seen again refreshes what it runs under without
	// reading /proc again.
	pt.set(peercred.Proc{PID: 740, PPID: 701, Start: 99, Comm: "limenctl", SID: 700, TTY: tty})
	r.note(740, 99, peercred.Proc{}, false)
	before := pt.reads
	r.note(740, 99, peercred.Proc{}, false)
	if pt.reads != before {
		t.Errorf("a second Decide from the same process read /proc %d times; want none", pt.reads-before)
	}
	if got := recorded(r); got[0] != 740 || got[1] != 701 {
		t.Errorf("after a caller is seen again the most recent are %v; want it, then node", got[:2])
	}
}

// BenchmarkRuntimeNote is what a hook's Decide spends on the registry: a
// walk over real /proc from a caller never seen before (this process, with
// limend's ancestors not excluded so that the walk records), and the check
// an Answer makes.
func BenchmarkRuntimeNote(b *testing.B) {
	self, err := peercred.ReadProc(os.Getpid())
	if err != nil {
		b.Skip(err)
	}
	b.Run("note", func(b *testing.B) {
		for b.Loop() {
			r := newRuntimes(peercred.ReadProc, time.Now, slog.New(slog.DiscardHandler), 0, 0)
			r.note(int32(os.Getpid()), self.Start, self, false) // as a hook's connection gives it
		}
	})
	b.Run("runtimeOf", func(b *testing.B) {
		r := newRuntimes(peercred.ReadProc, time.Now, slog.New(slog.DiscardHandler), 0, 0)
		for b.Loop() {
			if _, _, err := r.runtimeOf(int32(os.Getpid()), self.Start); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRuntimeNoteFromConnect: the caller as it was when it connected is
// enough; limend does not read it again (one /proc read less per hook).
func TestRuntimeNoteFromConnect(t *testing.T) {
	pt := machine()
	hook, _ := pt.read(703)
	pt.kill(703)
	r := newTestRuntimes(pt, 0)
	r.note(703, 73, hook, false)
	if got := fmt.Sprint(recorded(r)); got != "[703 702 701]" {
		t.Fatalf("recorded %s from the caller as it connected; want [703 702 701]", got)
	}
	// A connect-time record of another process (a reused pid) is not used.
	r2 := newTestRuntimes(pt, 0)
	r2.note(703, 74, hook, false)
	if got := recorded(r2); len(got) != 0 {
		t.Fatalf("recorded %v from a stale connect-time record; want nothing", got)
	}
}

// TestNextHookStopsAtTheRecordedParent: the runtime's second hook, under
// a new shell, reads only that shell's parent before it finds the runtime
// recorded; the chain still leads an answer from the runtime's other
// children to the runtime.
func TestNextHookStopsAtTheRecordedParent(t *testing.T) {
	pt := machine()
	r := newTestRuntimes(pt, 0)
	hook, _ := pt.read(703)
	r.note(703, 73, hook, false)
	pt.kill(703)
	pt.kill(702)
	pt.set(peercred.Proc{PID: 720, PPID: 701, Start: 90, Comm: "sh", SID: 700, TTY: tty},
		peercred.Proc{PID: 721, PPID: 720, Start: 91, Comm: "limen-hook", SID: 700, TTY: tty})
	hook2, _ := pt.read(721)
	pt.mu.Lock()
	pt.reads = 0
	pt.mu.Unlock()
	r.note(721, 91, hook2, false)
	if pt.reads > 2 {
		t.Errorf("the second hook read /proc %d times; want at most 2 (its shell, then the recorded runtime)", pt.reads)
	}
	if e, _, err := r.runtimeOf(711, 75); err != nil || e == nil {
		t.Errorf("runtimeOf(limenctl under the runtime) = %v, %v; want the runtime", e, err)
	}
	if e, _, err := r.runtimeOf(721, 91); err != nil || e == nil {
		t.Errorf("runtimeOf(the second hook) = %v, %v; want it recorded", e, err)
	}
}
