package tui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// now is the fixed clock of every model test.
var now = time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)

// fakeAPI is limend as the unit tests need it, behind the calls of
// package client (Limend): it records what the TUI sends and answers from
// fields. Its errors are the ones client returns: gRPC status errors, and
// client's sentinels where client marks a code.
type fakeAPI struct {
	mu        sync.Mutex
	answers   []*limenv1.AnswerRequest
	answerErr error
	history   []*limenv1.Decision
	stats     *limenv1.StatsResponse
	policy    *limenv1.Policy
	sets      []*limenv1.SetPolicyRequest
	setErrs   []error // returned by successive SetPolicy calls, then nil
	watches   int
	watchErr  error
}

func (f *fakeAPI) Answer(_ context.Context, req *limenv1.AnswerRequest) (*limenv1.AnswerResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.answerErr != nil {
		return nil, f.answerErr
	}
	f.answers = append(f.answers, proto.CloneOf(req))
	v := limenv1.Verdict_VERDICT_BLOCK
	if req.GetChoice() == limenv1.Choice_CHOICE_APPROVE {
		v = limenv1.Verdict_VERDICT_ALLOW
	}
	return &limenv1.AnswerResponse{Verdict: v}, nil
}

// Forget is refused: the fake keeps no answers to take back (undo is
// tested against a real limend, undo_test.go).
func (f *fakeAPI) Forget(context.Context, *limenv1.ForgetRequest) (*limenv1.ForgetResponse, error) {
	return nil, errors.New("the fake limend keeps no answers")
}

func (f *fakeAPI) History(context.Context, int) ([]*limenv1.Decision, error) {
	return f.history, nil
}

func (f *fakeAPI) Stats(context.Context, time.Time) (*limenv1.StatsResponse, error) {
	return f.stats, nil
}

func (f *fakeAPI) GetPolicy(context.Context) (*limenv1.Policy, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return proto.CloneOf(f.policy), nil
}

func (f *fakeAPI) SetPolicy(_ context.Context, expected uint64, doc string) (*limenv1.Policy, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	req := &limenv1.SetPolicyRequest{ExpectedVersion: expected, Document: doc}
	f.sets = append(f.sets, req)
	if len(f.setErrs) > 0 {
		err := f.setErrs[0]
		f.setErrs = f.setErrs[1:]
		f.policy.Version++ // someone else's change
		return nil, err
	}
	if req.GetExpectedVersion() != f.policy.GetVersion() {
		return nil, errConflict
	}
	f.policy = &limenv1.Policy{Version: f.policy.GetVersion() + 1, Document: req.GetDocument(), Classes: f.policy.GetClasses()}
	return proto.CloneOf(f.policy), nil
}

// errConflict is SetPolicy's error at a stale version, as client gives it.
var errConflict = fmt.Errorf("version conflict: %w", client.ErrPolicyChanged)

func (f *fakeAPI) WatchPending(context.Context) (client.PendingStream, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watches++
	if f.watchErr != nil {
		return nil, f.watchErr
	}
	return nil, status.Error(codes.Unavailable, "the fake has no stream")
}

func bashAction(user, agent, session, cmd, cwd string) *limenv1.Action {
	return &limenv1.Action{User: user, Agent: agent, Session: session, Tool: "Bash",
		InputJson: `{"command":"` + cmd + `"}`, Cwd: cwd}
}

// fixtures returns three pending asks, oldest first, and a recorded
// history with one decision of each kind.
func fixtures() ([]*limenv1.PendingAsk, []*limenv1.Decision) {
	ts := func(d time.Duration) *timestamppb.Timestamp { return timestamppb.New(now.Add(d)) }
	asks := []*limenv1.PendingAsk{
		{AskId: "41", ExpiresAt: ts(7 * time.Minute), Decision: &limenv1.Decision{
			DecisionId: "41", AskId: "41", Time: ts(-3 * time.Minute), Verdict: limenv1.Verdict_VERDICT_ASK,
			Action: bashAction("ana", "claude-code", "s-7f3a", "git push --force origin main", "/home/ana/shop"),
			P:      0.62, Thresholds: &limenv1.Thresholds{AllowAbove: 0.995, BlockBelow: 0.5}, RiskClass: "destructive",
			Key:       "Bash:git push [-f] origin main",
			Evidence:  &limenv1.Evidence{Level: "Bash:git push", Approvals: 3, Denials: 1, EffectiveCount: 6.2},
			Reason:    "p=0.620 is between the destructive thresholds 0.500 and 0.995 (3 approved, 1 denied at Bash:git push)",
			DecidedBy: limenv1.Decider_DECIDER_PREDICTION,
		}},
		{AskId: "42", ExpiresAt: ts(9 * time.Minute), Decision: &limenv1.Decision{
			DecisionId: "42", AskId: "42", Time: ts(-time.Minute), Verdict: limenv1.Verdict_VERDICT_ASK,
			Action: &limenv1.Action{User: "bob", Agent: "codex", Session: "9c1", Tool: "Read",
				InputJson: `{"file_path":"/home/bob/api/.env"}`, Cwd: "/home/bob/api"},
			P: 0.55, Thresholds: &limenv1.Thresholds{AllowAbove: 0.99, BlockBelow: 0.5}, RiskClass: "secrets",
			Key: "Read:secret:/home/bob/api/.env", Evidence: &limenv1.Evidence{Level: "Read", Approvals: 0, Denials: 0, EffectiveCount: 2},
			Reason: "p=0.550 is between the secrets thresholds 0.500 and 0.990 (nothing seen yet)", DecidedBy: limenv1.Decider_DECIDER_PREDICTION,
		}},
		{AskId: "57", ExpiresAt: ts(40 * time.Second), Decision: &limenv1.Decision{
			DecisionId: "57", AskId: "57", Time: ts(-20 * time.Second), Verdict: limenv1.Verdict_VERDICT_ASK,
			Action: &limenv1.Action{User: "ana", Agent: "mcp", Session: "s-7f3a", Tool: "mcp__github__create_issue",
				InputJson: `{"owner":"acme","repo":"shop","title":"Flaky checkout test"}`, Cwd: "/home/ana/shop"},
			P: 0.71, Thresholds: &limenv1.Thresholds{AllowAbove: 0.95, BlockBelow: 0.5}, RiskClass: "unknown",
			Reason: "p=0.710 is between the unknown thresholds 0.500 and 0.950", DecidedBy: limenv1.Decider_DECIDER_PREDICTION,
		}},
	}
	ans := func(choice limenv1.Choice, by string) *limenv1.AskOutcome {
		return &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_ANSWERED, Choice: choice, AnsweredBy: by, Time: ts(-time.Hour)}
	}
	history := []*limenv1.Decision{
		{DecisionId: "40", RiskClass: "unknown", Time: ts(-5 * time.Minute), Verdict: limenv1.Verdict_VERDICT_ALLOW, DecidedBy: limenv1.Decider_DECIDER_PREDICTION,
			Reason: "p=0.962 is above the unknown allow threshold 0.950 (9 approved, 0 denied at Bash:git push)",
			Action: bashAction("ana", "claude-code", "s-7f3a", "git push origin feature/cart", "/home/ana/shop")},
		{DecisionId: "39", RiskClass: "destructive", Time: ts(-10 * time.Minute), Verdict: limenv1.Verdict_VERDICT_BLOCK, DecidedBy: limenv1.Decider_DECIDER_RULE,
			Action: bashAction("bob", "codex", "9c1", "rm -rf /", "/home/bob")},
		{DecisionId: "38", AskId: "38", RiskClass: "unknown", Time: ts(-20 * time.Minute), Verdict: limenv1.Verdict_VERDICT_ASK, DecidedBy: limenv1.Decider_DECIDER_PREDICTION,
			Action: bashAction("ana", "claude-code", "s-7f3a", "git push origin main", "/home/ana/shop"), Outcome: ans(limenv1.Choice_CHOICE_APPROVE, "ana")},
		{DecisionId: "37", AskId: "37", RiskClass: "unknown", Time: ts(-30 * time.Minute), Verdict: limenv1.Verdict_VERDICT_ASK, DecidedBy: limenv1.Decider_DECIDER_FAILSAFE,
			Action: bashAction("bob", "codex", "9c1", "make deploy", "/home/bob/api"), Outcome: withNote(ans(limenv1.Choice_CHOICE_DENY, "carol"), "deploys go through CI"),
			Reason: "the prediction took longer than 20ms, so limen asks a person (failing closed)"},
		{DecisionId: "36", AskId: "36", RiskClass: "unknown", Time: ts(-26 * time.Hour), Verdict: limenv1.Verdict_VERDICT_ASK, DecidedBy: limenv1.Decider_DECIDER_PREDICTION,
			Action:  bashAction("ana", "claude-code", "s-1", "terraform apply", "/home/ana/infra"),
			Outcome: &limenv1.AskOutcome{State: limenv1.AskState_ASK_STATE_EXPIRED}},
	}
	return asks, history
}

func withNote(o *limenv1.AskOutcome, note string) *limenv1.AskOutcome {
	o.Note = note
	return o
}

func classes() []*limenv1.ClassThresholds {
	var out []*limenv1.ClassThresholds
	for _, c := range policy.Default().Classes {
		th := c.Thresholds()
		out = append(out, &limenv1.ClassThresholds{Name: c.Name,
			Costs:      &limenv1.Costs{Allow: c.Costs.Allow, Block: c.Costs.Block, Ask: c.Costs.Ask},
			Thresholds: &limenv1.Thresholds{AllowAbove: th.AllowAbove, BlockBelow: th.BlockBelow}})
	}
	return out
}

// newTestModel returns a model on a fake limend at a fixed time, sized
// w×h, with the fixture asks delivered through the watch stream.
func newTestModel(t *testing.T, w, h int) (*Model, *fakeAPI) {
	t.Helper()
	asks, history := fixtures()
	api := &fakeAPI{
		history: history,
		policy:  &limenv1.Policy{Version: 3, Document: policy.DefaultDocument, Classes: classes()},
		stats: &limenv1.StatsResponse{
			Total: &limenv1.VerdictCounts{Allows: 41, Asks: 9, Blocks: 2, Approved: 5, Denied: 1, Expired: 1},
			Users: []*limenv1.UserStats{
				{User: "ana", Counts: &limenv1.VerdictCounts{Allows: 30, Asks: 6, Blocks: 0, Approved: 4, Expired: 1}},
				{User: "bob", Counts: &limenv1.VerdictCounts{Allows: 11, Asks: 3, Blocks: 2, Approved: 1, Denied: 1}},
			},
			Pending: 3,
		},
	}
	m := New(t.Context(), Options{Client: api, Now: func() time.Time { return now }, Renderer: NewRenderer(io.Discard, true), Socket: "/run/user/1000/limen/limend.sock"})
	t.Cleanup(m.Close)
	m.c.after = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(watchOpenedMsg{gen: m.watch.gen})
	for _, a := range asks {
		m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_ADDED, Ask: a}})
	}
	m.Update(watchEventMsg{gen: m.watch.gen, ev: &limenv1.WatchPendingResponse{Kind: limenv1.WatchPendingResponse_KIND_SYNCED}})
	return m, api
}

// press sends one key and runs the commands it returns, feeding their
// messages back, as the bubbletea runtime would (ticks excepted).
func press(t *testing.T, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		drain(t, m, cmd)
	}
}

// drain runs cmd and everything it leads to. The test models make no
// ticks (their clock is fixed), so every command returns at once.
func drain(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("a command did not return")
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "ctrl+u":
		return tea.KeyMsg{Type: tea.KeyCtrlU}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// typeText types s one rune at a time.
func typeText(t *testing.T, m *Model, s string) {
	t.Helper()
	for _, r := range s {
		press(t, m, string(r))
	}
}

var trailingSpace = regexp.MustCompile(`[ \t]+\n`)

// plain is the view as a person reads it: colour stripped, no trailing
// spaces.
func plain(v string) string {
	return strings.TrimRight(trailingSpace.ReplaceAllString(ansi.Strip(v)+"\n", "\n"), "\n") + "\n"
}

// golden compares got with testdata/name.golden; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("view differs from %s (run go test ./tui -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

func splitLines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func displayWidth(s string) int { return ansi.StringWidth(s) }

// testCommon is what New would give the components, for testing one of
// them alone: the fake limend, the fixed clock, no colour, and timers that
// fire at once (their command returns the message straight away).
func testCommon(t *testing.T, api Limend) *common {
	t.Helper()
	return &common{ctx: t.Context(),
		opts: Options{Client: api, Now: func() time.Time { return now }, CallTimeout: time.Second, HistoryLimit: 200, Socket: "/run/limend.sock"},
		log:  slog.New(slog.DiscardHandler),
		after: func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
			return func() tea.Msg { return fn(now) }
		},
		keys: DefaultKeyMap(), styles: DefaultStyles(NewRenderer(io.Discard, true))}
}

// runBatch runs cmd and the commands of any batch it returns, and gives
// the messages they make.
func runBatch(t *testing.T, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case nil:
		default:
			out = append(out, msg)
		}
	}
	return out
}
