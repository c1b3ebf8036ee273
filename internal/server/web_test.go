package server

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestWebCallerAnswersItsOwnAsksOnly: an answer from the web app goes
// through Answer as the device's user, records its channel, device and
// digest, and reaches no other user's ask; it needs no process ancestry.
func TestWebCallerAnswersItsOwnAsksOnly(t *testing.T) {
	s := newTestServer(t)
	gw := WithGateway(t.Context(), "token")
	ask := func(user string) string {
		d, err := s.Decide(gw, &limenv1.DecideRequest{Action: &limenv1.Action{User: user, Tool: "Bash", InputJson: fmt.Sprintf(`{"command":%q}`, "git push")}})
		if err != nil || d.GetDecision().GetAskId() == "" {
			t.Fatalf("Decide for %s = %v, %v; want an ask", user, d, err)
		}
		return d.GetDecision().GetAskId()
	}
	anas, bos := ask("ana"), ask("bo")
	web := WithWebCaller(t.Context(), WebCaller{User: "ana", Device: "d1", Channel: "web", Digest: "abc"})

	if _, err := s.Answer(web, &limenv1.AnswerRequest{AskId: bos, Choice: limenv1.Choice_CHOICE_APPROVE}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("web answer to another user's ask = %v; want PermissionDenied", err)
	}
	resp, err := s.Answer(web, &limenv1.AnswerRequest{AskId: anas, Choice: limenv1.Choice_CHOICE_APPROVE})
	if err != nil {
		t.Fatalf("web answer to its own ask: %v", err)
	}
	o := resp.GetOutcome()
	if o.GetChannel() != "web" || o.GetDeviceId() != "d1" || o.GetActionDigest() != "abc" || o.GetAnsweredBy() != "ana" {
		t.Errorf("outcome = %v; want channel web, device d1, digest abc, by ana", o)
	}
	if _, err := s.Answer(web, &limenv1.AnswerRequest{AskId: anas, Choice: limenv1.Choice_CHOICE_DENY}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("a second answer = %v; want FailedPrecondition (the first answer wins)", err)
	}
	h, err := s.History(web, &limenv1.HistoryRequest{AsksOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.GetDecisions()) != 1 || h.GetDecisions()[0].GetOutcome().GetChannel() != "web" {
		t.Errorf("history as ana = %v; want her one ask, answered on the web", h.GetDecisions())
	}
	// A socket answer says so too.
	if resp, err := s.Answer(gw, &limenv1.AnswerRequest{AskId: bos, Choice: limenv1.Choice_CHOICE_DENY}); err != nil || resp.GetOutcome().GetChannel() != "socket" {
		t.Errorf("socket answer = %v, %v; want channel socket", resp, err)
	}
}

// TestPairingNeedsTheWebApp: without --web-addr the pairing calls say how
// to turn the web app on, rather than failing obscurely.
func TestPairingNeedsTheWebApp(t *testing.T) {
	s := newTestServer(t)
	_, err := s.ListDevices(WithGateway(t.Context(), "token"), &limenv1.ListDevicesRequest{})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(status.Convert(err).Message(), "--web-addr") {
		t.Errorf("ListDevices without the web app = %v; want FailedPrecondition naming --web-addr", err)
	}
}
