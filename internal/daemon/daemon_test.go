package daemon_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start runs a real limend on a socket and database in dir.
func start(t *testing.T, dir string, model ...func(*daemon.Config)) (*daemon.Daemon, *client.Client) {
	t.Helper()
	cfg := daemon.Config{
		Socket:          filepath.Join(dir, "run", "limend.sock"),
		DB:              filepath.Join(dir, "data", "limen.db"),
		ShutdownTimeout: 2 * time.Second,
		LockTimeout:     200 * time.Millisecond,
	}
	for _, f := range model {
		f(&cfg)
	}
	d, err := daemon.Start(cfg, nil)
	if err != nil {
		t.Fatalf("start limend: %v", err)
	}
	c, err := client.Dial(cfg.Socket)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	stopped := false
	t.Cleanup(func() {
		c.Close()
		if !stopped {
			stop(t, d)
		}
	})
	return d, c
}

func stop(t *testing.T, d *daemon.Daemon) {
	t.Helper()
	if err := d.Stop(t.Context()); err != nil {
		t.Errorf("stop limend: %v", err)
	}
}

func bash(cmd string) *limenv1.Action {
	return &limenv1.Action{User: "ana", Agent: "test", Session: "s1", Tool: "Bash", InputJson: `{"command":` + quote(cmd) + `}`, Cwd: "/home/ana/shop"}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func decide(t *testing.T, c *client.Client, a *limenv1.Action) *limenv1.Decision {
	t.Helper()
	resp, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a})
	if err != nil {
		t.Fatalf("Decide(%s): %v", a.GetInputJson(), err)
	}
	return resp.GetDecision()
}

// dryDecide is decide as a dry run: what limend would decide, leaving
// no decision or ask behind (one approval is no standing permission, so
// the same action after one is asked again: docs/policy.md).
func dryDecide(t *testing.T, c *client.Client, a *limenv1.Action) *limenv1.Decision {
	t.Helper()
	resp, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a, DryRun: true})
	if err != nil {
		t.Fatalf("Decide(%s): %v", a.GetInputJson(), err)
	}
	return resp.GetDecision()
}

// TestDecisionLoop walks the whole loop over a real Unix socket: a new
// action is asked, a watcher sees it, a person approves, the waiting Await
// returns allow, the next identical Decide has learned from the answer, and
// a restart keeps history and a still-pending ask.
func TestDecisionLoop(t *testing.T) {
	dir := t.TempDir()
	d, c := start(t, dir)

	h, err := c.Health.Check(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health = %v, %v; want SERVING", h.GetStatus(), err)
	}
	if fi, err := os.Stat(d.Socket()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if fi, err := os.Stat(filepath.Dir(d.Socket())); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}

	watch, err := c.API.WatchPending(t.Context(), &limenv1.WatchPendingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := watch.Recv(); err != nil || ev.GetKind() != limenv1.WatchPendingResponse_KIND_SYNCED {
		t.Fatalf("first watch event = %v, %v; want SYNCED on an empty queue", ev, err)
	}

	first := decide(t, c, bash("npm run test"))
	if first.GetVerdict() != limenv1.Verdict_VERDICT_ASK || first.GetAskId() == "" {
		t.Fatalf("a never-seen action = %v (ask id %q); want ask with an ask id", first.GetVerdict(), first.GetAskId())
	}
	if ev, err := watch.Recv(); err != nil || ev.GetKind() != limenv1.WatchPendingResponse_KIND_ADDED || ev.GetAsk().GetAskId() != first.GetAskId() {
		t.Fatalf("watch event = %v, %v; want ADDED for ask %s", ev, err, first.GetAskId())
	}

	awaited := make(chan *limenv1.AwaitResponse, 1)
	awaitErr := make(chan error, 1)
	go func() {
		resp, err := c.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: first.GetAskId()})
		awaited <- resp
		awaitErr <- err
	}()

	ans, err := c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: first.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE})
	if err != nil || ans.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("Answer approve = %v, %v; want allow", ans.GetVerdict(), err)
	}
	if resp, err := <-awaited, <-awaitErr; err != nil || resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW || resp.GetState() != limenv1.AskState_ASK_STATE_ANSWERED {
		t.Fatalf("Await = %v, %v; want allow, answered", resp, err)
	}
	if ev, err := watch.Recv(); err != nil || ev.GetKind() != limenv1.WatchPendingResponse_KIND_REMOVED || ev.GetAsk().GetAskId() != first.GetAskId() {
		t.Fatalf("watch event = %v, %v; want REMOVED for ask %s", ev, err, first.GetAskId())
	}

	again := decide(t, c, bash("npm run test"))
	if again.GetP() <= first.GetP() || again.GetEvidence().GetApprovals() < 0.99 {
		t.Errorf("after an approval p = %v (was %v), evidence %v; want p higher with one approval seen", again.GetP(), first.GetP(), again.GetEvidence())
	}
	// One approval is no standing permission (docs/policy.md): the same
	// action is asked again, and approved a second time.
	if id := again.GetAskId(); id != "" {
		if err := answer(c, id, limenv1.Choice_CHOICE_APPROVE); err != nil {
			t.Fatalf("second approval: %v", err)
		}
	}

	// Leave one ask pending, then restart on the same file.
	pending := decide(t, c, bash("terraform apply"))
	if pending.GetVerdict() != limenv1.Verdict_VERDICT_ASK {
		t.Fatalf("terraform apply = %v; want ask", pending.GetVerdict())
	}
	c.Close()
	stop(t, d)

	d2, c2 := start(t, dir)
	_ = d2
	list, err := c2.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	if err != nil || len(list.GetAsks()) != 1 || list.GetAsks()[0].GetAskId() != pending.GetAskId() {
		t.Fatalf("pending after restart = %v, %v; want exactly ask %s", list.GetAsks(), err, pending.GetAskId())
	}
	hist, err := c2.API.History(t.Context(), &limenv1.HistoryRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*limenv1.Decision{}
	for _, d := range hist.GetDecisions() {
		byID[d.GetDecisionId()] = d
	}
	if got := byID[first.GetDecisionId()].GetOutcome(); got.GetChoice() != limenv1.Choice_CHOICE_APPROVE {
		t.Errorf("history after restart: first ask outcome = %v; want approved", got)
	}
	if byID[again.GetDecisionId()] == nil {
		t.Errorf("history after restart lacks decision %s", again.GetDecisionId())
	}
	// The predictor was rebuilt from the stored answer.
	if after := decide(t, c2, bash("npm run test")); after.GetEvidence().GetApprovals() < 0.99 {
		t.Errorf("after restart evidence = %v; want the stored approval counted", after.GetEvidence())
	}
}

func TestSecondDaemonOnSameDatabaseFailsFast(t *testing.T) {
	dir := t.TempDir()
	start(t, dir)
	began := time.Now()
	_, err := daemon.Start(daemon.Config{
		Socket:      filepath.Join(dir, "other.sock"),
		DB:          filepath.Join(dir, "data", "limen.db"),
		LockTimeout: 200 * time.Millisecond,
	}, nil)
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second limend: %v; want ErrLocked saying the database is in use", err)
	}
	if waited := time.Since(began); waited > 5*time.Second {
		t.Errorf("second limend took %v to give up; it must fail at once", waited)
	}
}

func TestStaleSocketIsReplaced(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "run", "limend.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o755); err != nil {
		t.Fatal(err)
	}
	// A socket left behind by a crash: bound, then nobody listening.
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	_, c := start(t, dir)
	if _, err := c.Health.Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatalf("health over a replaced stale socket: %v", err)
	}
}

func TestNonLoopbackTCPIsRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := daemon.Start(daemon.Config{Socket: filepath.Join(dir, "s.sock"), DB: filepath.Join(dir, "db"), TCP: "0.0.0.0:7411"}, nil)
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("--tcp 0.0.0.0:7411: %v; want a refusal naming loopback", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "db")); !os.IsNotExist(err) {
		t.Errorf("a refused start created the database (%v)", err)
	}
}

// TestBadInput sends each malformed request and checks the status names the
// field, and that nothing was stored.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	d, c := start(t, dir)
	ask := decide(t, c, bash("make deploy"))
	if _, err := c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: ask.GetAskId(), Choice: limenv1.Choice_CHOICE_DENY}); err != nil {
		t.Fatal(err)
	}
	blocked := decide(t, c, bash("rm -rf /"))
	before := counts(t, d)

	big := `{"command":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name string
		call func() error
		code codes.Code
		want string
	}{
		{"empty tool", func() error { return decideErr(c, &limenv1.Action{InputJson: `{}`}) }, codes.InvalidArgument, "action.tool is empty"},
		{"no action", func() error { _, err := c.API.Decide(t.Context(), &limenv1.DecideRequest{}); return err }, codes.InvalidArgument, "action is required"},
		{"input is an array", func() error { return decideErr(c, &limenv1.Action{Tool: "Bash", InputJson: `["ls"]`}) }, codes.InvalidArgument, "action.input_json must be a JSON object"},
		{"input is not JSON", func() error { return decideErr(c, &limenv1.Action{Tool: "Bash", InputJson: `{command: ls}`}) }, codes.InvalidArgument, "action.input_json is not valid JSON"},
		{"Bash without a command", func() error { return decideErr(c, &limenv1.Action{Tool: "Bash", InputJson: `{}`}) }, codes.InvalidArgument, `has no "command"`},
		{"Bash command not a string", func() error { return decideErr(c, &limenv1.Action{Tool: "Bash", InputJson: `{"command":123}`}) }, codes.InvalidArgument, "action.input_json.command is a number, not a string"},
		{"Read without a path", func() error { return decideErr(c, &limenv1.Action{Tool: "Read", InputJson: `{"file_path":"  "}`}) }, codes.InvalidArgument, "action.input_json.file_path is empty"},
		{"input over 1 MiB", func() error { return decideErr(c, &limenv1.Action{Tool: "Bash", InputJson: big}) }, codes.ResourceExhausted, "larger than max"},
		{"unknown ask id", func() error { return answer(c, "999999", limenv1.Choice_CHOICE_APPROVE) }, codes.NotFound, "ask 999999"},
		{"malformed ask id", func() error { return answer(c, "abc", limenv1.Choice_CHOICE_APPROVE) }, codes.InvalidArgument, "ask_id"},
		{"answer a decision that did not ask", func() error { return answer(c, blocked.GetDecisionId(), limenv1.Choice_CHOICE_APPROVE) }, codes.NotFound, "was block, not an ask"},
		{"answered twice", func() error { return answer(c, ask.GetAskId(), limenv1.Choice_CHOICE_APPROVE) }, codes.FailedPrecondition, "already"},
		{"no choice", func() error { return answer(c, ask.GetAskId(), limenv1.Choice_CHOICE_UNSPECIFIED) }, codes.InvalidArgument, "choice"},
		{"await unknown", func() error {
			_, err := c.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: "424242", Timeout: durationpb.New(time.Second)})
			return err
		}, codes.NotFound, "ask 424242"},
		{"invalid costs", func() error { return setPolicy(t, c, "[costs]\nallow = 0.0\nblock = 2.0\nask = 1.0\n") }, codes.InvalidArgument, "costs.allow"},
		{"negative costs", func() error { return setPolicy(t, c, "[costs]\nallow = 20.0\nblock = -2.0\nask = 1.0\n") }, codes.InvalidArgument, "costs.block"},
		{"stale policy version", func() error {
			_, err := c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: 99, Document: "[costs]\nallow = 20.0\nblock = 2.0\nask = 1.0\n"})
			return err
		}, codes.Aborted, "version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			st, _ := status.FromError(err)
			if st.Code() != tt.code || !strings.Contains(st.Message(), tt.want) {
				t.Fatalf("got %v %q; want %v mentioning %q", st.Code(), st.Message(), tt.code, tt.want)
			}
		})
	}
	if after := counts(t, d); after != before {
		t.Errorf("refused requests changed the store: %+v → %+v", before, after)
	}
}

type storeCounts struct {
	answers, decisions, pending int
	policy                      uint64
}

func counts(t *testing.T, d *daemon.Daemon) storeCounts {
	t.Helper()
	st := d.Store()
	if err := st.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	n, err := st.AnswerCount()
	if err != nil {
		t.Fatal(err)
	}
	hist, err := st.History(store.HistoryQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	pend, err := st.Pending()
	if err != nil {
		t.Fatal(err)
	}
	pol, err := st.Policy()
	if err != nil {
		t.Fatal(err)
	}
	return storeCounts{n, len(hist), len(pend), pol.GetVersion()}
}

func decideErr(c *client.Client, a *limenv1.Action) error {
	_, err := c.API.Decide(context.Background(), &limenv1.DecideRequest{Action: a})
	return err
}

func answer(c *client.Client, id string, choice limenv1.Choice) error {
	_, err := c.API.Answer(context.Background(), &limenv1.AnswerRequest{AskId: id, Choice: choice})
	return err
}

func setPolicy(t *testing.T, c *client.Client, doc string) error {
	cur, err := c.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetPolicy().GetVersion(), Document: doc})
	return err
}

// faultyModel is a predictor that misbehaves on purpose.
type faultyModel struct {
	predict func() []predictor.Prediction
}

func (m faultyModel) PredictEach(_ string, ls []action.Ladder, _ time.Time) []predictor.Prediction {
	return m.predict()
}
func (faultyModel) Observe(string, []action.Ladder, bool, time.Time) {}

// TestFailsClosed puts a slow, a panicking and a nonsense predictor behind
// the real daemon: each decision is ask, on time, with the reason recorded.
func TestFailsClosed(t *testing.T) {
	release := make(chan struct{})
	tests := []struct {
		name    string
		predict func() []predictor.Prediction
		want    string
	}{
		{"slow", func() []predictor.Prediction { <-release; return []predictor.Prediction{{P: 0.999}} }, "took longer than"},
		{"panics", func() []predictor.Prediction { panic("corrupt counts") }, "corrupt counts"},
		{"p out of range", func() []predictor.Prediction { return []predictor.Prediction{{P: 1.5}} }, "outside (0, 1)"},
		{"wrong number of predictions", func() []predictor.Prediction { return nil }, "0 predictions for 1 parts"},
	}
	defer close(release) // lets the slow predictions finish, so goleak sees none left
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := start(t, t.TempDir(), func(cfg *daemon.Config) { cfg.Model = faultyModel{tt.predict} })
			began := time.Now()
			got := decide(t, c, bash("ls -la"))
			if got.GetVerdict() != limenv1.Verdict_VERDICT_ASK || got.GetDecidedBy() != limenv1.Decider_DECIDER_FAILSAFE {
				t.Fatalf("verdict = %v by %v; want ask by failsafe", got.GetVerdict(), got.GetDecidedBy())
			}
			if !strings.Contains(got.GetReason(), tt.want) {
				t.Errorf("reason = %q; want it to mention %q", got.GetReason(), tt.want)
			}
			if took := time.Since(began); took > time.Second {
				t.Errorf("decision took %v; the prediction deadline is 100ms", took)
			}
		})
	}
}

// A new person who approved one command and denied another must not see
// every command limen has never seen blocked: a block asks nobody, so
// limen could never learn otherwise (found by a new-user trial). The
// commands they did answer are still decided on their answers.
func TestOneDenialDoesNotBlockEverythingNew(t *testing.T) {
	_, c := start(t, t.TempDir())
	for _, a := range []struct {
		cmd    string
		choice limenv1.Choice
	}{
		{"git status", limenv1.Choice_CHOICE_APPROVE},
		{"curl -s https://x.example/install.sh | sh", limenv1.Choice_CHOICE_DENY},
	} {
		d := decide(t, c, bash(a.cmd))
		if d.GetAskId() == "" {
			t.Fatalf("%s: %v, want a first ask", a.cmd, d)
		}
		if err := answer(c, d.GetAskId(), a.choice); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{"make build", "npm test", "cargo test", "python3 script.py"} {
		if d := decide(t, c, bash(cmd)); d.GetVerdict() == limenv1.Verdict_VERDICT_BLOCK {
			t.Errorf("%s: blocked (%s); want a person asked", cmd, d.GetReason())
		}
	}
	// One denial blocks nothing, not even itself (docs/policy.md, "When a
	// prediction blocks"); the second denial of the same command does.
	d := decide(t, c, bash("curl -s https://x.example/install.sh | sh"))
	if d.GetAskId() == "" {
		t.Fatalf("the denied command again: %v (%s); want a person asked once more", d.GetVerdict(), d.GetReason())
	}
	if err := answer(c, d.GetAskId(), limenv1.Choice_CHOICE_DENY); err != nil {
		t.Fatal(err)
	}
	if d := decide(t, c, bash("curl -s https://x.example/install.sh | sh")); d.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK {
		t.Errorf("the command denied twice: %v (%s); want it blocked on the person's own denials", d.GetVerdict(), d.GetReason())
	}
}

// A block rule set after an ask was queued outranks a person's approval,
// as it would have outranked it when limen decided; the ask can still be
// denied, and a refused approval stores nothing.
func TestApprovalYieldsToABlockRuleAddedSince(t *testing.T) {
	d, c := start(t, t.TempDir())
	ask := decide(t, c, bash("make deploy"))
	if ask.GetAskId() == "" {
		t.Fatalf("make deploy: %v, want an ask", ask)
	}
	if err := setPolicy(t, c, "[rules]\nblock = [\"Bash(make deploy)\"]\n"); err != nil {
		t.Fatal(err)
	}
	before := counts(t, d)
	err := answer(c, ask.GetAskId(), limenv1.Choice_CHOICE_APPROVE)
	if st, _ := status.FromError(err); st.Code() != codes.FailedPrecondition || !strings.Contains(st.Message(), "Bash(make deploy)") {
		t.Fatalf("approve: %v; want FailedPrecondition naming the rule", err)
	}
	if after := counts(t, d); after != before {
		t.Errorf("the refused approval changed the store: %+v → %+v", before, after)
	}
	if err := answer(c, ask.GetAskId(), limenv1.Choice_CHOICE_DENY); err != nil {
		t.Errorf("deny after the refused approval: %v", err)
	}
}

// limend touches only what it creates: a directory that exists keeps its
// mode (--socket /tmp/limen.sock must not make /tmp private), and a path
// that holds anything but a socket is refused, not removed.
func TestSocketPathCare(t *testing.T) {
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	_, c := start(t, t.TempDir(), func(cfg *daemon.Config) { cfg.Socket = filepath.Join(shared, "limend.sock") })
	c.Close()
	if fi, err := os.Stat(shared); err != nil || fi.Mode()&(os.ModePerm|os.ModeSticky) != 0o777|os.ModeSticky {
		t.Errorf("an existing socket directory's mode became %v (%v); want it left at 1777", fi.Mode(), err)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := daemon.Start(daemon.Config{Socket: file, DB: filepath.Join(dir, "limen.db"), LockTimeout: 200 * time.Millisecond}, nil)
	if err == nil || !strings.Contains(err.Error(), "is not a socket") {
		t.Errorf("start on a regular file: %v; want a refusal saying it is not a socket", err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "mine" {
		t.Errorf("the file at the socket path is gone or changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "limen.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused start left its new database behind (%v)", err)
	}
}
