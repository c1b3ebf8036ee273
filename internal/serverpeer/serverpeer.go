// Package serverpeer lets limen's clients check who serves the socket they
// connect to before they send or believe anything: any local user who can
// bind limen's socket path first (a world-writable directory, a socket
// left behind) could otherwise answer allow to everything. The kernel says
// which uid holds the listening end (SO_PEERCRED, LOCAL_PEERCRED on
// macOS). It is trusted when it is the client's own uid (a process of one's
// own user could change the hook's settings anyway) or the uid limend is
// configured to run as: $LIMEN_SERVER_UID, or limen-hook's --server-uid.
//
// It imports only os, strconv, syscall and internal/paths (and x/sys/unix
// on macOS), so limen-hook, which must start fast, uses it too; and it
// reads the environment only when the socket is not the caller's own
// (os.Getenv copies the whole environment on first use, which measurably
// slowed every hook call). Reading the uid is in a file per OS; elsewhere
// the check fails, and a client then fails closed.
package serverpeer

import (
	"os"
	"strconv"
	"strings"

	"github.com/limenhq/limen/internal/paths"
)

// EnvServerUID names the uid limend runs as when that is not the client's
// own (a limend run as a service user for several people).
const EnvServerUID = "LIMEN_SERVER_UID"

// Expected parses the configured uid: flag if set (limen-hook's
// --server-uid), else $LIMEN_SERVER_UID. set is false when neither is. A
// value that is not a uid is an error naming where it came from.
func Expected(flag string) (uid uint32, set bool, err error) {
	v, from := flag, "--server-uid"
	if v == "" {
		v, from = os.Getenv(EnvServerUID), EnvServerUID
	}
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0, false, &ConfigError{From: from, Value: v}
	}
	return uint32(n), true, nil
}

// ConfigError is a configured server uid that is not a uid.
type ConfigError struct{ From, Value string }

func (e *ConfigError) Error() string {
	return e.From + "=" + strconv.Quote(e.Value) + " is not a uid: give the number of the user limend runs as (`id -u` as that user), or unset it to expect your own"
}

// Check returns nil when got, the uid serving socket, is the caller's own
// or the configured one (flag, else $LIMEN_SERVER_UID, read only now), and
// otherwise an error naming the owner found and what to do.
func Check(socket string, got uint32, flag string) error {
	if got == uint32(os.Getuid()) {
		return nil
	}
	want, set, err := Expected(flag)
	if err != nil {
		return err
	}
	return CheckUID(socket, got, want, set)
}

// CheckUID is Check with the configured uid already parsed (set false:
// none configured).
func CheckUID(socket string, got, want uint32, set bool) error {
	if got == uint32(os.Getuid()) || set && got == want {
		return nil
	}
	return &MismatchError{Socket: socket, Got: got, Want: want, Configured: set}
}

// MismatchError is a socket served by a uid that is neither the caller's
// nor limend's configured one.
type MismatchError struct {
	Socket     string
	Got, Want  uint32
	Configured bool // Want was configured; otherwise only the caller's own uid is trusted
}

func (e *MismatchError) Error() string {
	got := paths.Describe(e.Got)
	want := "you (uid " + strconv.FormatUint(uint64(os.Getuid()), 10) + ")"
	if e.Configured {
		want += " nor " + paths.Describe(e.Want) + ", as " + EnvServerUID + " or --server-uid says limend runs"
	}
	return "limend's socket " + e.Socket + " is served by " + got + ", not " + want +
		": someone else's process is listening there, and limen does not believe it; " +
		"stop that process or remove the socket and start limend yourself, or, if limend runs as " + got + " on purpose, set " + EnvServerUID + "=" + strconv.FormatUint(uint64(e.Got), 10)
}
