package client_test

import (
	"context"
	"github.com/limenhq/limen/internal/limentest"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start runs a real limend on a temporary socket and dials it.
func start(t *testing.T) *client.Client {
	t.Helper()
	return limentest.Start(t).Client
}

func dial(t *testing.T, socket string) *client.Client {
	t.Helper()
	c, err := client.Dial(socket)
	if err != nil {
		t.Fatalf("dial %s: %v", socket, err)
	}
	return c
}

func bash(cmd string) *limenv1.Action {
	return &limenv1.Action{Agent: "test", Session: "s1", Tool: "Bash", InputJson: `{"command":"` + cmd + `"}`, Cwd: "/tmp"}
}

// answerNext answers the next ask that becomes pending, as a person in the
// TUI would.
func answerNext(t *testing.T, c *client.Client, choice limenv1.Choice) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	watch, err := c.API.WatchPending(ctx, &limenv1.WatchPendingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer cancel()
		for {
			ev, err := watch.Recv()
			if err != nil {
				done <- err
				return
			}
			if ev.GetKind() == limenv1.WatchPendingResponse_KIND_ADDED {
				_, err := c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: ev.GetAsk().GetAskId(), Choice: choice})
				done <- err
				return
			}
		}
	}()
	return done
}

func TestDecideAndWait(t *testing.T) {
	tests := []struct {
		name      string
		cmd       string
		answer    limenv1.Choice // unspecified: nobody answers
		otherwise limenv1.Verdict
		want      limenv1.Verdict
		reason    string
	}{
		{"approved", "make build", limenv1.Choice_CHOICE_APPROVE, 0, limenv1.Verdict_VERDICT_ALLOW, "approved by"},
		{"denied", "make deploy", limenv1.Choice_CHOICE_DENY, 0, limenv1.Verdict_VERDICT_BLOCK, "denied by"},
		{"nobody answers: ask", "make test", 0, 0, limenv1.Verdict_VERDICT_ASK, "nobody answered ask"},
		{"nobody answers: block when the caller says so", "make lint", 0, limenv1.Verdict_VERDICT_BLOCK, limenv1.Verdict_VERDICT_BLOCK, "nobody answered ask"},
		{"nobody answers: allow is never the fallback", "make vet", 0, limenv1.Verdict_VERDICT_ALLOW, limenv1.Verdict_VERDICT_ASK, "nobody answered ask"},
		{"a rule blocks at once", "rm -rf /", 0, 0, limenv1.Verdict_VERDICT_BLOCK, "rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t)
			var answered <-chan error
			if tt.answer != limenv1.Choice_CHOICE_UNSPECIFIED {
				answered = answerNext(t, c, tt.answer)
			}
			wait := 300 * time.Millisecond
			if answered != nil {
				wait = 10 * time.Second
			}
			began := time.Now()
			got := c.DecideAndWait(t.Context(), bash(tt.cmd), client.WaitOptions{Wait: wait, Otherwise: tt.otherwise})
			if got.Verdict != tt.want || !strings.Contains(got.Reason, tt.reason) {
				t.Fatalf("DecideAndWait = %v %q (err %v); want %v mentioning %q", got.Verdict, got.Reason, got.Err, tt.want, tt.reason)
			}
			if took := time.Since(began); took > wait+time.Second {
				t.Errorf("DecideAndWait took %v with a wait of %v", took, wait)
			}
			if answered != nil {
				if err := <-answered; err != nil {
					t.Fatalf("answer: %v", err)
				}
			}
		})
	}
}

// TestFailsClosed: limend down, hanging or talking nonsense is ask (or the
// caller's block), on time, and never allow.
func TestFailsClosed(t *testing.T) {
	tests := []struct {
		name   string
		socket func(t *testing.T) string
		reason string
	}{
		{"daemon down", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nobody.sock") }, "limend did not decide"},
		{"daemon hangs", func(t *testing.T) string { return limentest.HangingSocket(t) }, "limend did not decide"},
		{"nonsense verdict", func(t *testing.T) string { return fakeDaemon(t, fake{verdict: limenv1.Verdict(42)}) }, "not allow, ask or block"},
		{"no decision at all", func(t *testing.T) string { return fakeDaemon(t, fake{noDecision: true}) }, "not allow, ask or block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, tt.socket(t))
			defer c.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
			defer cancel()
			began := time.Now()
			got := c.Decide(ctx, bash("ls"))
			if got.Verdict != limenv1.Verdict_VERDICT_ASK || got.Err == nil || !strings.Contains(got.Reason, tt.reason) {
				t.Fatalf("Decide = %v %q (err %v); want ask mentioning %q", got.Verdict, got.Reason, got.Err, tt.reason)
			}
			for _, otherwise := range []limenv1.Verdict{limenv1.Verdict_VERDICT_BLOCK, limenv1.Verdict_VERDICT_ALLOW} {
				got = c.DecideAndWait(ctx, bash("ls"), client.WaitOptions{Wait: time.Second, Otherwise: otherwise})
				if got.Verdict == limenv1.Verdict_VERDICT_ALLOW || got.Err == nil {
					t.Fatalf("DecideAndWait(otherwise %v) = %v (err %v); a failure must never allow", otherwise, got.Verdict, got.Err)
				}
			}
			if took := time.Since(began); took > time.Second {
				t.Errorf("failing closed took %v; the deadline was 500ms", took)
			}
		})
	}
}

// TestMalformedAwait: an Await reply that makes no sense is the fallback.
func TestMalformedAwait(t *testing.T) {
	tests := []struct {
		name  string
		await *limenv1.AwaitResponse
	}{
		{"answered but ask", &limenv1.AwaitResponse{State: limenv1.AskState_ASK_STATE_ANSWERED, Verdict: limenv1.Verdict_VERDICT_ASK}},
		{"expired but allow", &limenv1.AwaitResponse{State: limenv1.AskState_ASK_STATE_EXPIRED, Verdict: limenv1.Verdict_VERDICT_ALLOW}},
		{"no state", &limenv1.AwaitResponse{Verdict: limenv1.Verdict_VERDICT_ALLOW}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, fakeDaemon(t, fake{verdict: limenv1.Verdict_VERDICT_ASK, askID: "7", await: tt.await}))
			defer c.Close()
			got := c.DecideAndWait(t.Context(), bash("ls"), client.WaitOptions{Wait: time.Second})
			if got.Verdict != limenv1.Verdict_VERDICT_ASK || !strings.Contains(got.Reason, "makes no sense") {
				t.Fatalf("DecideAndWait = %v %q; want ask saying the reply makes no sense", got.Verdict, got.Reason)
			}
		})
	}
}

// fake is a DecisionService that answers what it is told.
type fake struct {
	limenv1.UnimplementedDecisionServiceServer
	verdict    limenv1.Verdict
	noDecision bool
	askID      string
	await      *limenv1.AwaitResponse
}

func (f fake) Decide(context.Context, *limenv1.DecideRequest) (*limenv1.DecideResponse, error) {
	if f.noDecision {
		return &limenv1.DecideResponse{}, nil
	}
	return &limenv1.DecideResponse{Decision: &limenv1.Decision{Verdict: f.verdict, AskId: f.askID}}, nil
}

func (f fake) Await(context.Context, *limenv1.AwaitRequest) (*limenv1.AwaitResponse, error) {
	return f.await, nil
}

func fakeDaemon(t *testing.T, f fake) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	limenv1.RegisterDecisionServiceServer(s, f)
	done := make(chan struct{})
	go func() { s.Serve(l); close(done) }()
	t.Cleanup(func() { s.Stop(); <-done })
	return path
}

// TestRelativeSocket: a socket path relative to the working directory works.
func TestRelativeSocket(t *testing.T) {
	dir := t.TempDir()
	d, err := daemon.Start(daemon.Config{Socket: filepath.Join(dir, "r.sock"), DB: filepath.Join(dir, "db"), ShutdownTimeout: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop(context.Background())
	t.Chdir(dir)
	c := dial(t, "r.sock")
	defer c.Close()
	if got := c.Decide(t.Context(), bash("ls")); got.Err != nil {
		t.Fatalf("Decide over a relative socket path: %v", got.Err)
	}
}

// TestAwaitSurvivesARestart: a wait for a person's answer goes on across
// a restart of limend (the ask is kept on disk): limend stops while the
// wait runs, starts again on the same socket and database, a person
// answers there, and the waiter gets the approval, not an error.
func TestAwaitSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	cfg := daemon.Config{Socket: filepath.Join(dir, "run", "limend.sock"), DB: filepath.Join(dir, "limen.db"),
		ShutdownTimeout: 2 * time.Second, LockTimeout: time.Second}
	d, err := daemon.Start(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, cfg.Socket)
	defer c.Close()
	v := c.Decide(t.Context(), bash("make deploy"))
	id := v.Decision.GetAskId()
	if id == "" {
		t.Fatalf("make deploy = %v; want a queued ask", v.Verdict)
	}
	type result struct {
		resp *limenv1.AwaitResponse
		err  error
	}
	waited := make(chan result, 1)
	go func() {
		resp, err := c.AwaitAcross(t.Context(), id, 20*time.Second)
		waited <- result{resp, err}
	}()
	// Whether the waiter's Await is in limend when it stops (woken with
	// the stopping error) or reaches it while it is down (waiting for it
	// to serve), the wait must go on.
	if err := d.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	d, err = daemon.Start(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop(context.Background())
	person := dial(t, cfg.Socket)
	defer person.Close()
	if _, err := person.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
		t.Fatalf("answer after the restart: %v", err)
	}
	r := <-waited
	if r.err != nil || r.resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("the wait across the restart = %v, %v; want the approval", r.resp, r.err)
	}
}

// TestAwaitAcrossWithoutABoundWaits: a wait of 0 is "until answered or
// expired", not "not at all" (a new user's limenctl await 12 returned at
// once): it is still waiting while nobody answers, and returns the
// person's answer when it comes.
func TestAwaitAcrossWithoutABoundWaits(t *testing.T) {
	c := start(t)
	v := c.Decide(t.Context(), bash("make deploy"))
	if v.Err != nil || v.Decision.GetAskId() == "" {
		t.Fatalf("Decide = %v %q, %v; want an ask", v.Verdict, v.Reason, v.Err)
	}
	got := make(chan *limenv1.AwaitResponse, 1)
	go func() {
		resp, err := c.AwaitAcross(t.Context(), v.Decision.GetAskId(), 0)
		if err != nil {
			t.Errorf("AwaitAcross: %v", err)
		}
		got <- resp
	}()
	select {
	case resp := <-got:
		t.Fatalf("AwaitAcross with no bound returned before any answer: %v", resp)
	case <-time.After(300 * time.Millisecond): // it is waiting, as it should
	}
	if _, err := c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: v.Decision.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
		t.Fatal(err)
	}
	if resp := <-got; resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("AwaitAcross after the approval: %v; want allow", resp)
	}
}
