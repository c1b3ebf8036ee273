// Package paths finds limen's default socket and database locations, the
// same way for the daemon, the CLI and the hook. It imports nothing heavy so
// the hook binary can use it and still start fast.
package paths

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables that override the defaults, shared by every binary.
const (
	EnvSocket     = "LIMEN_SOCKET"
	EnvHTTPSocket = "LIMEN_HTTP_SOCKET"
	EnvDB         = "LIMEN_DB"
)

// Socket file names in RuntimeDir. On macOS the longer one decides
// whether a directory is short enough (see macRuntimeDir).
const (
	socketName     = "limend.sock"
	httpSocketName = "limend-http.sock"
)

// RuntimeDir is where limend puts its sockets: $XDG_RUNTIME_DIR/limen, or,
// when that is unset, on Linux the user's state directory
// ($XDG_STATE_HOME/limen, default ~/.local/state/limen) and on macOS
// ~/Library/Application Support/limen when the socket paths fit in
// sun_path there, else /tmp/limen-<uid> (see macRuntimeDir).
func RuntimeDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "limen"), nil
	}
	return defaultRuntimeDir()
}

// DataDir is where limend keeps its database: $XDG_DATA_HOME/limen, default
// ~/.local/share/limen on Linux and ~/Library/Application Support/limen on
// macOS.
func DataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "limen"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find a directory for the database: set XDG_DATA_HOME or HOME, or pass --db")
	}
	return defaultDataDir(home), nil
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
	return filepath.Join(d, socketName), nil
}

// HTTPSocket is the HTTP/JSON socket that the hook uses (it links no gRPC):
// $LIMEN_HTTP_SOCKET, else the one beside the gRPC socket ($LIMEN_SOCKET or
// RuntimeDir()/limend.sock), the rule limend follows, so a client told
// neither finds the limend started with neither.
func HTTPSocket() (string, error) {
	if s := os.Getenv(EnvHTTPSocket); s != "" {
		return s, nil
	}
	sock, err := Socket()
	if err != nil {
		return "", err
	}
	return HTTPSocketFor(sock), nil
}

// HTTPSocketFor is where limend serves the hook API when only its gRPC
// socket was chosen: beside it, "limend.sock" → "limend-http.sock". The
// default socket so gives the default HTTP socket, and two limends started
// with different --socket values do not fight over one HTTP socket.
func HTTPSocketFor(grpcSocket string) string {
	return strings.TrimSuffix(grpcSocket, ".sock") + "-http.sock"
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
