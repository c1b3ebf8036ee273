package client_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// askEverything puts an ask rule for every shell command in force, so each
// Decide below leaves an ask pending whatever the predictor knows.
func askEverything(t *testing.T) *client.Client {
	t.Helper()
	l := limentest.Start(t)
	l.SetPolicy(t, strings.Replace(policy.DefaultDocument, "ask = []", `ask = ["Bash"]`, 1))
	return l.Client
}

func decideAsk(t *testing.T, c *client.Client, cmd string) string {
	t.Helper()
	v := c.Decide(t.Context(), bash(cmd))
	if id := v.Decision.GetAskId(); v.Verdict == limenv1.Verdict_VERDICT_ASK && id != "" {
		return id
	}
	t.Fatalf("Decide(%s) = %v %q (err %v); want a pending ask", cmd, v.Verdict, v.Reason, v.Err)
	return ""
}

// TestWatchAndAnswer: the watch feed shows an ask in its snapshot and its
// removal once answered; a second answer to the same ask is refused, and
// the refusal is ErrAnswerRefused with limend's words kept.
func TestWatchAndAnswer(t *testing.T) {
	c := askEverything(t)
	id := decideAsk(t, c, "make deploy")
	watch, err := c.WatchPending(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var snapshot []string
	for {
		ev, err := watch.Recv()
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		if ev.GetKind() == limenv1.WatchPendingResponse_KIND_SYNCED {
			break
		}
		snapshot = append(snapshot, ev.GetAsk().GetAskId())
	}
	if len(snapshot) != 1 || snapshot[0] != id {
		t.Fatalf("snapshot %v; want ask %s alone", snapshot, id)
	}

	resp, err := c.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_DENY})
	if err != nil || resp.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK {
		t.Fatalf("Answer = %v, %v; want block", resp, err)
	}
	ev, err := watch.Recv()
	if err != nil || ev.GetKind() != limenv1.WatchPendingResponse_KIND_REMOVED || ev.GetAsk().GetAskId() != id {
		t.Fatalf("after the answer Recv = %v, %v; want ask %s removed", ev, err, id)
	}

	_, err = c.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_APPROVE})
	if !errors.Is(err, client.ErrAnswerRefused) {
		t.Fatalf("second Answer err = %v; want ErrAnswerRefused", err)
	}
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(client.Describe(err), "ask "+id) {
		t.Errorf("refusal %q (code %v, described %q); want limend's status and words kept", err, status.Code(err), client.Describe(err))
	}
	// An answer to an ask that never was is an error, but not a refusal
	// of an ask's state.
	if _, err := c.Answer(t.Context(), &limenv1.AnswerRequest{AskId: "999999", Choice: limenv1.Choice_CHOICE_DENY}); err == nil || errors.Is(err, client.ErrAnswerRefused) {
		t.Errorf("answer to an unknown ask: %v; want an error other than ErrAnswerRefused", err)
	}
}

// TestPolicyCompareAndSet: SetPolicy at the version read saves; at an
// older one it saves nothing and says ErrPolicyChanged.
func TestPolicyCompareAndSet(t *testing.T) {
	c := start(t)
	cur, err := c.GetPolicy(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(cur.GetClasses()) == 0 {
		t.Errorf("policy %v has no risk classes", cur)
	}
	doc := strings.Replace(cur.GetDocument(), "ask = []", `ask = ["Bash(make:*)"]`, 1)
	set, err := c.SetPolicy(t.Context(), cur.GetVersion(), doc)
	if err != nil || set.GetVersion() != cur.GetVersion()+1 || set.GetDocument() != doc {
		t.Fatalf("SetPolicy = v%d, %v; want v%d with the new document", set.GetVersion(), err, cur.GetVersion()+1)
	}
	_, err = c.SetPolicy(t.Context(), cur.GetVersion(), cur.GetDocument())
	if !errors.Is(err, client.ErrPolicyChanged) || status.Code(err) != codes.Aborted {
		t.Fatalf("SetPolicy at a stale version: %v; want ErrPolicyChanged (Aborted)", err)
	}
	now, err := c.GetPolicy(t.Context())
	if err != nil || now.GetVersion() != set.GetVersion() || now.GetDocument() != doc {
		t.Errorf("after the refused write the policy is v%d (%v); want v%d unchanged", now.GetVersion(), err, set.GetVersion())
	}
	if _, err := c.SetPolicy(t.Context(), now.GetVersion(), "[[nonsense"); err == nil || errors.Is(err, client.ErrPolicyChanged) {
		t.Errorf("an invalid document: %v; want an error other than ErrPolicyChanged", err)
	}
}

// TestHistoryAndStats: what Decide recorded comes back, newest first and
// within the limit, and is counted.
func TestHistoryAndStats(t *testing.T) {
	c := askEverything(t)
	since := time.Now().Add(-time.Minute)
	for _, cmd := range []string{"make a", "make b", "make c"} {
		decideAsk(t, c, cmd)
	}
	got, err := c.History(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.Contains(got[0].GetAction().GetInputJson(), "make c") || !strings.Contains(got[1].GetAction().GetInputJson(), "make b") {
		t.Errorf("History(2) = %v; want make c then make b", got)
	}
	st, err := c.Stats(t.Context(), since)
	if err != nil || st.GetTotal().GetAsks() != 3 || st.GetPending() != 3 {
		t.Errorf("Stats = %v, %v; want 3 asks, 3 pending", st, err)
	}
}

// TestDescribe: how an error reads on a status line.
func TestDescribe(t *testing.T) {
	c := dial(t, filepath.Join(t.TempDir(), "nobody.sock"))
	defer c.Close()
	_, err := c.GetPolicy(t.Context())
	tests := []struct {
		err  error
		want string
	}{
		{err, "limend is unreachable"},
		{status.Error(codes.DeadlineExceeded, "slow"), "limend did not answer in time"},
		{status.Error(codes.InvalidArgument, "ask_id is empty"), "ask_id is empty (InvalidArgument)"},
		{errors.New("plain"), "plain"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := client.Describe(tt.err); got != tt.want {
			t.Errorf("Describe(%v) = %q; want %q", tt.err, got, tt.want)
		}
	}
}
