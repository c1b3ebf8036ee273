package server

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/storev1"
)

// TestDelegateMayAnswer: another user may answer the owner's ask only as
// a delegate the policy names for the owner and the ask's risk class,
// before the delegation ends; the answer records that it was delegated
// and teaches the owner's predictor nothing.
func TestDelegateMayAnswer(t *testing.T) {
	s := newTestServer(t)
	owner := callerCtx(t, s.guard, kindOwner)
	mallory := callerCtx(t, s.guard, kindUser) // user "mallory"
	setPolicy := func(until time.Time) {
		t.Helper()
		cur, err := s.GetPolicy(owner, &limenv1.GetPolicyRequest{})
		if err != nil {
			t.Fatal(err)
		}
		doc := policy.DefaultDocument + fmt.Sprintf("\n[[delegate]]\nwho = \"mallory\"\nusers = [\"owner\"]\nclasses = [\"*\"]\nuntil = %q\n", until.UTC().Format(time.RFC3339))
		if _, err := s.SetPolicy(owner, &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetPolicy().GetVersion(), Document: doc}); err != nil {
			t.Fatal(err)
		}
	}
	ask := func(cmd string) (string, *limenv1.Decision) {
		t.Helper()
		resp, err := s.Decide(owner, &limenv1.DecideRequest{Action: &limenv1.Action{User: "owner", Agent: "test", Session: "s1", Tool: "Bash", InputJson: `{"command":"` + cmd + `"}`, Cwd: "/home/owner/shop"}})
		if err != nil || resp.GetDecision().GetAskId() == "" {
			t.Fatalf("Decide(%s) = %v, %v; want a queued ask", cmd, resp, err)
		}
		return resp.GetDecision().GetAskId(), resp.GetDecision()
	}
	answer := func(id string) error {
		_, err := s.Answer(mallory, &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_DENY})
		return err
	}

	id, _ := ask("terraform apply")
	if err := answer(id); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("mallory's answer to the owner's ask with no delegation = %v; want PermissionDenied", err)
	}
	setPolicy(time.Now().Add(time.Hour))
	id, d := ask("terraform plan")
	if err := answer(id); err != nil {
		t.Fatalf("mallory's answer as a delegate = %v; want it taken", err)
	}
	var rec *storev1.AnswerRecord
	if err := s.store.Answers(func(r *storev1.AnswerRecord) error { rec = proto.CloneOf(r); return nil }); err != nil {
		t.Fatal(err)
	}
	if rec.GetAnsweredBy() != "mallory" || !rec.GetDelegated() {
		t.Errorf("stored answer by %q, delegated %v; want mallory, delegated", rec.GetAnsweredBy(), rec.GetDelegated())
	}
	again, err := s.Decide(owner, &limenv1.DecideRequest{Action: d.GetAction(), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := again.GetDecision().GetEvidence().GetDenials(); got != 0 {
		t.Errorf("the owner's evidence after a delegate's deny counts %v denials; want none (not the owner's habit)", got)
	}
	setPolicy(time.Now().Add(-time.Minute)) // the delegation has ended
	id, _ = ask("terraform destroy")
	if err := answer(id); status.Code(err) != codes.PermissionDenied {
		t.Errorf("mallory's answer after the delegation ended = %v; want PermissionDenied", err)
	}
}
