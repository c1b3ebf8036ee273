// Package serverpeer lets limen's clients check who serves the socket they
// connect to before they send or believe anything: any local user who can
// bind limen's socket path first (a world-writable directory, a socket
// left behind) could otherwise answer allow to everything. The kernel says
// which uid holds the listening end (SO_PEERCRED); it must be the uid
// limend is expected to run as: the client's own, or the one configured in
// $LIMEN_SERVER_UID (limen-hook: --server-uid).
//
// It imports only os, strconv and syscall, so limen-hook, which must start
// fast, uses it too. Reading the uid is in a file per OS (Linux today;
// macOS would use LOCAL_PEERCRED); elsewhere the check fails, and a client
// then fails closed.
package serverpeer

import (
	"os"
	"strconv"
	"strings"
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
	got := describe(e.Got)
	own := uint32(os.Getuid())
	var want string
	if e.Want == own {
		want = "you (" + describe(own) + ")"
	} else {
		want = describe(e.Want) + ", as " + EnvServerUID + " or --server-uid says"
	}
	return "limend's socket " + e.Socket + " is served by " + got + ", not " + want +
		": someone else's process is listening there, and limen does not believe it; " +
		"stop that process or remove the socket and start limend yourself, or, if limend runs as " + got + " on purpose, set " + EnvServerUID + "=" + strconv.FormatUint(uint64(e.Got), 10)
}

// describe is "uid 1001 (bob)", or "uid 1001" for a uid with no name.
func describe(uid uint32) string {
	s := "uid " + strconv.FormatUint(uint64(uid), 10)
	if name := userName(uid); name != "" {
		s += " (" + name + ")"
	}
	return s
}

// userName looks uid up in /etc/passwd. It is only on the error path, and
// os/user would add its start-up to limen-hook's every call for nothing;
// a uid known only to a directory service is shown as a number.
func userName(uid uint32) string {
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return ""
	}
	id := strconv.FormatUint(uint64(uid), 10)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 4)
		if len(f) == 4 && f[2] == id {
			return f[0]
		}
	}
	return ""
}
