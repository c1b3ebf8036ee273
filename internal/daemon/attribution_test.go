package daemon_test

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestGatewayAnswersDoNotTeach: an answer from an admin gateway (the bearer
// token over TLS), which names no person, settles the ask but never moves
// the person's prediction, live or after a restart; a person's own answer
// over the socket does.
func TestGatewayAnswersDoNotTeach(t *testing.T) {
	p := newPKI(t)
	tokenFile := filepath.Join(p.dir, "token")
	token := "0123456789abcdef0123456789abcdef"
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	withTLS := func(cfg *daemon.Config) {
		cfg.TCP = "127.0.0.1:0"
		cfg.TLS = daemon.TLS{Cert: p.serverCert, Key: p.serverKey, TokenFile: tokenFile}
	}
	d, c := start(t, dir, withTLS)
	conn, err := grpc.NewClient(tcpAddr(t, d), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: p.pool})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gw := limenv1.NewDecisionServiceClient(conn)
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+token)

	pOf := func(c *client.Client, cmd string) float64 {
		t.Helper()
		resp, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: bash(cmd), DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		return resp.GetDecision().GetP()
	}
	before := pOf(c, "make deploy")
	for range 3 {
		resp, err := gw.Decide(ctx, &limenv1.DecideRequest{Action: bash("make deploy")})
		if err != nil || resp.GetDecision().GetAskId() == "" {
			t.Fatalf("gateway Decide = %v, %v; want an ask", resp, err)
		}
		ans, err := gw.Answer(ctx, &limenv1.AnswerRequest{AskId: resp.GetDecision().GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE})
		if err != nil || ans.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW || ans.GetOutcome().GetAnsweredBy() != "gateway:token" {
			t.Fatalf("gateway Answer = %v, %v; want allow, answered by gateway:token", ans, err)
		}
	}
	if got := pOf(c, "make deploy"); got != before {
		t.Fatalf("after three gateway approvals p = %v; want it unchanged at %v", got, before)
	}
	c.Close()
	stop(t, d)

	d, c = start(t, dir, withTLS)
	if got := pOf(c, "make deploy"); got != before {
		t.Fatalf("after a restart p = %v; want it unchanged at %v (rebuild must skip gateway answers too)", got, before)
	}
	// The person's own answer, over the socket, teaches.
	a := bash("make deploy")
	a.User = ""
	resp, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a})
	if err != nil || resp.GetDecision().GetAskId() == "" {
		t.Fatalf("Decide = %v, %v; want an ask", resp, err)
	}
	if _, err := c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: resp.GetDecision().GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
		t.Fatal(err)
	}
	owner := resp.GetDecision().GetAction().GetUser()
	a.User = owner
	after, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a, DryRun: true})
	if err != nil || after.GetDecision().GetEvidence().GetApprovals() < 0.99 {
		t.Fatalf("after %s's own approval: %v, %v; want one approval counted", owner, after.GetDecision().GetEvidence(), err)
	}
	_ = d
}
