// Package paths finds limen's default socket and database locations, the
// same way for the daemon, the CLI and the hook. It imports nothing heavy so
// the hook binary can use it and still start fast.
package paths

import (
	"errors"
	"os"
	"path/filepath"
)

// Environment variables that override the defaults, shared by every binary.
const (
	EnvSocket     = "LIMEN_SOCKET"
	EnvHTTPSocket = "LIMEN_HTTP_SOCKET"
	EnvDB         = "LIMEN_DB"
)

// RuntimeDir is where limend puts its sockets: $XDG_RUNTIME_DIR/limen, or,
// when that is unset, the user's state directory ($XDG_STATE_HOME/limen,
// default ~/.local/state/limen).
func RuntimeDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "limen"), nil
	}
	return stateDir()
}

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

// DataDir is where limend keeps its database: $XDG_DATA_HOME/limen, default
// ~/.local/share/limen.
func DataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "limen"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find a directory for the database: set XDG_DATA_HOME or HOME, or pass --db")
	}
	return filepath.Join(home, ".local", "share", "limen"), nil
}

// Socket is the gRPC socket: $LIMEN_SOCKET, else RuntimeDir()/limend.sock.
func Socket() (string, error) {
	if s := os.Getenv(EnvSocket); s != "" {
		return s, nil
	}
	d, err := RuntimeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "limend.sock"), nil
}

// HTTPSocket is the HTTP/JSON socket that the hook uses (it links no gRPC):
// $LIMEN_HTTP_SOCKET, else RuntimeDir()/limend-http.sock.
func HTTPSocket() (string, error) {
	if s := os.Getenv(EnvHTTPSocket); s != "" {
		return s, nil
	}
	d, err := RuntimeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "limend-http.sock"), nil
}

// DB is the bbolt file: $LIMEN_DB, else DataDir()/limen.db.
func DB() (string, error) {
	if s := os.Getenv(EnvDB); s != "" {
		return s, nil
	}
	d, err := DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "limen.db"), nil
}
