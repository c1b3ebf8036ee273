package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// newList is a list as both tabs use it: no title, status bar, help or
// pagination of its own, filtered with substringFirst, moved only by keys
// that are no answers.
func newList(d list.ItemDelegate) list.Model {
	l := list.New(nil, d, 0, 0)
	l.SetShowTitle(false)
	l.SetShowStatusBar(false)
	l.SetShowHelp(false)
	l.SetShowPagination(false)
	l.SetFilteringEnabled(true)
	l.Filter = substringFirst
	l.SetShowFilter(false) // the tab draws the filter line itself
	l.DisableQuitKeybindings()
	l.FilterInput.Cursor.SetMode(cursor.CursorStatic)
	l.FilterInput.Prompt = "filter: "
	// Only the arrows and page keys move the list: the letters are answers.
	l.KeyMap.PrevPage = key.NewBinding(key.WithKeys("pgup"))
	l.KeyMap.NextPage = key.NewBinding(key.WithKeys("pgdown"))
	l.KeyMap.ShowFullHelp.SetEnabled(false)
	l.KeyMap.CloseFullHelp.SetEnabled(false)
	return l
}

// substringFirst ranks the items that hold the filter text as it is typed
// (ignoring case) before the fuzzy matches, in queue order: "make" puts
// "make deploy" before an ask whose text only scatters m, a, k and e.
func substringFirst(term string, targets []string) []list.Rank {
	fuzzy := list.DefaultFilter(term, targets)
	lower := strings.ToLower(term)
	out := make([]list.Rank, 0, len(fuzzy))
	exact := map[int]bool{}
	for i, t := range targets {
		if j := strings.Index(strings.ToLower(t), lower); j >= 0 && lower != "" {
			idx := make([]int, 0, len(term))
			for k := range len(lower) {
				idx = append(idx, j+k)
			}
			out = append(out, list.Rank{Index: i, MatchedIndexes: idx})
			exact[i] = true
		}
	}
	for _, r := range fuzzy {
		if !exact[r.Index] {
			out = append(out, r)
		}
	}
	return out
}

// applyFilter filters l's items now. bubbles' list filters in a command
// that runs after the key that changed the filter, so keys that arrive
// faster than that (a paste, tmux send-keys, a quick typist) were taken
// against the items of an older filter: an answer could go to an ask that
// the filter had already hidden. Here a key sees exactly the items that
// the filter text before it selects, and the command's late result is
// dropped in Model.update.
func applyFilter(l *list.Model) {
	state := l.FilterState()
	if state == list.Unfiltered {
		return
	}
	l.SetFilterText(l.FilterInput.Value()) // synchronous; leaves it applied
	if state == list.Filtering {
		l.SetFilterState(list.Filtering) // still typing
	}
}

// refilter applies l's filter now if the key just handed to l changed
// its text or state (text and state are what they were before), and
// reports whether it did. A key that only moves the cursor through an
// applied filter leaves it alone: filtering again puts the cursor back on
// the first match, and the person could not move off it.
func refilter(l *list.Model, text string, state list.FilterState) bool {
	if l.FilterInput.Value() == text && l.FilterState() == state {
		return false
	}
	applyFilter(l)
	return true
}

// filterKey handles a key while l's filter is typed: enter accepts it,
// anything else is text for it (through the tab's own forward).
func filterKey(l *list.Model, msg tea.KeyMsg, forward func(tea.Msg) tea.Cmd) tea.Cmd {
	if msg.Type != tea.KeyEnter {
		return forward(msg)
	}
	// Accept the filter as typed, even when it matches nothing: bubbles
	// would clear a filter that matches nothing, which puts every ask
	// back under the next key of a burst.
	if l.FilterInput.Value() == "" {
		l.ResetFilter()
	} else {
		keep := selectedAskID(l)
		l.SetFilterText(l.FilterInput.Value())
		l.FilterInput.Blur()
		reselect(l, keep)
	}
	return nil
}

// selectedAskID is the id of the ask under l's cursor, or "".
func selectedAskID(l *list.Model) string {
	if it, ok := l.SelectedItem().(askItem); ok {
		return it.ask.GetAskId()
	}
	return ""
}

// reselect puts l's cursor back on ask id if it is still shown.
func reselect(l *list.Model, id string) {
	if id == "" {
		return
	}
	for i, it := range l.VisibleItems() {
		if it.(askItem).ask.GetAskId() == id {
			l.Select(i)
			return
		}
	}
}

// filterLines is 1 while a filter is typed or applied: its line sits above
// the list.
func filterLines(l *list.Model) int {
	if l.FilterState() == list.Unfiltered {
		return 0
	}
	return 1
}

// filterLine shows the filter being typed or applied, or nothing.
func filterLine(l *list.Model, muted lipgloss.Style) (string, bool) {
	switch l.FilterState() {
	case list.Filtering:
		return l.FilterInput.View(), true
	case list.FilterApplied:
		return muted.Render(fmt.Sprintf("filter: %s · %d shown · esc clears", l.FilterValue(), len(l.VisibleItems()))), true
	}
	return "", false
}
