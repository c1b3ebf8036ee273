//go:build !linux

package serverpeer

import (
	"errors"
	"runtime"
)

// UID cannot tell who serves a socket on this OS yet (macOS: LOCAL_PEERCRED
// via getsockopt(SOL_LOCAL) is the way), so clients fail closed.
func UID(fd int) (uint32, error) {
	return 0, errors.New("limen cannot check who serves its socket on " + runtime.GOOS + " yet, so it does not trust the answer")
}
