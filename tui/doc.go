// Package tui is limen's terminal UI: the place where a person sees the
// asks that wait for them, with the context to decide well, and answers in
// one key. It is a bubbletea program that reaches limend only through the Go
// client (package client): WatchPending keeps the Pending tab live, Answer
// sends the answers, History, Stats and GetPolicy fill the other tabs, and
// SetPolicy saves a hard rule made from an answer.
//
// Three promises shape it:
//
//   - An answer is shown as given only once limend acknowledged it (which
//     means it is on disk). Until then the ask says "sending"; if the call
//     fails the ask stays in the list and the error is shown.
//   - An ask answered anywhere else (another TUI, limenctl, an expiry)
//     leaves the list, through the watch stream's removed events.
//   - When limend goes away the status line says so and the TUI reconnects
//     with backoff; on reconnect the list is rebuilt from limend's snapshot.
//
// The Model is split as soft-serve splits its UI: it routes each message
// to a component with its own Update and View, all sharing one common
// (context, options, keys, styles, clock, status line): the watch stream
// (stream.go), the Pending tab with the queue and its pane (pending.go),
// the note and rule editors (note.go, ruleedit.go), the History and Stats
// tabs (history.go, stats.go). Which rule to suggest is policy's
// (policy/suggest.go); the TUI shows it and lets the person edit it.
//
// The model takes its clock from Options.Now, so tests render it at a fixed
// time; it never writes to the terminal itself (logs go to Options.Logger).
package tui
