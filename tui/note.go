package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/limenhq/limen/internal/describe"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// editorResult is what a key did to an open editor, for the tab that
// owns it: the tab holds the queue, so it sends the answer or closes.
type editorResult int

const (
	editorKept      editorResult = iota // still editing
	editorCancelled                     // esc: close, send nothing
	editorConfirmed                     // enter on what can be sent
)

// newInput is a one-line text input as both editors use it.
func newInput(prompt, placeholder string) textinput.Model {
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.CharLimit = 4096
	in.Prompt, in.Placeholder = prompt, placeholder
	return in
}

// noteEditor is the editor of a note that goes with an approve or a deny
// (A and D): the agent sees the note.
type noteEditor struct {
	c *common

	open   bool
	ask    *limenv1.PendingAsk // the ask it is about
	choice limenv1.Choice
	input  textinput.Model
	width  int
}

func newNoteEditor(c *common) *noteEditor {
	return &noteEditor{c: c, input: newInput("note: ", "why (the agent sees this)")}
}

// target is the id of the ask the editor is about.
func (e *noteEditor) target() string { return e.ask.GetAskId() }

// note is the text typed so far.
func (e *noteEditor) note() string { return e.input.Value() }

// Open starts a note for choice on ask.
func (e *noteEditor) Open(ask *limenv1.PendingAsk, choice limenv1.Choice) tea.Cmd {
	e.open, e.ask, e.choice = true, ask, choice
	e.input.Reset()
	return e.input.Focus()
}

// Close ends the editor; what was typed is gone.
func (e *noteEditor) Close() {
	e.open = false
	e.input.Blur()
	e.input.Reset()
}

// SetWidth fits the editor in w cells.
func (e *noteEditor) SetWidth(w int) {
	e.width = w
	e.input.Width = max(10, w-len(e.input.Prompt)-1)
}

// Update takes a key (enter confirms, esc cancels, anything else is text)
// or a message for the input.
func (e *noteEditor) Update(msg tea.Msg) (tea.Cmd, editorResult) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.String() {
		case "esc":
			return nil, editorCancelled
		case "enter":
			return nil, editorConfirmed
		}
	}
	var cmd tea.Cmd
	e.input, cmd = e.input.Update(msg)
	return cmd, editorKept
}

// View is the editor, for the pane.
func (e *noteEditor) View() string {
	s := e.c.styles
	verb := "Approve"
	if e.choice == limenv1.Choice_CHOICE_DENY {
		verb = "Deny"
	}
	lines := []string{
		s.Heading.Render(fmt.Sprintf("%s ask %s with a note", verb, e.target())),
		s.Muted.Render(ansi.Truncate(describe.Action(e.ask.GetDecision().GetAction()), e.width, "…")),
		"",
		e.input.View(),
		"",
		s.Muted.Width(e.width).Render("The note is kept with the answer and shown to the agent."),
		s.Muted.Width(e.width).Render("enter sends · esc cancels"),
	}
	return strings.Join(lines, "\n")
}
