package tui

import (
	"io"
	"os"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Styles is every style the TUI draws with, built from one renderer so
// that its colour profile (none under NO_COLOR) applies to all of them.
type Styles struct {
	Title     lipgloss.Style
	TitleNew  lipgloss.Style // the title while new asks flash
	Tab       lipgloss.Style
	ActiveTab lipgloss.Style
	Muted     lipgloss.Style
	Label     lipgloss.Style
	Selected  lipgloss.Style
	Pane      lipgloss.Style
	Heading   lipgloss.Style

	Allow lipgloss.Style
	Ask   lipgloss.Style
	Block lipgloss.Style

	Status    lipgloss.Style
	StatusErr lipgloss.Style
	Sending   lipgloss.Style

	Help help.Styles
}

// NewRenderer returns a renderer for w whose colour profile honours
// NO_COLOR (and CLICOLOR, CLICOLOR_FORCE); noColor forces no colour too.
func NewRenderer(w io.Writer, noColor bool, opts ...termenv.OutputOption) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w, opts...)
	if noColor || os.Getenv("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}

// DefaultStyles returns limen's styles on renderer r. Colours are adaptive,
// so they read on light and dark terminals; nothing depends on colour alone
// (verdicts are also spelled out), so NO_COLOR loses no information.
func DefaultStyles(r *lipgloss.Renderer) Styles {
	muted := lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"}
	accent := lipgloss.AdaptiveColor{Light: "#5A3FD6", Dark: "#A48CFF"}
	green := lipgloss.AdaptiveColor{Light: "#1A7F37", Dark: "#3FB950"}
	yellow := lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#D29922"}
	red := lipgloss.AdaptiveColor{Light: "#CF222E", Dark: "#F85149"}

	s := Styles{
		Title:     r.NewStyle().Bold(true).Foreground(accent),
		TitleNew:  r.NewStyle().Bold(true).Reverse(true).Foreground(yellow),
		Tab:       r.NewStyle().Foreground(muted).Padding(0, 1),
		ActiveTab: r.NewStyle().Bold(true).Underline(true).Foreground(accent).Padding(0, 1),
		Muted:     r.NewStyle().Foreground(muted),
		Label:     r.NewStyle().Foreground(muted).Width(9),
		Selected:  r.NewStyle().Bold(true).Foreground(accent),
		Pane:      r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(muted).Padding(0, 1),
		Heading:   r.NewStyle().Bold(true),

		Allow: r.NewStyle().Foreground(green),
		Ask:   r.NewStyle().Foreground(yellow),
		Block: r.NewStyle().Foreground(red),

		Status:    r.NewStyle().Foreground(muted),
		StatusErr: r.NewStyle().Bold(true).Foreground(red),
		Sending:   r.NewStyle().Italic(true).Foreground(yellow),
	}
	s.Help = help.Styles{
		Ellipsis:       r.NewStyle().Foreground(muted),
		ShortKey:       r.NewStyle().Bold(true),
		ShortDesc:      r.NewStyle().Foreground(muted),
		ShortSeparator: r.NewStyle().Foreground(muted),
		FullKey:        r.NewStyle().Bold(true),
		FullDesc:       r.NewStyle().Foreground(muted),
		FullSeparator:  r.NewStyle().Foreground(muted),
	}
	return s
}
