package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/hookfmt"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/mcpgate"
	"github.com/limenhq/limen/internal/peercred"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// The tests below start real processes: the test binary run again in a
// role, named by this variable, with the sockets in the environment.
const (
	envRole   = "LIMEN_DOORS_ROLE"
	envSocket = "LIMEN_DOORS_SOCKET"
	envHTTP   = "LIMEN_DOORS_HTTP"
	envAsk    = "LIMEN_DOORS_ASK"
	envOwnAsk = "LIMEN_DOORS_OWN_ASK"
	// envRuntime is the fake runtime's pid, for its orphan to check that
	// it left the runtime's tree.
	envRuntime = "LIMEN_DOORS_RUNTIME_PID"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(envRole); role != "" {
		os.Exit(playRole(role))
	}
	os.Exit(m.Run())
}

// playRole runs one process of a test's tree; what it finds goes to
// stdout as "name: code: message" lines, which the test reads.
func playRole(role string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	switch role {
	case "runtime":
		// An agent runtime: it runs its hook (which asks limend), then
		// the agent's command, which learns the ask id as an agent
		// would, from the hook's reply.
		hook := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		hook.Env = append(os.Environ(), envRole+"=hook")
		hook.Stderr = os.Stderr
		out, err := hook.Output()
		os.Stdout.Write(out)
		if err != nil {
			fmt.Printf("hook: failed: %v\n", err)
			return 1
		}
		_, ask, _ := strings.Cut(strings.TrimSpace(string(out)), ": ask: ")
		agent := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		agent.Env = append(os.Environ(), envRole+"=agent", envAsk+"="+ask)
		agent.Stdout, agent.Stderr = os.Stdout, os.Stderr
		if err := agent.Run(); err != nil {
			fmt.Printf("agent: failed: %v\n", err)
			return 1
		}
		return 0
	case "runtime-orphan":
		// A runtime whose agent backgrounds the answer in a subshell, so
		// that it is reparented away from the runtime: `(limenctl answer &)`.
		hook := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		hook.Env = append(os.Environ(), envRole+"=hook")
		hook.Stderr = os.Stderr
		out, err := hook.Output()
		os.Stdout.Write(out)
		if err != nil {
			fmt.Printf("hook: failed: %v\n", err)
			return 1
		}
		_, ask, _ := strings.Cut(strings.TrimSpace(string(out)), ": ask: ")
		sh := exec.CommandContext(ctx, "sh", "-c", `"$0" -test.run='^$' &`, os.Args[0])
		sh.Env = append(os.Environ(), envRole+"=orphan", envAsk+"="+ask, envRuntime+"="+strconv.Itoa(os.Getpid()))
		sh.Stderr = os.Stderr
		// Output returns once the orphan, which holds the pipe, exits.
		out, err = sh.Output()
		os.Stdout.Write(out)
		if err != nil {
			fmt.Printf("orphan: failed: %v\n", err)
			return 1
		}
		return 0
	case "orphan":
		c, err := client.Dial(os.Getenv(envSocket))
		if err != nil {
			fmt.Printf("orphan: failed: %v\n", err)
			return 1
		}
		defer c.Close()
		// Wait for the subshell to exit, so that this process is really
		// reparented away from the runtime (a pidfd polls readable when
		// its process exits).
		parent := os.Getppid()
		if p, err := peercred.ReadProc(parent); err == nil && strconv.Itoa(p.PPID) == os.Getenv(envRuntime) {
			waitExit(parent)
		}
		if p, err := peercred.ReadProc(os.Getppid()); err != nil || strconv.Itoa(p.PPID) == os.Getenv(envRuntime) || strconv.Itoa(p.PID) == os.Getenv(envRuntime) {
			fmt.Printf("orphan: failed: still under the runtime\n")
			return 1
		}
		fmt.Printf("orphan-parent: %d\n", os.Getppid())
		return callAll(ctx, role, c)
	case "detacher":
		// A process that leaves every tree and terminal, as setsid -f
		// does: it backgrounds a child in a subshell and exits, so the
		// child is reparented to init (the twelfth red-team pass ran
		// `setsid -f sh p.sh` from git's fsmonitor).
		sh := exec.CommandContext(ctx, "sh", "-c", `"$0" -test.run='^$' &`, os.Args[0])
		sh.Env = append(os.Environ(), envRole+"=detached")
		sh.Stderr = os.Stderr
		out, err := sh.Output()
		os.Stdout.Write(out)
		if err != nil {
			fmt.Printf("detached: failed: %v\n", err)
			return 1
		}
		return 0
	case "detached":
		c, err := client.Dial(os.Getenv(envSocket))
		if err != nil {
			fmt.Printf("detached: failed: %v\n", err)
			return 1
		}
		defer c.Close()
		if p, err := peercred.ReadProc(os.Getppid()); err == nil && p.Comm == "sh" {
			waitExit(os.Getppid())
		}
		fmt.Printf("detached-parent: %d\n", os.Getppid())
		return callAll(ctx, role, c)
	case "gate-runtime":
		// A runtime that starts an MCP gate, which stays up.
		gate := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		gate.Env = append(os.Environ(), envRole+"=gate")
		gate.Stdout, gate.Stderr = os.Stdout, os.Stderr
		if err := gate.Run(); err != nil {
			fmt.Printf("gate: failed: %v\n", err)
			return 1
		}
		return 0
	case "gate":
		// What mcp-gate does over the Go client: decide a tools/call, then
		// start the MCP server, here one that tries to answer the ask.
		c, err := client.Dial(os.Getenv(envSocket))
		if err != nil {
			fmt.Printf("gate: failed: %v\n", err)
			return 1
		}
		defer c.Close()
		d, err := c.API.Decide(ctx, &limenv1.DecideRequest{Action: &limenv1.Action{Agent: mcpgate.Agent, Tool: mcpgate.ToolName("ops", "deploy"), InputJson: `{"env":"prod"}`}})
		if err != nil {
			fmt.Printf("gate: failed: %v\n", err)
			return 1
		}
		fmt.Printf("gate: %s: %s\n", d.GetDecision().GetVerdict(), d.GetDecision().GetAskId())
		server := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		server.Env = append(os.Environ(), envRole+"=agent", envAsk+"="+d.GetDecision().GetAskId())
		server.Stdout, server.Stderr = os.Stdout, os.Stderr
		if err := server.Run(); err != nil {
			fmt.Printf("agent: failed: %v\n", err)
			return 1
		}
		return 0
	case "hook":
		// What limen-hook does: post the runtime's call to the hook API.
		resp, err := hookDecide(ctx, os.Getenv(envHTTP), "make deploy-everything")
		if err != nil {
			fmt.Printf("hook: failed: %v\n", err)
			return 1
		}
		fmt.Printf("hook: %s: %s\n", resp.Verdict, resp.AskID)
		return 0
	case "agent", "person", "other-user":
		c, err := client.Dial(os.Getenv(envSocket))
		if err != nil {
			fmt.Printf("%s: failed: %v\n", role, err)
			return 1
		}
		defer c.Close()
		return callAll(ctx, role, c)
	}
	fmt.Printf("%s: failed: no such role\n", role)
	return 1
}

// callAll makes the calls a process under test tries, and prints each
// outcome.
func callAll(ctx context.Context, role string, c *client.Client) int {
	say := func(call string, err error) {
		fmt.Printf("%s: %s: %s\n", call, status.Code(err), status.Convert(err).Message())
	}
	ask := os.Getenv(envAsk)
	if role == "other-user" {
		// Answers first: a process that has called Decide is itself an
		// agent runtime to limend (a runtime written in Go calls Decide),
		// and may answer nothing after.
		_, err := c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: ask, Choice: limenv1.Choice_CHOICE_APPROVE})
		say("answer-owners", err)
		_, err = c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: os.Getenv(envOwnAsk), Choice: limenv1.Choice_CHOICE_APPROVE})
		say("answer-own", err)
		d, err := c.API.Decide(ctx, &limenv1.DecideRequest{Action: &limenv1.Action{Tool: "Bash", InputJson: `{"command":"terraform apply"}`}})
		say("decide", err)
		say("await-own", awaitErr(ctx, c, d.GetDecision().GetAskId()))
		say("await-owners", awaitErr(ctx, c, ask))
		_, err = c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: d.GetDecision().GetAskId(), Choice: limenv1.Choice_CHOICE_DENY})
		say("answer-after-decide", err)
		list, err := c.API.ListPending(ctx, &limenv1.ListPendingRequest{})
		say("list", err)
		for _, p := range list.GetAsks() {
			fmt.Printf("listed: %s: %s\n", p.GetAskId(), p.GetDecision().GetAction().GetUser())
		}
		h, err := c.API.History(ctx, &limenv1.HistoryRequest{})
		say("history", err)
		for _, d := range h.GetDecisions() {
			fmt.Printf("history-user: %s\n", d.GetAction().GetUser())
		}
		_, err = c.API.History(ctx, &limenv1.HistoryRequest{User: "root"})
		say("history-of-root", err)
	}
	if role != "person" {
		cur, err := c.API.GetPolicy(ctx, &limenv1.GetPolicyRequest{})
		say("get-policy", err)
		_, err = c.API.SetPolicy(ctx, &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetPolicy().GetVersion(), Document: cur.GetPolicy().GetDocument()})
		say("set-policy", err)
		_, err = c.API.CreatePairing(ctx, &limenv1.CreatePairingRequest{Name: "agent's"})
		say("pair", err)
	}
	if role == "other-user" {
		return 0
	}
	_, err := c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: ask, Choice: limenv1.Choice_CHOICE_APPROVE, Scope: limenv1.Scope_SCOPE_SESSION})
	say("answer", err)
	// Forgetting is guarded as answering is: an agent must not unlearn
	// the refusals that stop it.
	_, err = c.API.Forget(ctx, &limenv1.ForgetRequest{Last: true})
	say("forget", err)
	return 0
}

func awaitErr(ctx context.Context, c *client.Client, id string) error {
	_, err := c.API.Await(ctx, &limenv1.AwaitRequest{AskId: id, Timeout: durationpb.New(time.Millisecond)})
	return err
}

func hookDecide(ctx context.Context, sock, command string) (hookfmt.DecideResponse, error) {
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	body, _ := json.Marshal(hookfmt.DecideRequest{Agent: "claude-code", Session: "s1", Tool: "Bash", Input: json.RawMessage(fmt.Sprintf(`{"command":%q}`, command)), Cwd: "/tmp"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://limend/v1/decide", bytes.NewReader(body))
	if err != nil {
		return hookfmt.DecideResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return hookfmt.DecideResponse{}, err
	}
	defer resp.Body.Close()
	var out hookfmt.DecideResponse
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("%s: %s", resp.Status, b)
	}
	return out, nil
}

// play runs the test binary in role and returns what it printed, line by
// line, keyed by the call.
func play(t *testing.T, role string, env []string, attr *syscall.SysProcAttr, bin string) map[string]string {
	t.Helper()
	if bin == "" {
		bin = os.Args[0]
	}
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), envRole+"="+role), env...)
	cmd.SysProcAttr = attr
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s%s", role, err, out, stderr.String())
	}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		if _, dup := got[k]; dup {
			got[k] += "\n" + v
		} else {
			got[k] = v
		}
	}
	return got
}

func startWithHook(t *testing.T, opts ...func(*daemon.Config)) (*limentest.Limend, []string) {
	l := limentest.Start(t, append([]func(*daemon.Config){func(cfg *daemon.Config) {
		cfg.HTTPSocket = filepath.Join(filepath.Dir(cfg.Socket), "hook.sock")
	}}, opts...)...)
	return l, []string{envSocket + "=" + l.Config.Socket, envHTTP + "=" + l.Config.HTTPSocket}
}

func pendingAsk(t *testing.T, l *limentest.Limend) string {
	t.Helper()
	list, err := l.Client.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	if err != nil || len(list.GetAsks()) != 1 {
		t.Fatalf("pending = %v, %v; want the one ask the hook made", list.GetAsks(), err)
	}
	return list.GetAsks()[0].GetAskId()
}

// TestAgentCannotAnswerItself: a process the agent runtime started cannot
// answer the ask its runtime's hook made, nor change the policy; the same
// calls from a process the runtime did not start (the person's, here the
// test's own children and the test itself) go through.
func TestAgentCannotAnswerItself(t *testing.T) {
	l, env := startWithHook(t)
	// runtime → hook (asks), then runtime → agent (tries to answer).
	got := play(t, "runtime", env, nil, "")
	verdict, ask, _ := strings.Cut(got["hook"], ": ")
	if verdict != "ask" || ask == "" {
		t.Fatalf("the hook got %q; want an ask with an id", got["hook"])
	}
	if ask != pendingAsk(t, l) {
		t.Fatalf("the hook's ask %s is not the one pending", ask)
	}
	for call, want := range map[string]string{
		"answer":     "PermissionDenied: answers come from a person: use limenctl tui in your own terminal",
		"set-policy": "PermissionDenied: policy changes come from a person: run limenctl policy in your own terminal",
		"get-policy": "OK",
		// An agent must not pair itself a device that approves (web app).
		"pair":   "PermissionDenied: pairing a device comes from a person: run limenctl pair in your own terminal",
		"forget": "PermissionDenied: forgetting answers is a person's: run limenctl forget in your own terminal",
	} {
		if !strings.HasPrefix(got[call], want) {
			t.Errorf("the agent's %s = %q; want %q", call, got[call], want)
		}
	}
	if !strings.Contains(got["answer"], "this process runs under process") {
		t.Errorf("the refusal %q does not name the runtime it found", got["answer"])
	}
	// Still pending: the agent did not answer it.
	if pendingAsk(t, l) != ask {
		t.Fatal("the ask is gone")
	}

	// The person, in a process the runtime did not start, answers.
	got = play(t, "person", append(env, envAsk+"="+ask), nil, "")
	if got["answer"] != "OK: " || got["forget"] != "OK: " {
		t.Fatalf("the person's answer = %q, forget = %q; want OK", got["answer"], got["forget"])
	}
	// And limend's owner changes the policy from its own process.
	cur, err := l.Client.API.GetPolicy(t.Context(), &limenv1.GetPolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Client.API.SetPolicy(t.Context(), &limenv1.SetPolicyRequest{ExpectedVersion: cur.GetPolicy().GetVersion(), Document: cur.GetPolicy().GetDocument()}); err != nil {
		t.Fatalf("SetPolicy by the owner, outside the runtime: %v", err)
	}
}

// TestOrphanInRuntimeSession: an agent's process that backgrounds itself
// out of the runtime's tree, staying in the runtime's session, is refused
// while the runtime runs.
func TestOrphanInRuntimeSession(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh:", err)
	}
	l, env := startWithHook(t)
	got := play(t, "runtime-orphan", env, &syscall.SysProcAttr{Setsid: true}, "")
	if _, ask, _ := strings.Cut(got["hook"], ": "); ask == "" || ask != pendingAsk(t, l) {
		t.Fatalf("the hook got %q; want the one pending ask", got["hook"])
	}
	if got["orphan-parent"] == "" {
		t.Fatal("the orphan did not say where it was reparented")
	}
	for call, want := range map[string]string{
		"answer":     "PermissionDenied: answers come from a person",
		"set-policy": "PermissionDenied: policy changes come from a person",
	} {
		if !strings.HasPrefix(got[call], want) || !strings.Contains(got[call], "terminal session of") {
			t.Errorf("the orphan's %s = %q; want %q, naming the runtime's session", call, got[call], want)
		}
	}
	got = play(t, "person", append(env, envAsk+"="+pendingAsk(t, l)), nil, "")
	if got["answer"] != "OK: " {
		t.Fatalf("the person's answer = %q; want OK", got["answer"])
	}
}

// TestGateCannotAnswerItself: the MCP server an mcp-gate starts (under the
// agent runtime) cannot answer the ask the gate's Decide made.
func TestGateCannotAnswerItself(t *testing.T) {
	l, env := startWithHook(t)
	got := play(t, "gate-runtime", env, nil, "")
	verdict, ask, _ := strings.Cut(got["gate"], ": ")
	if verdict != "VERDICT_ASK" || ask == "" || ask != pendingAsk(t, l) {
		t.Fatalf("the gate got %q; want the one pending ask", got["gate"])
	}
	for call, want := range map[string]string{
		"answer":     "PermissionDenied: answers come from a person",
		"set-policy": "PermissionDenied: policy changes come from a person",
	} {
		if !strings.HasPrefix(got[call], want) {
			t.Errorf("the MCP server's %s = %q; want %q", call, got[call], want)
		}
	}
	got = play(t, "person", append(env, envAsk+"="+ask), nil, "")
	if got["answer"] != "OK: " {
		t.Fatalf("the person's answer = %q; want OK", got["answer"])
	}
}

// TestAnonymousTCPCaller: a caller over loopback TCP may decide and await
// its own asks, and nothing else.
func TestAnonymousTCPCaller(t *testing.T) {
	l := limentest.Start(t, func(cfg *daemon.Config) { cfg.TCP = "127.0.0.1:0" })
	owned := decideAsk(t, l.Client.API, "make deploy-owned", "")

	conn, err := grpc.NewClient(l.Addrs()[1].String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	anon := limenv1.NewDecisionServiceClient(conn)
	mine := decideAsk(t, anon, "make deploy-anonymous", "")
	ctx := t.Context()
	if r, err := anon.Await(ctx, &limenv1.AwaitRequest{AskId: mine, Timeout: durationpb.New(time.Millisecond)}); err != nil || r.GetState() != limenv1.AskState_ASK_STATE_PENDING {
		t.Errorf("anonymous Await of its own ask = %v, %v; want pending", r, err)
	}
	denied := map[string]error{}
	_, denied["Await of another's ask"] = anon.Await(ctx, &limenv1.AwaitRequest{AskId: owned, Timeout: durationpb.New(time.Millisecond)})
	_, denied["Answer"] = anon.Answer(ctx, &limenv1.AnswerRequest{AskId: mine, Choice: limenv1.Choice_CHOICE_APPROVE})
	_, denied["Answer of another's"] = anon.Answer(ctx, &limenv1.AnswerRequest{AskId: owned, Choice: limenv1.Choice_CHOICE_APPROVE})
	_, denied["History"] = anon.History(ctx, &limenv1.HistoryRequest{})
	_, denied["ListPending"] = anon.ListPending(ctx, &limenv1.ListPendingRequest{})
	_, denied["Stats"] = anon.Stats(ctx, &limenv1.StatsRequest{})
	_, denied["GetPolicy"] = anon.GetPolicy(ctx, &limenv1.GetPolicyRequest{})
	_, denied["ListPolicyVersions"] = anon.ListPolicyVersions(ctx, &limenv1.ListPolicyVersionsRequest{})
	_, denied["SimulatePolicy"] = anon.SimulatePolicy(ctx, &limenv1.SimulatePolicyRequest{Document: "x"})
	_, denied["SetPolicy"] = anon.SetPolicy(ctx, &limenv1.SetPolicyRequest{ExpectedVersion: 1, Document: "x"})
	if w, err := anon.WatchPending(ctx, &limenv1.WatchPendingRequest{}); err == nil {
		_, denied["WatchPending"] = w.Recv()
	} else {
		denied["WatchPending"] = err
	}
	for call, err := range denied {
		if status.Code(err) != codes.PermissionDenied {
			t.Errorf("anonymous %s = %v; want PermissionDenied", call, err)
		}
	}
	if msg := status.Convert(denied["History"]).Message(); !strings.Contains(msg, "only Decide and Await their own asks") {
		t.Errorf("the refusal says %q; want it to say what an anonymous caller may do", msg)
	}
	// Nothing changed: both asks pending, policy at version 1.
	list, err := l.Client.API.ListPending(ctx, &limenv1.ListPendingRequest{})
	if err != nil || len(list.GetAsks()) != 2 {
		t.Errorf("pending = %v, %v; want both asks still pending", list.GetAsks(), err)
	}
}

// TestOtherUserPeer: another OS user reaching limend's socket (made 0666
// here) sees and answers only its own asks and cannot change the policy.
func TestOtherUserPeer(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to run a process as another user (uid 65534) against limend's socket")
	}
	l, env := startWithHook(t)
	owned := decideAsk(t, l.Client.API, "make deploy-owned", "")
	// limend's owner is a trusted gateway by default: it queues an ask for
	// nobody, which nobody may answer.
	nobodys := decideAsk(t, l.Client.API, "make deploy-nobodys", "nobody")
	// Let uid 65534 reach the socket and run a copy of the test binary.
	for dir := filepath.Dir(l.Config.Socket); ; dir = filepath.Dir(dir) {
		if strings.HasPrefix(dir, os.TempDir()+"/") {
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("uid 65534 cannot reach the socket: %s is not searchable by others (set TMPDIR to a directory under one that is)", dir)
		}
		if dir == "/" {
			break
		}
	}
	if err := os.Chmod(l.Config.Socket, 0o666); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(filepath.Dir(l.Config.Socket), "doors.test")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	nobody := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	// The other user's client trusts limend's uid on purpose (clients
	// believe only their own uid's limend unless told otherwise).
	got := play(t, "other-user", append(env, envAsk+"="+owned, envOwnAsk+"="+nobodys, "HOME=/", "LIMEN_SERVER_UID="+strconv.Itoa(os.Getuid())), nobody, bin)
	want := map[string]string{
		"decide":          "OK",
		"await-own":       "OK",
		"await-owners":    "PermissionDenied",
		"list":            "OK",
		"history":         "OK",
		"history-of-root": "PermissionDenied",
		"answer-owners":   "PermissionDenied",
		"answer-own":      "OK",
		// The same process, once it has called Decide, is a runtime.
		"answer-after-decide": "PermissionDenied: answers come from a person",
		"get-policy":          "OK",
		"set-policy":          "PermissionDenied: only limend's owner (uid 0",
	}
	for call, w := range want {
		if !strings.HasPrefix(got[call], w) {
			t.Errorf("uid 65534's %s = %q; want %q", call, got[call], w)
		}
	}
	for _, line := range strings.Split(got["listed"]+"\n"+got["history-user"], "\n") {
		if line != "" && !strings.HasSuffix(line, "nobody") && !strings.HasSuffix(line, "65534") {
			t.Errorf("uid 65534 saw %q; want only its own asks and decisions", line)
		}
	}
	if got["listed"] == "" || got["history-user"] == "" {
		t.Errorf("uid 65534 saw none of its own: listed %q, history %q", got["listed"], got["history-user"])
	}
	if r, err := l.Client.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: owned, Timeout: durationpb.New(time.Millisecond)}); err != nil || r.GetState() != limenv1.AskState_ASK_STATE_PENDING {
		t.Errorf("the owner's ask after uid 65534 tried = %v, %v; want still pending", r, err)
	}
}

func decideAsk(t *testing.T, c limenv1.DecisionServiceClient, command, user string) string {
	t.Helper()
	d, err := c.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{User: user, Tool: "Bash", InputJson: fmt.Sprintf(`{"command":%q}`, command)}})
	if err != nil || d.GetDecision().GetAskId() == "" {
		t.Fatalf("Decide(%s) = %v, %v; want an ask", command, d, err)
	}
	return d.GetDecision().GetAskId()
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// TestDetachedCallerCannotAnswer: a process that left every process tree
// and terminal (reparented to init, no controlling terminal above it) is
// refused the person's calls, naming what detached it; the person's own
// process is not.
func TestDetachedCallerCannotAnswer(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh:", err)
	}
	l, env := startWithHook(t)
	ask := decideAsk(t, l.Client.API, "make deploy-detached", "")
	got := play(t, "detacher", append(env, envAsk+"="+ask), &syscall.SysProcAttr{Setsid: true}, "")
	if got["detached-parent"] == "" {
		t.Fatalf("the detached process did not run: %v", got)
	}
	if p, err := peercred.ReadProc(os.Getpid()); err == nil && p.TTY != 0 {
		t.Skip("the test runs on a terminal, which its children would inherit")
	}
	if !strings.HasPrefix(got["answer"], "PermissionDenied: answers come from a person") || !strings.Contains(got["answer"], "detached from every terminal") {
		t.Errorf("the detached process's answer = %q; want refused as detached", got["answer"])
	}
	got = play(t, "person", append(env, envAsk+"="+ask), nil, "")
	if got["answer"] != "OK: " {
		t.Fatalf("the person's answer = %q; want OK", got["answer"])
	}
}
