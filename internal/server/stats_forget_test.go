package server_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestStatsLeaveOutForgottenAnswers: an answer taken back (Forget) is no
// longer counted as approved or denied: the predictor learns nothing from
// it, and the trial's Stats tab counted it as an approval all the same.
// Its ask still counts as an ask.
func TestStatsLeaveOutForgottenAnswers(t *testing.T) {
	c := startDaemon(t)
	replacePolicy(t, c, strings.Replace(policy.DefaultDocument, "ask = []", `ask = ["Bash(npm *)", "Bash(make *)"]`, 1))
	kept := decideAs(t, c, bashAs("ana", "npm test"), limenv1.Verdict_VERDICT_ASK)
	forgotten := decideAs(t, c, bashAs("ana", "make deploy"), limenv1.Verdict_VERDICT_ASK)
	for _, id := range []string{kept.GetAskId(), forgotten.GetAskId()} {
		if _, err := c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
			t.Fatalf("Answer(%s): %v", id, err)
		}
	}
	if fr, err := c.API.Forget(t.Context(), &limenv1.ForgetRequest{AskIds: []string{forgotten.GetAskId()}, User: "ana"}); err != nil || len(fr.GetAnswers()) != 1 {
		t.Fatalf("Forget = %v, %v; want the one answer forgotten", fr, err)
	}
	got, err := c.API.Stats(t.Context(), &limenv1.StatsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	counts := &limenv1.VerdictCounts{Asks: 2, Approved: 1}
	want := &limenv1.StatsResponse{Total: counts, Users: []*limenv1.UserStats{{User: "ana", Counts: counts}}}
	if !proto.Equal(got, want) {
		t.Errorf("Stats =\n%v\nwant\n%v", got, want)
	}
}
