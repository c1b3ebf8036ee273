package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/limenhq/limen/tui"
)

// tuiOptions are limenctl tui's flags.
type tuiOptions struct {
	mouse, noBell, noColor bool
	logPath                string
}

func newTUICmd(a *app) *cobra.Command {
	var o tuiOptions
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Answer pending asks in a terminal UI",
		Long: `tui opens limen's terminal UI, where a person answers the asks that agents
wait on. The Pending tab lists every ask, oldest first, live: a new ask
appears (with a bell and a flash) without a refresh, and an ask answered
anywhere else disappears. The pane beside it shows the tool and its
arguments, the working directory, the risk class, the predicted approval p
against the two thresholds, why limen asked, and the time left.

Keys: a approve, d deny, A/D with a note, s approve for the rest of the
session, r make a hard rule from the answer (with a preview of the recent
actions it covers), / filter, tab switch to History and Stats, ? all keys,
q quit.

An answer is shown as given only once limend has it on disk. When limend
goes away the header says so and the TUI reconnects by itself. Logs go to
--log (default $XDG_STATE_HOME/limen/tui.log), never to the screen;
NO_COLOR turns colour off.`,
		Example: `  limenctl tui
  limenctl tui --mouse --no-bell
  NO_COLOR=1 limenctl tui --socket /run/user/1000/limen/limend.sock`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTUI(cmd, a, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.mouse, "mouse", false, "let the mouse wheel scroll the lists (off: the terminal keeps text selection)")
	f.BoolVar(&o.noBell, "no-bell", false, "do not ring the terminal bell when a new ask arrives (the title still flashes)")
	f.BoolVar(&o.noColor, "no-color", false, "draw without colour (as NO_COLOR=1 does)")
	f.StringVar(&o.logPath, "log", "", "append logs to this file (default $XDG_STATE_HOME/limen/tui.log)")
	return cmd
}

// runTUI is limenctl tui: the terminal UI on limend, until the person
// quits.
func runTUI(cmd *cobra.Command, a *app, o tuiOptions) error {
	if a.json {
		return usagef("tui draws on the terminal and has no --json output; use limenctl pending --json")
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return usagef("tui needs a terminal on stdin and stdout; for scripts use limenctl pending and limenctl answer")
	}
	logger, closeLog, err := openTUILog(o.logPath)
	if err != nil {
		return err
	}
	defer closeLog()
	c, err := a.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	opts := tui.Options{
		Client:   c,
		Logger:   logger,
		Renderer: tui.NewRenderer(os.Stdout, o.noColor),
		Socket:   c.Socket(),
	}
	if !o.noBell {
		opts.Bell = os.Stderr
	}
	logger.Info("tui started", "socket", c.Socket())
	return tui.Run(cmd.Context(), opts, tui.RunOptions{Mouse: o.mouse})
}

// openTUILog opens the TUI's log file: the screen belongs to the UI, so
// nothing may be logged there.
func openTUILog(path string) (*slog.Logger, func(), error) {
	if path == "" {
		dir := envStateHome.get()
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return nil, nil, usagef("cannot find a place for the log: set XDG_STATE_HOME or HOME, or pass --log")
			}
			dir = filepath.Join(home, ".local", "state")
		}
		path = filepath.Join(dir, "limen", "tui.log")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("create the log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open the log %s: %w (pass --log to put it elsewhere)", path, err)
	}
	return slog.New(slog.NewTextHandler(f, nil)), func() { f.Close() }, nil
}
