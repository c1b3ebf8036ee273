package client_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/serverpeer/serverpeertest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// yesMan is a fake limend that allows everything.
type yesMan struct {
	limenv1.UnimplementedDecisionServiceServer
	calls atomic.Int32
}

func (y *yesMan) Decide(context.Context, *limenv1.DecideRequest) (*limenv1.DecideResponse, error) {
	y.calls.Add(1)
	return &limenv1.DecideResponse{Decision: &limenv1.Decision{Verdict: limenv1.Verdict_VERDICT_ALLOW, Reason: "fake limend says yes", DecisionId: "1"}}, nil
}

// Another user's fake limend on the socket path: the client sends it
// nothing and returns ask, naming the uid it found.
func TestSocketOfAnotherUserIsNotBelieved(t *testing.T) {
	l, sock := serverpeertest.ListenAs(t, serverpeertest.OtherUID, "limend.sock")
	fake := &yesMan{}
	g := grpc.NewServer()
	limenv1.RegisterDecisionServiceServer(g, fake)
	go g.Serve(l)
	t.Cleanup(g.Stop)

	c := dial(t, sock)
	defer c.Close()
	found := "served by uid " + strconv.Itoa(serverpeertest.OtherUID)
	if v := c.Decide(t.Context(), bash("rm -rf ~")); v.Verdict != limenv1.Verdict_VERDICT_ASK || v.Err == nil || !strings.Contains(v.Reason, found) || !strings.Contains(v.Reason, "not you") {
		t.Errorf("Decide against uid %d's server = %v %q; want ask saying %q", serverpeertest.OtherUID, v.Verdict, v.Reason, found)
	}
	if v := c.DecideAndWait(t.Context(), bash("rm -rf ~"), client.WaitOptions{}); v.Verdict != limenv1.Verdict_VERDICT_ASK || !strings.Contains(v.Reason, found) {
		t.Errorf("DecideAndWait against uid %d's server = %v %q; want ask saying %q", serverpeertest.OtherUID, v.Verdict, v.Reason, found)
	}
	if n := fake.calls.Load(); n != 0 {
		t.Errorf("the client sent %d calls to another user's server", n)
	}

	// Expecting that uid on purpose, the client talks to it: the check is
	// what refused it above.
	trusting, err := client.DialServer(sock, serverpeertest.OtherUID)
	if err != nil {
		t.Fatal(err)
	}
	defer trusting.Close()
	if v := trusting.Decide(t.Context(), bash("ls")); v.Verdict != limenv1.Verdict_VERDICT_ALLOW {
		t.Errorf("DialServer(%d) = %v %q; want the fake's allow", serverpeertest.OtherUID, v.Verdict, v.Reason)
	}
}

// A real limend run as another user: the client does not believe it until
// told that limend runs as that uid.
func TestRealLimendOfAnotherUser(t *testing.T) {
	var l *limentest.Limend
	serverpeertest.AsUser(t, serverpeertest.OtherUID, func() { l = limentest.Start(t) })
	found := "served by uid " + strconv.Itoa(serverpeertest.OtherUID)
	v := l.Client.Decide(t.Context(), bash("ls"))
	if v.Verdict != limenv1.Verdict_VERDICT_ASK || v.Decision != nil || !strings.Contains(v.Reason, found) {
		t.Errorf("Decide against limend run as uid %d = %v %q; want ask naming it", serverpeertest.OtherUID, v.Verdict, v.Reason)
	}

	t.Setenv("LIMEN_SERVER_UID", strconv.Itoa(serverpeertest.OtherUID))
	c := dial(t, l.Socket())
	defer c.Close()
	if v := c.Decide(t.Context(), bash("ls")); v.Err != nil || v.Decision == nil {
		t.Errorf("Decide with LIMEN_SERVER_UID=%d = %v %q (%v); want limend's own decision", serverpeertest.OtherUID, v.Verdict, v.Reason, v.Err)
	}

	t.Setenv("LIMEN_SERVER_UID", "limend")
	if _, err := client.Dial(l.Socket()); err == nil || !strings.Contains(err.Error(), `LIMEN_SERVER_UID="limend" is not a uid`) {
		t.Errorf("Dial with LIMEN_SERVER_UID=limend: %v; want an error naming the variable", err)
	}
}
