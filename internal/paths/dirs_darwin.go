package paths

import (
	"errors"
	"os"
)

// defaultRuntimeDir ignores $XDG_STATE_HOME: on macOS limen keeps its
// sockets with its database, where macOS applications keep their state.
func defaultRuntimeDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find a directory for the socket: set HOME, or pass --socket")
	}
	return macRuntimeDir(home, os.Getuid()), nil
}

func defaultDataDir(home string) string { return macDataDir(home) }
