package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every key the TUI answers to, as data: the same bindings drive
// Update and the help line, so what the help shows is what the keys do.
type KeyMap struct {
	Up, Down         key.Binding
	NextTab, PrevTab key.Binding
	Pending, History key.Binding
	Stats            key.Binding

	Approve        key.Binding
	Deny           key.Binding
	ApproveNote    key.Binding
	DenyNote       key.Binding
	ApproveSession key.Binding
	MakeRule       key.Binding
	Undo           key.Binding

	// ScrollDown and ScrollUp move the selected ask's pane when it is
	// taller than the window.
	ScrollDown, ScrollUp key.Binding

	Filter  key.Binding
	Refresh key.Binding
	Help    key.Binding
	Quit    key.Binding

	// Form keys: in the note and rule editors.
	Confirm    key.Binding
	Cancel     key.Binding
	RuleToggle key.Binding
}

// DefaultKeyMap returns the bindings limen ships with. Answer keys are
// single letters a person can hit without looking; the capital forms add a
// note.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		NextTab: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Pending: key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "pending")),
		History: key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "history")),
		Stats:   key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "stats")),

		Approve:        key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve")),
		Deny:           key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "deny")),
		ApproveNote:    key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "approve with note")),
		DenyNote:       key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "deny with note")),
		ApproveSession: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "approve for session")),
		MakeRule:       key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "make a rule")),
		Undo:           key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo my last answer")),

		ScrollDown: key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "pane down")),
		ScrollUp:   key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "pane up")),

		Filter:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Refresh: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "refresh")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),

		Confirm:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		RuleToggle: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "allow ↔ block")),
	}
}

// browseHelp is the help for the tabs; formHelp for the note and rule
// editors. Both implement help.KeyMap over the same bindings.
type browseHelp struct{ k *KeyMap }

func (h browseHelp) ShortHelp() []key.Binding {
	k := h.k
	return []key.Binding{k.Approve, k.Deny, k.ApproveSession, k.MakeRule, k.Filter, k.NextTab, k.Help, k.Quit}
}

func (h browseHelp) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{
		{k.Approve, k.Deny, k.ApproveNote, k.DenyNote, k.ApproveSession, k.MakeRule, k.Undo},
		{k.Up, k.Down, k.Filter, k.Cancel, k.Refresh},
		{k.NextTab, k.PrevTab, k.Pending, k.History, k.Stats},
		{k.ScrollDown, k.ScrollUp, k.Help, k.Quit},
	}
}

type formHelp struct {
	k    *KeyMap
	rule bool
}

func (h formHelp) ShortHelp() []key.Binding {
	// The same enter key, said the way each editor uses it.
	confirm := h.k.Confirm
	if h.rule {
		confirm.SetHelp("enter", "save the rule and answer")
		return []key.Binding{confirm, h.k.RuleToggle, h.k.Cancel}
	}
	confirm.SetHelp("enter", "send the answer")
	return []key.Binding{confirm, h.k.Cancel}
}

func (h formHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }
