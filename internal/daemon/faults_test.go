package daemon_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/server"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

func code(err error) codes.Code { return status.Code(err) }

func TestNamingAnotherUserNeedsATrustedGateway(t *testing.T) {
	_, c := start(t, t.TempDir(), func(cfg *daemon.Config) { cfg.TrustedGateways = []string{"nobody-is-trusted"} })
	_, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: bash("ls")}) // names "ana"
	if code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "action.user") {
		t.Fatalf("Decide naming another user = %v; want PermissionDenied about action.user", err)
	}
	a := bash("ls")
	a.User = ""
	d := decide(t, c, a)
	if d.GetAction().GetUser() == "" || d.GetAction().GetUser() == "ana" {
		t.Errorf("user = %q; want the caller's OS user from the socket", d.GetAction().GetUser())
	}
}

func TestLimits(t *testing.T) {
	t.Run("pending asks per user", func(t *testing.T) {
		_, c := start(t, t.TempDir(), func(cfg *daemon.Config) { cfg.Limits = server.Limits{MaxPendingPerUser: 2} })
		for _, cmd := range []string{"make a", "make b"} {
			if d := decide(t, c, bash(cmd)); d.GetAskId() == "" {
				t.Fatalf("%s was not queued", cmd)
			}
		}
		full := decide(t, c, bash("make c"))
		if full.GetVerdict() != limenv1.Verdict_VERDICT_ASK || full.GetAskId() != "" || !strings.Contains(full.GetReason(), "full") {
			t.Fatalf("third ask = %v, ask id %q, reason %q; want ask, not queued, saying the queue is full", full.GetVerdict(), full.GetAskId(), full.GetReason())
		}
		list, err := c.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
		if err != nil || len(list.GetAsks()) != 2 {
			t.Fatalf("pending = %d, %v; want 2", len(list.GetAsks()), err)
		}
	})
	t.Run("rate per principal", func(t *testing.T) {
		d, c := start(t, t.TempDir(), func(cfg *daemon.Config) { cfg.Limits = server.Limits{Rate: 0.001, Burst: 2} })
		decide(t, c, bash("ls"))
		decide(t, c, bash("ls"))
		before := counts(t, d)
		_, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: bash("ls")})
		if code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "rate limit") {
			t.Fatalf("third decision = %v; want ResourceExhausted naming the rate limit", err)
		}
		if after := counts(t, d); after != before {
			t.Errorf("a rate-limited decision changed the store: %+v → %+v", before, after)
		}
	})
	t.Run("nesting depth", func(t *testing.T) {
		_, c := start(t, t.TempDir())
		// Decided on what can be read (refusing it let nesting turn a
		// block into an ask), never allowed, and recorded flattened.
		deep := `{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`
		r, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{Tool: "Task", InputJson: deep}})
		if err != nil || r.GetDecision().GetVerdict() == limenv1.Verdict_VERDICT_ALLOW || strings.Count(r.GetDecision().GetAction().GetInputJson(), "[") > 32 {
			t.Fatalf("deep input = %v, %v; want a decision that is not allow, with the input cut below 32 levels", r.GetDecision(), err)
		}
		// However deep: the levels past 32 are skipped, not read.
		deeper := `{"a":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `}`
		r, err = c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{Tool: "Task", InputJson: deeper}})
		if err != nil || r.GetDecision().GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			t.Fatalf("deeper input = %v, %v; want a decision that is not allow", r.GetDecision(), err)
		}
	})
	t.Run("waiting awaits", func(t *testing.T) {
		_, c := start(t, t.TempDir(), func(cfg *daemon.Config) { cfg.Limits = server.Limits{MaxAwaits: 1} })
		ask := decide(t, c, bash("make deploy"))
		// Three wait at once; only one fits, so two are refused at once
		// and the third waits until the answer.
		results := make(chan error, 3)
		for range 3 {
			go func() {
				_, err := c.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: ask.GetAskId()})
				results <- err
			}()
		}
		for range 2 {
			if err := <-results; code(err) != codes.ResourceExhausted {
				t.Fatalf("an Await beyond the limit = %v; want ResourceExhausted", err)
			}
		}
		if err := answer(c, ask.GetAskId(), limenv1.Choice_CHOICE_DENY); err != nil {
			t.Fatal(err)
		}
		if err := <-results; err != nil {
			t.Fatalf("the Await within the limit = %v; want the answer", err)
		}
	})
}

// TestAskExpires checks an unanswered ask: its waiter gets a deny for this
// call, no answer is recorded, and history says it expired.
func TestAskExpires(t *testing.T) {
	d, c := start(t, t.TempDir())
	doc := strings.Replace(policy.DefaultDocument, `timeout = "10m"`, `timeout = "150ms"`, 1)
	if err := setPolicy(t, c, doc); err != nil {
		t.Fatal(err)
	}
	ask := decide(t, c, bash("make deploy"))
	resp, err := c.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: ask.GetAskId()})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK || resp.GetState() != limenv1.AskState_ASK_STATE_EXPIRED {
		t.Fatalf("Await on an expiring ask = %v %v; want block, expired", resp.GetVerdict(), resp.GetState())
	}
	if n, err := d.Store().AnswerCount(); err != nil || n != 0 {
		t.Errorf("answers after expiry = %d, %v; an expiry is not a person's answer", n, err)
	}
	hist, err := c.API.History(t.Context(), &limenv1.HistoryRequest{AsksOnly: true})
	if err != nil || len(hist.GetDecisions()) != 1 || hist.GetDecisions()[0].GetOutcome().GetState() != limenv1.AskState_ASK_STATE_EXPIRED {
		t.Fatalf("history = %v, %v; want the ask shown as expired", hist.GetDecisions(), err)
	}
	if err := answer(c, ask.GetAskId(), limenv1.Choice_CHOICE_APPROVE); code(err) != codes.FailedPrecondition {
		t.Errorf("answering an expired ask = %v; want FailedPrecondition", err)
	}
}

func TestCorruptPolicyMeansAsk(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "data", "limen.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetPolicy(0, &storev1.Policy{Document: "[costs\nallow = "}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	_, c := start(t, dir)
	got := decide(t, c, bash("ls"))
	if got.GetVerdict() != limenv1.Verdict_VERDICT_ASK || !strings.Contains(got.GetReason(), "policy could not be loaded") {
		t.Fatalf("with a corrupt policy: %v %q; want ask because the policy could not be loaded", got.GetVerdict(), got.GetReason())
	}
	// A valid policy repairs it at once.
	if err := setPolicy(t, c, policy.DefaultDocument); err != nil {
		t.Fatal(err)
	}
	if got := decide(t, c, bash("ls")); got.GetDecidedBy() != limenv1.Decider_DECIDER_PREDICTION {
		t.Errorf("after repairing the policy decided by %v; want prediction", got.GetDecidedBy())
	}
}

func TestStoreFailureMeansAsk(t *testing.T) {
	d, c := start(t, t.TempDir())
	d.Store().Close() // the disk goes away under a running daemon
	got := decide(t, c, bash("terraform destroy"))
	if got.GetVerdict() != limenv1.Verdict_VERDICT_ASK {
		t.Fatalf("with the store closed: %v; want ask", got.GetVerdict())
	}
	if got.GetAskId() != "" {
		t.Errorf("ask id %q handed out though nothing could be stored", got.GetAskId())
	}
}

func TestDaemonStopsDuringAwait(t *testing.T) {
	d, c := start(t, t.TempDir())
	ask := decide(t, c, bash("make deploy"))
	done := make(chan error, 1)
	go func() {
		_, err := c.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: ask.GetAskId()})
		done <- err
	}()
	// Whether or not the Await above is already waiting when limend
	// stops, it must end in Unavailable, never in a verdict.
	if _, err := c.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: ask.GetAskId(), Timeout: durationpb.New(time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	stop(t, d)
	err := <-done
	if code(err) != codes.Unavailable {
		t.Fatalf("Await when limend stops = %v; want Unavailable (the caller treats it as ask)", err)
	}
}
