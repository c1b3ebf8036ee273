package tui

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
)

var shownAsk = regexp.MustCompile(`Ask (\d+) · `)

// TestFilterBurst types a filter and an answer faster than the program
// runs the commands that keys return, as a paste or tmux send-keys does:
// every key is handled before any command's message comes back. The answer
// must go to the ask whose details were on screen when its key arrived,
// and that ask must match the filter. A thousand random bursts.
func TestFilterBurst(t *testing.T) {
	terms := []string{"bob", "ana", "mcp", "push", "env", "codex", "issue", "zzz"}
	answerKeys := []string{"d", "a", "s", "D"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		m, api := newTestModel(t, 120, 40)
		var late []tea.Cmd
		send := func(k string) {
			_, cmd := m.Update(keyMsg(k))
			late = append(late, cmd)
		}
		for range rng.IntN(3) {
			send("down")
		}
		term := terms[rng.IntN(len(terms))]
		var matching []string
		for _, it := range m.pending.list.Items() {
			if len(list.DefaultFilter(term, []string{it.FilterValue()})) > 0 {
				matching = append(matching, it.(askItem).ask.GetAskId())
			}
		}
		send("/")
		for _, r := range term {
			send(string(r))
		}
		send("enter")
		before := shownAsk.FindStringSubmatch(plain(m.View()))
		answer := answerKeys[rng.IntN(len(answerKeys))]
		send(answer)
		if answer == "D" {
			for _, r := range "no" {
				send(string(r))
			}
			send("enter")
		}
		for _, c := range late { // the commands' messages arrive only now
			drain(t, m, c)
		}

		switch {
		case before == nil:
			if len(api.answers) != 0 {
				t.Fatalf("burst %d (%q, %s): no ask was on screen, yet %v was answered", i, term, answer, api.answers)
			}
		case len(api.answers) != 1:
			t.Fatalf("burst %d (%q, %s): ask %s was on screen; answers sent %v", i, term, answer, before[1], api.answers)
		case api.answers[0].GetAskId() != before[1]:
			t.Fatalf("burst %d (%q, %s): ask %s was on screen, but ask %s was answered", i, term, answer, before[1], api.answers[0].GetAskId())
		default:
			found := false
			for _, id := range matching {
				found = found || id == before[1]
			}
			if !found {
				t.Fatalf("burst %d (%q, %s): ask %s was answered, but only %v match the filter", i, term, answer, before[1], matching)
			}
		}
		m.Close()
	}
}

// TestTooSmallToAnswer: in a 40×10 terminal the ask cannot be read, so the
// answer keys do nothing but say why; grown to 100×30 they answer again.
func TestTooSmallToAnswer(t *testing.T) {
	m, api := newTestModel(t, 40, 10)
	for _, k := range []string{"a", "d", "s", "A", "D", "r"} {
		press(t, m, k)
	}
	if len(api.answers) != 0 || m.mode() != modeBrowse {
		t.Fatalf("answers %v, mode %v in a 40×10 window; want none", api.answers, m.mode())
	}
	if !strings.Contains(m.c.status, "too small to show ask 41") {
		t.Errorf("status %q; want the too-small hint", m.c.status)
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press(t, m, "d")
	if len(api.answers) != 1 || api.answers[0].GetAskId() != "41" {
		t.Errorf("answers %v after growing the window; want ask 41 denied", api.answers)
	}
}

func TestSubstringFirst(t *testing.T) {
	targets := []string{"mcp github create_issue acme", "bob codex make deploy", "ana Bash make"}
	var got []int
	for _, r := range substringFirst("make", targets) {
		got = append(got, r.Index)
	}
	if len(got) < 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("ranks %v; want the two that hold \"make\" (1, 2) first", got)
	}
}

// TestMoveThroughFilter: with a filter applied, the cursor keys move
// through the asks it shows, and an answer goes to the one moved to. A new
// user found the cursor stuck on the first match, so that the answer went
// to an older ask than the one meant.
func TestMoveThroughFilter(t *testing.T) {
	m, api := newTestModel(t, 120, 40)
	// Every fixture ask matches a filter of one common letter.
	press(t, m, "/", "a", "enter")
	if n := len(m.pending.list.VisibleItems()); n < 2 {
		t.Fatalf("the filter shows %d asks; the test needs two", n)
	}
	shown := func() string {
		t.Helper()
		s := shownAsk.FindStringSubmatch(plain(m.View()))
		if s == nil {
			t.Fatalf("no ask on screen:\n%s", plain(m.View()))
		}
		return s[1]
	}
	first := shown()
	press(t, m, "down")
	second := shown()
	if second == first {
		t.Fatalf("down did not move off ask %s in the filtered list", first)
	}
	press(t, m, "j", "k")
	if got := shown(); got != second {
		t.Fatalf("j then k left ask %s on screen, not %s", got, second)
	}
	press(t, m, "a")
	if len(api.answers) != 1 || api.answers[0].GetAskId() != second {
		t.Fatalf("answered %v; want ask %s, the one on screen", api.answers, second)
	}
}
