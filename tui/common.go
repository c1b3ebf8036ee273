package tui

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// common is what the TUI's components share, as soft-serve's components
// share their common.Common: the program's context and options, the keys
// and styles, the clock and the status line. There is one, made by New;
// every component holds a pointer to it.
type common struct {
	// ctx ends the watch stream and every call when the program quits. A
	// bubbletea model lives exactly as long as its program, so it holds the
	// program's context, as Charm's own programs do.
	ctx  context.Context
	opts Options
	log  *slog.Logger
	// after is tea.Tick; tests replace it so that no timer outlives them.
	after func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

	keys   KeyMap
	styles Styles

	// The status line: the last thing that happened, and whether it went
	// wrong. Components set it as they handle a message, so it is right
	// in the very view that follows.
	status    string
	statusErr bool
}

// setStatus shows a message on the status line; errors are also logged.
func (c *common) setStatus(err bool, format string, args ...any) {
	c.status, c.statusErr = fmt.Sprintf(format, args...), err
	if err {
		c.log.Warn(c.status)
	}
}

// call gives one unary call its deadline under the program's context.
func (c *common) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, c.opts.CallTimeout)
}

func (c *common) now() time.Time { return c.opts.Now() }
