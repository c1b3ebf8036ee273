package server_test

import (
	"github.com/limenhq/limen/internal/limentest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// startDaemon runs a real limend on a temporary socket and database.
func startDaemon(t *testing.T) *client.Client {
	t.Helper()
	// Registered first, so it runs last: after the daemon and client stop.
	t.Cleanup(func() { goleak.VerifyNone(t) })
	return limentest.Start(t).Client
}

func replacePolicy(t *testing.T, c *client.Client, doc string) {
	t.Helper()
	cur, err := c.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetPolicy().GetVersion(), Document: doc}); err != nil {
		t.Fatalf("SetPolicy: %v", err)
	}
}

func bashAs(user, cmd string) *limenv1.Action {
	return &limenv1.Action{User: user, Agent: "test", Session: "s1", Tool: "Bash",
		InputJson: `{"command":"` + strings.ReplaceAll(cmd, `"`, `\"`) + `"}`, Cwd: "/home/" + user + "/shop"}
}

func decideAs(t *testing.T, c *client.Client, a *limenv1.Action, want limenv1.Verdict) *limenv1.Decision {
	t.Helper()
	resp, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a})
	if err != nil {
		t.Fatalf("Decide(%s): %v", a.GetInputJson(), err)
	}
	if got := resp.GetDecision().GetVerdict(); got != want {
		t.Fatalf("Decide(%s) = %v (%s); want %v", a.GetInputJson(), got, resp.GetDecision().GetReason(), want)
	}
	return resp.GetDecision()
}

// TestStats counts real decisions made through a real limend: verdicts,
// how the asks ended (approved, denied, expired, still pending) and the
// split by user.
func TestStats(t *testing.T) {
	c := startDaemon(t)
	ask := limenv1.Verdict_VERDICT_ASK
	// Ask rules keep these commands asks whatever the predictor learns
	// from the answers below.
	asking := strings.Replace(policy.DefaultDocument, "ask = []",
		`ask = ["Bash(npm *)", "Bash(terraform *)", "Bash(make *)", "Bash(kubectl *)"]`, 1)
	replacePolicy(t, c, asking)

	approved := decideAs(t, c, bashAs("ana", "npm run build"), ask)
	denied := decideAs(t, c, bashAs("bob", "terraform apply"), ask)
	decideAs(t, c, bashAs("ana", "make deploy"), ask) // left pending
	for id, choice := range map[string]limenv1.Choice{approved.GetAskId(): limenv1.Choice_CHOICE_APPROVE, denied.GetAskId(): limenv1.Choice_CHOICE_DENY} {
		if _, err := c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: choice}); err != nil {
			t.Fatalf("Answer(%s, %v): %v", id, choice, err)
		}
	}

	// A policy that allows ls and lets asks expire quickly, for the rest.
	doc := strings.Replace(asking, "allow = []", `allow = ["Bash(ls *)"]`, 1)
	doc = strings.Replace(doc, `timeout = "10m"`, `timeout = "50ms"`, 1)
	replacePolicy(t, c, doc)
	expiring := decideAs(t, c, bashAs("bob", "kubectl rollout restart deploy/web"), ask)
	if aw, err := c.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: expiring.GetAskId()}); err != nil || aw.GetState() != limenv1.AskState_ASK_STATE_EXPIRED {
		t.Fatalf("Await(expiring ask) = %v, %v; want expired", aw, err)
	}
	decideAs(t, c, bashAs("ana", "ls -la"), limenv1.Verdict_VERDICT_ALLOW)
	decideAs(t, c, bashAs("ana", "rm -rf /"), limenv1.Verdict_VERDICT_BLOCK)

	tests := []struct {
		name  string
		since *timestamppb.Timestamp
		want  *limenv1.StatsResponse
	}{
		{
			name: "last 24 hours by default",
			want: &limenv1.StatsResponse{
				Total: &limenv1.VerdictCounts{Allows: 1, Asks: 4, Blocks: 1, Approved: 1, Denied: 1, Expired: 1},
				Users: []*limenv1.UserStats{
					{User: "ana", Counts: &limenv1.VerdictCounts{Allows: 1, Asks: 2, Blocks: 1, Approved: 1}},
					{User: "bob", Counts: &limenv1.VerdictCounts{Asks: 2, Denied: 1, Expired: 1}},
				},
				Pending: 1,
			},
		},
		{
			name:  "a period that starts in the future counts nothing",
			since: timestamppb.New(time.Now().Add(time.Hour)),
			want:  &limenv1.StatsResponse{Total: &limenv1.VerdictCounts{}, Pending: 1},
		},
		{
			name:  "a period that starts long ago counts everything",
			since: timestamppb.New(time.Now().Add(-30 * 24 * time.Hour)),
			want: &limenv1.StatsResponse{
				Total: &limenv1.VerdictCounts{Allows: 1, Asks: 4, Blocks: 1, Approved: 1, Denied: 1, Expired: 1},
				Users: []*limenv1.UserStats{
					{User: "ana", Counts: &limenv1.VerdictCounts{Allows: 1, Asks: 2, Blocks: 1, Approved: 1}},
					{User: "bob", Counts: &limenv1.VerdictCounts{Asks: 2, Denied: 1, Expired: 1}},
				},
				Pending: 1,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.API.Stats(t.Context(), &limenv1.StatsRequest{Since: tt.since})
			if err != nil {
				t.Fatalf("Stats: %v", err)
			}
			if !proto.Equal(got, tt.want) {
				t.Errorf("Stats =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

// TestStatsRefusesBadSince: a timestamp out of range is refused with a
// message that names the field.
func TestStatsRefusesBadSince(t *testing.T) {
	c := startDaemon(t)
	bad := &timestamppb.Timestamp{Seconds: 1, Nanos: -5}
	_, err := c.API.Stats(t.Context(), &limenv1.StatsRequest{Since: proto.CloneOf(bad)})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "since") {
		t.Fatalf("Stats(bad since) = %v; want InvalidArgument naming since", err)
	}
}

// TestStatsManyDecisions pages through more decisions than one History
// page holds.
func TestStatsManyDecisions(t *testing.T) {
	c := startDaemon(t)
	const n = 1100
	for range n {
		decideAs(t, c, bashAs("ana", "rm -rf /"), limenv1.Verdict_VERDICT_BLOCK)
	}
	got, err := c.API.Stats(t.Context(), &limenv1.StatsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetTotal().GetBlocks() != n || len(got.GetUsers()) != 1 {
		t.Fatalf("Stats after %d blocks = %v; want %d blocks for one user", n, got, n)
	}
}
