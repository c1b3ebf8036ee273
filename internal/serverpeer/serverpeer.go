// Package serverpeer lets limen's clients check who serves the socket they
// connect to before they send or believe anything: any local user who can
// bind limen's socket path first (a world-writable directory, a socket
// left behind) could otherwise answer allow to everything. The kernel says
// which uid holds the listening end (SO_PEERCRED); it must be the uid
// limend is expected to run as: the client's own, or the one configured in
// $LIMEN_SERVER_UID (limen-hook: --server-uid).
//
// It imports only os, strconv, syscall and internal/paths, so limen-hook, which must start
// fast, uses it too. Reading the uid is in a file per OS (Linux today;
// macOS would use LOCAL_PEERCRED); elsewhere the check fails, and a client
// then fails closed.
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

// Expected is the uid limend must run as: flag if set (limen-hook's
// --server-uid), else $LIMEN_SERVER_UID, else the caller's own uid. A value
// that is not a uid is an error naming where it came from.
func Expected(flag string) (uint32, error) {
	v, from := flag, "--server-uid"
	if v == "" {
		v, from = os.Getenv(EnvServerUID), EnvServerUID
	}
	if v == "" {
		return uint32(os.Getuid()), nil
	}
	uid, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0, &configError{from: from, value: v}
	}
	return uint32(uid), nil
}

type configError struct{ from, value string }

func (e *configError) Error() string {
	return e.from + "=" + strconv.Quote(e.value) + " is not a uid: give the number of the user limend runs as (`id -u` as that user), or unset it to expect your own"
}

// Check compares the uid found serving socket with the one expected and
// returns nil, or an error naming the owner found and what to do.
func Check(socket string, got, want uint32) error {
	if got == want {
		return nil
	}
	return &MismatchError{Socket: socket, Got: got, Want: want}
}

// MismatchError is a socket served by another user than limend's.
type MismatchError struct {
	Socket    string
	Got, Want uint32
}

func (e *MismatchError) Error() string {
	got := paths.Describe(e.Got)
	own := uint32(os.Getuid())
	var want string
	if e.Want == own {
		want = "you (uid " + strconv.FormatUint(uint64(own), 10) + ")"
	} else {
		want = paths.Describe(e.Want) + ", as " + EnvServerUID + " or --server-uid says"
	}
	return "limend's socket " + e.Socket + " is served by " + got + ", not " + want +
		": someone else's process is listening there, and limen does not believe it; " +
		"stop that process or remove the socket and start limend yourself, or, if limend runs as " + got + " on purpose, set " + EnvServerUID + "=" + strconv.FormatUint(uint64(e.Got), 10)
}
