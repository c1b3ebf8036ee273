package paths

import (
	"errors"
	"os"
	"path/filepath"
)

func defaultRuntimeDir() (string, error) { return stateDir() }

func stateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "limen"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find a directory for the socket: set XDG_RUNTIME_DIR or HOME, or pass --socket")
	}
	return filepath.Join(home, ".local", "state", "limen"), nil
}

func defaultDataDir(home string) string { return filepath.Join(home, ".local", "share", "limen") }
