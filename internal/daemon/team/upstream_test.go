package team_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
)

// team is a replica's certificates and a CA for laptops' limends.
type team struct {
	server   *etcdtest.CA // signs the replicas' certificates
	laptops  *etcdtest.CA // --upstream-client-ca
	cert     string
	key      string
	endpoint []string
}

func newTeam(t *testing.T, c *etcdtest.Cluster) *team {
	tm := &team{server: etcdtest.NewCA(t, "team server CA"), laptops: etcdtest.NewCA(t, "team laptops CA"), endpoint: c.Endpoints()}
	tm.cert, tm.key = tm.server.Issue(t, "replica", x509.ExtKeyUsageServerAuth)
	return tm
}

// replica starts a limend on the team's etcd that serves laptops on a
// loopback port.
func (tm *team) replica(t *testing.T) *limentest.Limend {
	return limentest.Start(t, func(cfg *daemon.Config) {
		cfg.Store = daemon.StoreEtcd
		cfg.Etcd = daemon.Etcd{Endpoints: tm.endpoint, Prefix: "/team/"}
		cfg.TLS = daemon.TLS{Cert: tm.cert, Key: tm.key}
		cfg.ServeUpstream = daemon.ServeUpstream{Addr: "127.0.0.1:0", ClientCA: tm.laptops.File}
		cfg.ShutdownTimeout = time.Second
	})
}

// laptop starts a limend in upstream mode that forwards to addr with the
// given client certificate, its hook API on a socket of its own.
func laptop(t *testing.T, addr, cert, key, ca string) *limentest.Limend {
	return limentest.Start(t, func(cfg *daemon.Config) {
		cfg.HTTPSocket = filepath.Join(filepath.Dir(cfg.Socket), "limend-http.sock")
		cfg.Upstream = daemon.Upstream{Addr: addr, Cert: cert, Key: key, CA: ca, Timeout: 500 * time.Millisecond}
	})
}

// asMe is a with no user: a laptop's limend decides for its owner.
func asMe(a *limenv1.Action) *limenv1.Action { a.User = ""; return a }

// hookCall posts Claude Code's PreToolUse JSON to a limend's hook API, as
// limen-hook does, and returns the verdict header and the body.
func hookCall(t *testing.T, l *limentest.Limend, call string) (string, string) {
	t.Helper()
	sock := l.HTTPAddrs()[0].String()
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	defer c.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://limend/v1/hooks/claude-code", strings.NewReader(call))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.Header.Get("Limen-Verdict"), string(body)
}

func hookJSON(tool, input string) string {
	return `{"session_id":"s1","cwd":"/home/ana/shop","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + input + `,"tool_use_id":"t1"}`
}

// TestLaptopUpstream: a person's limend in upstream mode on a 3-member
// cluster with two replicas. Its agents' hook calls get the team's
// decisions; an ask it queued is listed and answered on another replica
// and wakes its Await; its own answers settle the team's asks; it sees
// only its user's asks.
func TestLaptopUpstream(t *testing.T) {
	c := etcdtest.Start(t, 3)
	tm := newTeam(t, c)
	a, b := tm.replica(t), tm.replica(t)
	a.SetPolicy(t, strings.Replace(strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Read"]`, 1),
		"block = [", `block = ["Bash(shred *)", `, 1))
	cert, key := tm.laptops.Issue(t, "ana", x509.ExtKeyUsageClientAuth)
	l := laptop(t, a.UpstreamAddr().String(), cert, key, tm.server.File)

	// The policy set on A reaches both replicas through etcd.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for decide(t, b, readme()).GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		<-tick.C
	}
	verdict, body := hookCall(t, l, hookJSON("Read", `{"file_path":"/home/ana/shop/README.md"}`))
	if verdict != "allow" || !strings.Contains(body, `"permissionDecision":"allow"`) {
		t.Fatalf("hook Read through the laptop = %q %s; want the team's allow (its rule)", verdict, body)
	}
	verdict, body = hookCall(t, l, hookJSON("Bash", `{"command":"shred -u notes.txt"}`))
	if verdict != "deny" || !strings.Contains(body, "Bash(shred *)") {
		t.Fatalf("hook shred through the laptop = %q %s; want the team's block, naming its rule", verdict, body)
	}

	// An ask queued through the laptop is the team's: B lists it, as ana's.
	asked := decide(t, l, asMe(bash("npm run build")))
	if asked.GetAskId() == "" || asked.GetAction().GetUser() != "ana" {
		t.Fatalf("npm run build through the laptop = %v (user %q); want an ask queued for ana, the certificate's user", asked.GetVerdict(), asked.GetAction().GetUser())
	}
	for !listed(t, b, asked.GetAskId()) {
		<-tick.C
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	awaited := make(chan *limenv1.AwaitResponse, 1)
	go func() {
		resp, err := l.Client.API.Await(ctx, &limenv1.AwaitRequest{AskId: asked.GetAskId()})
		if err != nil {
			t.Errorf("Await on the laptop: %v", err)
		}
		awaited <- resp
	}()
	if _, err := b.Client.API.Answer(ctx, &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE, Note: "fine"}); err != nil {
		t.Fatal(err)
	}
	if resp := <-awaited; resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("the laptop's Await after B approved = %v; want allow", resp)
	}

	// The laptop's own answer settles the team's ask, as ana's.
	asked = decide(t, l, asMe(bash("make deploy")))
	if asked.GetAskId() == "" {
		t.Fatalf("make deploy through the laptop = %v; want a queued ask", asked.GetVerdict())
	}
	if _, err := l.Client.API.Answer(ctx, &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_DENY}); err != nil {
		t.Fatalf("answer through the laptop: %v", err)
	}
	got, err := b.Client.API.Await(ctx, &limenv1.AwaitRequest{AskId: asked.GetAskId()})
	if err != nil || got.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK || got.GetOutcome().GetAnsweredBy() != "ana" || got.GetOutcome().GetChannel() != "upstream" {
		t.Fatalf("Await on B after the laptop denied = %v, %v; want block, answered by ana over upstream", got, err)
	}

	// Another user's ask is not the laptop's to see.
	bo := decide(t, a, &limenv1.Action{User: "bo", Agent: "test", Session: "s1", Tool: "Bash", InputJson: `{"command":"npm test"}`, Cwd: "/home/bo/shop"})
	if bo.GetAskId() == "" {
		t.Fatalf("bo's npm test = %v; want a queued ask", bo.GetVerdict())
	}
	for !listed(t, b, bo.GetAskId()) {
		<-tick.C
	}
	if listed(t, l, bo.GetAskId()) {
		t.Errorf("the laptop (ana) lists bo's ask %s", bo.GetAskId())
	}
	if _, err := l.Client.API.Answer(ctx, &limenv1.AnswerRequest{AskId: bo.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("the laptop (ana) answering bo's ask = %v; want PermissionDenied", err)
	}
	// The laptop keeps nothing of its own: no database was made.
	if _, err := os.Stat(l.Config.DB); err == nil {
		t.Errorf("the laptop made a database at %s; upstream mode keeps none", l.Config.DB)
	}
}

// TestLaptopFailsClosed: with the replica gone, hung, or refusing the
// laptop's certificate, a decision the team would allow is ask (no id),
// and an answer is refused, saying it is not stored.
func TestLaptopFailsClosed(t *testing.T) {
	c := etcdtest.Start(t, 3)
	tm := newTeam(t, c)
	a := tm.replica(t)
	a.SetPolicy(t, strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Read"]`, 1))
	cert, key := tm.laptops.Issue(t, "ana", x509.ExtKeyUsageClientAuth)
	addr := a.UpstreamAddr().String()
	l := laptop(t, addr, cert, key, tm.server.File)
	if d := decide(t, l, asMe(readme())); d.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("Read through the laptop with the replica up = %v (%s); want allow", d.GetVerdict(), d.GetReason())
	}
	asked := decide(t, l, asMe(bash("npm run build")))
	if asked.GetAskId() == "" {
		t.Fatalf("npm run build = %v; want a queued ask", asked.GetVerdict())
	}
	failsClosed := func(t *testing.T, l *limentest.Limend, why string) {
		t.Helper()
		d := decide(t, l, asMe(readme()))
		if d.GetVerdict() != limenv1.Verdict_VERDICT_ASK || d.GetAskId() != "" || d.GetDecidedBy() != limenv1.Decider_DECIDER_FAILSAFE || !strings.Contains(d.GetReason(), why) {
			t.Errorf("Read through the laptop = %v ask id %q by %v (%s); want ask without an id, failing closed, saying %q", d.GetVerdict(), d.GetAskId(), d.GetDecidedBy(), d.GetReason(), why)
		}
		verdict, body := hookCall(t, l, hookJSON("Read", `{"file_path":"/home/ana/shop/README.md"}`))
		if verdict != "ask" {
			t.Errorf("hook Read through the laptop = %q %s; want ask", verdict, body)
		}
	}

	t.Run("wrong certificate", func(t *testing.T) {
		other := etcdtest.NewCA(t, "not the team's")
		cert, key := other.Issue(t, "ana", x509.ExtKeyUsageClientAuth)
		failsClosed(t, laptop(t, addr, cert, key, tm.server.File), "team's limen")
		// Without a certificate the replica answers nothing at all.
		pool := x509.NewCertPool()
		pem, _ := os.ReadFile(tm.server.File)
		pool.AppendCertsFromPEM(pem)
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool})))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if resp, err := limenv1.NewDecisionServiceClient(conn).Decide(ctx, &limenv1.DecideRequest{Action: readme()}); err == nil {
			t.Errorf("Decide on the replica's --upstream-listen without a client certificate = %v; want refused", resp)
		}
	})
	t.Run("a certificate that names no user", func(t *testing.T) {
		cert, key := tm.laptops.Issue(t, "gateway:x", x509.ExtKeyUsageClientAuth)
		failsClosed(t, laptop(t, addr, cert, key, tm.server.File), "not a user name")
	})
	t.Run("replica hung", func(t *testing.T) {
		// A listener that takes connections and never answers, as a
		// paused replica: the laptop's own deadline is what ends the call.
		hung, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer hung.Close()
		go func() {
			var held []net.Conn
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for {
				c, err := hung.Accept()
				if err != nil {
					return
				}
				held = append(held, c)
			}
		}()
		h := laptop(t, hung.Addr().String(), cert, key, tm.server.File)
		start := time.Now()
		failsClosed(t, h, "did not answer within")
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("a hung replica held the laptop's calls %v; want about its 500ms deadline each", took)
		}
	})
	t.Run("replica stopped", func(t *testing.T) {
		if err := a.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		failsClosed(t, l, "cannot reach your team's limen")
		_, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE})
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "not stored") {
			t.Errorf("Answer through the laptop with the replica stopped = %v; want Unavailable, saying it is not stored", err)
		}
		if _, err := l.Client.API.ListPending(t.Context(), &limenv1.ListPendingRequest{}); status.Code(err) != codes.Unavailable {
			t.Errorf("ListPending through the laptop with the replica stopped = %v; want Unavailable, not an empty list", err)
		}
	})
	// The answer that was refused was not half-stored: the ask is still
	// pending in etcd, for a replica started again.
	again := tm.replica(t)
	if !listed(t, again, asked.GetAskId()) {
		t.Errorf("ask %s is not pending after the refused answer; want it untouched", asked.GetAskId())
	}
}

// TestMain lets the test binary play an agent's process (agentMain) for
// TestLaptopAgentCannotAnswer.
func TestMain(m *testing.M) {
	if sock := os.Getenv("LIMEN_TEST_AGENT_SOCKET"); sock != "" {
		os.Exit(agentMain(sock, os.Getenv("LIMEN_TEST_AGENT_ASK")))
	}
	os.Exit(m.Run())
}

// agentMain is a process an agent runtime started: it decides through the
// laptop's socket, as limen-hook does, then tries to answer ask itself. It
// prints the answer's gRPC code.
func agentMain(sock, ask string) int {
	c, err := client.Dial(sock)
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.API.Decide(ctx, &limenv1.DecideRequest{Action: asMe(readme())}); err != nil {
		fmt.Println("decide:", err)
		return 1
	}
	_, err = c.API.Answer(ctx, &limenv1.AnswerRequest{AskId: ask, Choice: limenv1.Choice_CHOICE_APPROVE})
	fmt.Println(status.Code(err), status.Convert(err).Message())
	return 0
}

// TestLaptopAgentCannotAnswer: the laptop's limend keeps its own guard
// before forwarding. A process that decided through it (as an agent's
// hook does) is refused an Answer there, and the team's ask stays pending.
func TestLaptopAgentCannotAnswer(t *testing.T) {
	c := etcdtest.Start(t, 1)
	tm := newTeam(t, c)
	a := tm.replica(t)
	cert, key := tm.laptops.Issue(t, "ana", x509.ExtKeyUsageClientAuth)
	l := laptop(t, a.UpstreamAddr().String(), cert, key, tm.server.File)
	asked := decide(t, l, asMe(bash("npm run build")))
	if asked.GetAskId() == "" {
		t.Fatalf("npm run build = %v; want a queued ask", asked.GetVerdict())
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LIMEN_TEST_AGENT_SOCKET="+l.Socket(), "LIMEN_TEST_AGENT_ASK="+asked.GetAskId())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the agent's process: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), codes.PermissionDenied.String()) || !strings.Contains(string(out), "answers come from a person") {
		t.Errorf("an agent's process answering through the laptop: %s; want PermissionDenied, answers come from a person", out)
	}
	if !listed(t, a, asked.GetAskId()) {
		t.Errorf("ask %s is not pending on the team after the agent's refused answer", asked.GetAskId())
	}
	// The person, in their own terminal (here: the test, limend's owner
	// outside any agent), may.
	if _, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
		t.Errorf("the person's answer through the laptop: %v", err)
	}
}

// TestUpstreamSetupRefused: an upstream mode or a laptops' listener that
// is missing a piece, or whose laptops' CA is also the admin gateways',
// is refused at start with the flag to fix.
func TestUpstreamSetupRefused(t *testing.T) {
	ca := etcdtest.NewCA(t, "ca")
	cert, key := ca.Issue(t, "replica", x509.ExtKeyUsageServerAuth)
	for _, tt := range []struct {
		name string
		cfg  func(*daemon.Config)
		want string
	}{
		{"upstream without a certificate", func(c *daemon.Config) { c.Upstream = daemon.Upstream{Addr: "127.0.0.1:7413", CA: ca.File} }, "--upstream-cert"},
		{"upstream with a store of its own", func(c *daemon.Config) {
			c.Upstream = daemon.Upstream{Addr: "127.0.0.1:7413", Cert: cert, Key: key, CA: ca.File}
			c.Store = daemon.StoreEtcd
		}, "keeps no store"},
		{"upstream with anonymous TCP", func(c *daemon.Config) {
			c.Upstream = daemon.Upstream{Addr: "127.0.0.1:7413", Cert: cert, Key: key, CA: ca.File}
			c.HTTPTCP = "127.0.0.1:0"
		}, "--http-tcp"},
		{"listener without a server certificate", func(c *daemon.Config) { c.ServeUpstream = daemon.ServeUpstream{Addr: "127.0.0.1:0", ClientCA: ca.File} }, "--tls-cert"},
		{"listener with the admin gateways' CA", func(c *daemon.Config) {
			c.TLS = daemon.TLS{Cert: cert, Key: key, ClientCA: ca.File}
			c.ServeUpstream = daemon.ServeUpstream{Addr: "127.0.0.1:0", ClientCA: ca.File}
		}, "a CA of their own"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := daemon.Config{Socket: filepath.Join(dir, "s.sock"), DB: filepath.Join(dir, "db")}
			tt.cfg(&cfg)
			d, err := daemon.Start(cfg, nil)
			if err == nil {
				d.Stop(t.Context())
				t.Fatalf("started; want refused, naming %s", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("refused with %q; want it to name %s", err, tt.want)
			}
		})
	}
}
