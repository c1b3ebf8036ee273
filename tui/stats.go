package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// statsMsg carries today's counts and the thresholds in force.
type statsMsg struct {
	stats  *limenv1.StatsResponse
	policy *limenv1.Policy
	err    error
}

// statsTab is the Stats tab: today's decisions and answers per user, and
// each risk class's thresholds and costs.
type statsTab struct {
	c *common

	stats  *limenv1.StatsResponse // nil until loaded
	policy *limenv1.Policy
	err    error
}

func newStatsTab(c *common) *statsTab { return &statsTab{c: c} }

// fetch reads the counts since the start of today and the policy.
func (s *statsTab) fetch() tea.Cmd {
	lm := s.c.opts.Client
	since := startOfDay(s.c.now())
	ctx, cancel := s.c.call()
	return func() tea.Msg {
		defer cancel()
		st, err := lm.Stats(ctx, since)
		if err != nil {
			return statsMsg{err: fmt.Errorf("stats: %w", err)}
		}
		pol, err := lm.GetPolicy(ctx)
		if err != nil {
			return statsMsg{err: fmt.Errorf("policy: %w", err)}
		}
		return statsMsg{stats: st, policy: pol}
	}
}

// Update takes loaded stats; the tab has no keys of its own.
func (s *statsTab) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(statsMsg); ok {
		s.err = msg.err
		if msg.err == nil {
			s.stats, s.policy = msg.stats, msg.policy
		} else {
			s.c.log.Warn("stats", "err", msg.err)
		}
	}
	return nil
}

// View is the tab's content.
func (s *statsTab) View() string {
	st := s.c.styles
	switch {
	case s.err != nil:
		return st.StatusErr.Render("could not load stats: " + describeErr(s.err))
	case s.stats == nil:
		return st.Muted.Render("loading…")
	}
	var b strings.Builder
	since := startOfDay(s.c.now())
	fmt.Fprintf(&b, "%s%s\n\n", st.Heading.Render("Today"), st.Muted.Render(fmt.Sprintf(" · since %s · %d pending now", since.Format("Mon 2 Jan 15:04"), s.stats.GetPending())))
	fmt.Fprintln(&b, st.Muted.Render(fmt.Sprintf("%-16s %7s %7s %7s %7s %9s %7s %8s", "USER", "TOTAL", "ALLOWS", "ASKS", "BLOCKS", "APPROVED", "DENIED", "EXPIRED")))
	row := func(name string, c *limenv1.VerdictCounts) {
		fmt.Fprintf(&b, "%-16s %7d %7d %7d %7d %9d %7d %8d\n", shorten(name, 16),
			c.GetAllows()+c.GetAsks()+c.GetBlocks(), c.GetAllows(), c.GetAsks(), c.GetBlocks(), c.GetApproved(), c.GetDenied(), c.GetExpired())
	}
	row("everyone", s.stats.GetTotal())
	for _, u := range s.stats.GetUsers() {
		row(dash(u.GetUser()), u.GetCounts())
	}
	// An answer taken back teaches nothing, so limend counts it in
	// neither column; the person who undid one should not look for it.
	fmt.Fprintln(&b, st.Muted.Render("APPROVED and DENIED leave out answers taken back (u, limenctl forget)"))
	if s.policy != nil {
		fmt.Fprintf(&b, "\n%s%s\n\n", st.Heading.Render("Thresholds in force"), st.Muted.Render(fmt.Sprintf(" · policy v%d", s.policy.GetVersion())))
		fmt.Fprintln(&b, st.Muted.Render(fmt.Sprintf("%-24s %12s %12s  %s", "CLASS", "ALLOW ABOVE", "BLOCK BELOW", "COSTS allow/block/ask")))
		for _, c := range s.policy.GetClasses() {
			co := c.GetCosts()
			fmt.Fprintf(&b, "%-24s %12.3f %12.3f  %s/%s/%s\n", shorten(c.GetName(), 24), c.GetThresholds().GetAllowAbove(), c.GetThresholds().GetBlockBelow(),
				num(co.GetAllow()), num(co.GetBlock()), num(co.GetAsk()))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func startOfDay(t time.Time) time.Time {
	y, mo, d := t.Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, t.Location())
}
