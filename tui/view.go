package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// View implements tea.Model.
func (m *Model) View() string {
	body := m.body()
	lines := []string{m.header(), m.tabs(), body, m.statusLine(), m.helpView()}
	return strings.Join(lines, "\n")
}

func (m *Model) helpView() string {
	var km help.KeyMap = browseHelp{&m.c.keys}
	if m.pending.editing() {
		km = formHelp{&m.c.keys, m.pending.mode() == modeRule}
	}
	// help adds an item that does not fit when not even its ellipsis
	// would; cut every line to the window so the layout never wraps.
	lines := strings.Split(m.help.View(km), "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	return strings.Join(lines, "\n")
}

// header is the title with the count of pending asks (flashing when new
// ones arrive) and the connection state on the right.
func (m *Model) header() string {
	s := m.c.styles
	left := s.Title.Render("limen") + s.Muted.Render(fmt.Sprintf(" · %d pending", len(m.pending.asks)))
	if m.flashing && m.newAsks > 0 {
		left += " " + s.TitleNew.Render(fmt.Sprintf(" +%d new ", m.newAsks))
	}
	return spread(left, m.watch.View(), m.width)
}

// spread puts left and right on one line of width w, cutting right first.
func spread(left, right string, w int) string {
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		right = ansi.Truncate(right, max(0, w-lipgloss.Width(left)-1), "…")
		gap = max(1, w-lipgloss.Width(left)-lipgloss.Width(right))
	}
	return ansi.Truncate(left+strings.Repeat(" ", gap)+right, w, "…")
}

func (m *Model) tabs() string {
	var parts []string
	for t := range numTabs {
		name := tabNames[t]
		if t == tabPending {
			name = fmt.Sprintf("%s (%d)", name, len(m.pending.asks))
		}
		name = fmt.Sprintf("%d %s", t+1, name)
		if t == m.tab {
			// Brackets as well as the style: the active tab must show
			// without colour or underline too.
			parts = append(parts, m.c.styles.ActiveTab.Render("["+name+"]"))
		} else {
			parts = append(parts, m.c.styles.Tab.Render(name))
		}
	}
	return ansi.Truncate(strings.Join(parts, " "), m.width, "…")
}

func (m *Model) statusLine() string {
	c := m.c
	if c.status == "" {
		return ""
	}
	st := c.styles.Status
	if c.statusErr {
		st = c.styles.StatusErr
	}
	return st.Render(ansi.Truncate(c.status, m.width, "…"))
}

// body is the tab's content, exactly bodyHeight lines tall.
func (m *Model) body() string {
	var out string
	switch m.tab {
	case tabPending:
		out = m.pending.View()
	case tabHistory:
		out = m.history.View()
	case tabStats:
		out = m.stats.View()
	}
	return fit(out, m.width, m.bodyHeight())
}

// fit cuts or pads s to exactly h lines of at most w cells.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// clock formats a countdown: 9m05s, 42s, 1h03m.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// prob prints a probability with as many decimals as it needs, up to
// three: 0.5, 0.95, 0.995.
func prob(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64)
}

// num prints a count without a needless fraction: 3, 2.5.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e9 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shorten cuts s to n cells with an ellipsis, on one line.
func shorten(s string, n int) string {
	return ansi.Truncate(strings.Join(strings.Fields(s), " "), n, "…")
}
