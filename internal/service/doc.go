// Package service writes the files that keep limend running without
// anyone starting it: a systemd user unit with two socket units on Linux,
// a launchd agent on macOS. It only builds their text from plain values
// (the limend binary, its socket and database paths); limenctl service
// writes them and talks to systemctl or launchctl.
package service
