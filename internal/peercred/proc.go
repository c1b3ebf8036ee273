package peercred

import "errors"

// Proc is what limend reads of a process to follow its parentage: enough to
// walk up to init and to tell a process from a later one that reused its
// pid.
type Proc struct {
	PID  int
	PPID int
	// Start is when the process started, in clock ticks since boot. A pid
	// is reused only by a process that starts later, so pid and Start
	// together name one process for the life of the machine's boot.
	Start uint64
	// Comm is the program name the kernel keeps (at most 15 bytes).
	Comm string
	// SID is the process's session; a session leader has SID == PID.
	SID int
	// TTY is the controlling terminal's device number, 0 when it has none.
	TTY int
}

// ErrNoAncestry is returned by ReadProc on systems where limend cannot read
// another process's parent and start time.
var ErrNoAncestry = errors.New("process ancestry is not readable on this system")

// ReadProc reads one process's parentage from the kernel. On Linux that is
// /proc/<pid>/stat; elsewhere it returns ErrNoAncestry.
func ReadProc(pid int) (Proc, error) { return readProc(pid) }
