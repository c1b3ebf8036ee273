package tui

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// RunOptions are the program-level settings of Run.
type RunOptions struct {
	// Mouse turns on mouse reporting (the wheel scrolls the lists). It is
	// off by default so the terminal's own text selection keeps working.
	Mouse bool
}

// Run runs the TUI on the terminal until the person quits or ctx ends. It
// draws on the alternate screen and never writes anything else to stdout.
func Run(ctx context.Context, opts Options, ro RunOptions) error {
	m := New(ctx, opts)
	defer m.Close()
	progOpts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx)}
	if ro.Mouse {
		progOpts = append(progOpts, tea.WithMouseCellMotion())
	}
	_, err := tea.NewProgram(m, progOpts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the context ended it: a normal way out
	}
	if err != nil {
		return fmt.Errorf("run the terminal UI: %w", err)
	}
	return nil
}
