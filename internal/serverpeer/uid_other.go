//go:build !linux && !darwin

package serverpeer

import (
	"errors"
	"runtime"
)

// UID cannot tell who serves a socket on this OS, so clients fail closed
// (limen builds only for Linux and macOS: see internal/paths).
func UID(fd int) (uint32, error) {
	return 0, errors.New("limen cannot check who serves its socket on " + runtime.GOOS + ", so it does not trust the answer")
}
