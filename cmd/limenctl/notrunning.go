package main

import (
	"strings"
)

// startHint is how to start limend, for every message that finds it down.
const startHint = "start it with `limend` in a terminal of its own (or `go run ./cmd/limend` in the source tree), " +
	"or once for good with `limenctl service install`; " +
	"if it runs with another --socket, pass that socket to limenctl with --socket or LIMEN_SOCKET"

// notRunning says why a failed dial means no limend runs at socket: no
// socket file, or a file left behind that nothing listens on. It is empty
// when the error says something else (a socket that limend holds but that
// refuses this user, say), which is not "not running".
func notRunning(text, socket string) string {
	switch {
	case strings.Contains(text, "no such file or directory"):
		return "there is no socket at " + socket
	case strings.Contains(text, "connection refused"):
		return "nothing listens on " + socket + " (a socket file left behind by a limend that stopped)"
	}
	return ""
}
