package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/policy"
	"github.com/limenhq/limen/store"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// statsWindow is the period Stats counts when the request names none.
const statsWindow = 24 * time.Hour

// statsClockSkew is how far past since the walk goes before it stops. Ids
// are handed out in Decide order while the recorded time is taken a moment
// earlier, so two concurrent decisions can be out of time order by that
// moment; a minute is far more than any decision takes.
const statsClockSkew = time.Minute

// Stats implements DecisionService: it counts the decisions made since
// req.since (default the last 24 hours) by verdict and by user, how the asks
// among them ended, and how many asks are pending now.
func (s *Server) Stats(ctx context.Context, req *limenv1.StatsRequest) (*limenv1.StatsResponse, error) {
	c, r, err := s.guard.authorize(ctx, opStats)
	if err != nil {
		return nil, err
	}
	now := s.now()
	since := now.Add(-statsWindow)
	if ts := req.GetSince(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return nil, invalid("since: " + err.Error() + "; pass a timestamp such as 2026-11-30T00:00:00Z, or leave it unset for the last 24 hours")
		}
		since = ts.AsTime()
	}
	// Allows and blocks are logged in batches; flush so they are counted.
	if err := s.store.Flush(ctx); err != nil {
		return nil, toStatus(err)
	}
	total := &limenv1.VerdictCounts{}
	users := map[string]*limenv1.VerdictCounts{}
	err = s.walkSince(ctx, since, func(d *limenv1.Decision) {
		user := d.GetAction().GetUser()
		if !c.mayTouch(r, user) {
			return // a caller of its own reach counts only its own
		}
		uc := users[user]
		if uc == nil {
			uc = &limenv1.VerdictCounts{}
			users[user] = uc
		}
		count(total, d)
		count(uc, d)
	})
	if err != nil {
		return nil, toStatus(err)
	}
	pending := s.asks.count()
	if r != all {
		pending = s.asks.countUser(c.name)
	}
	resp := &limenv1.StatsResponse{Total: total, Pending: int64(pending)}
	for user, uc := range users {
		resp.Users = append(resp.Users, &limenv1.UserStats{User: user, Counts: uc})
	}
	slices.SortFunc(resp.Users, func(a, b *limenv1.UserStats) int { return strings.Compare(a.GetUser(), b.GetUser()) })
	return resp, nil
}

// walkSince calls fn for every recorded decision made at or after since,
// newest first, reading the log a page at a time.
func (s *Server) walkSince(ctx context.Context, since time.Time, fn func(*limenv1.Decision)) error {
	stopAt := since.Add(-statsClockSkew)
	q := store.HistoryQuery{Limit: store.MaxHistoryLimit}
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		page, err := s.store.History(q)
		if err == nil {
			err = s.markForgotten(page) // forget.go: count answers taken back as such
		}
		if err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		for _, d := range page {
			t := d.GetTime().AsTime()
			if t.Before(stopAt) {
				return nil
			}
			if !t.Before(since) {
				fn(d)
			}
		}
		if len(page) < q.Limit {
			return nil
		}
		id, err := store.ParseID(page[len(page)-1].GetDecisionId())
		if err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		q.BeforeID = id
	}
}

// count adds one decision to c.
func count(c *limenv1.VerdictCounts, d *limenv1.Decision) {
	switch convert.Verdict(d.GetVerdict()) {
	case policy.Allow:
		c.Allows++
	case policy.Ask:
		c.Asks++
	case policy.Block:
		c.Blocks++
	}
	o := d.GetOutcome()
	switch {
	case o == nil:
	case o.GetState() == limenv1.AskState_ASK_STATE_EXPIRED:
		c.Expired++
	case o.GetState() != limenv1.AskState_ASK_STATE_ANSWERED:
	case o.GetForgottenAt() != nil: // taken back: it teaches nothing, so it is no approval
	case o.GetChoice() == limenv1.Choice_CHOICE_APPROVE:
		c.Approved++
	case o.GetChoice() == limenv1.Choice_CHOICE_DENY:
		c.Denied++
	}
}
