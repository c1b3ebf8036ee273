package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestStatsTab: loading, loaded (today's counts per user and each class's
// thresholds), and failed.
func TestStatsTab(t *testing.T) {
	api := &fakeAPI{
		stats: &limenv1.StatsResponse{Total: &limenv1.VerdictCounts{Allows: 4, Asks: 2, Approved: 1},
			Users: []*limenv1.UserStats{{User: "ana", Counts: &limenv1.VerdictCounts{Allows: 4, Asks: 2, Approved: 1}}}, Pending: 1},
		policy: &limenv1.Policy{Version: 7, Document: policy.DefaultDocument, Classes: classes()},
	}
	s := newStatsTab(testCommon(t, api))
	if v := plain(s.View()); !strings.Contains(v, "loading…") {
		t.Errorf("view before loading:\n%s", v)
	}
	s.Update(s.fetch()())
	v := plain(s.View())
	for _, want := range []string{"since Mon 30 Nov 00:00 · 1 pending now", "everyone", "ana", "policy v7", "destructive"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	s.Update(statsMsg{err: errors.New("stats: limend is unreachable")})
	if v := plain(s.View()); !strings.Contains(v, "could not load stats") {
		t.Errorf("view after a failed read:\n%s", v)
	}
}
