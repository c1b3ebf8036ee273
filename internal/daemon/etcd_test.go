package daemon_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore/etcdtest"
)

// onEtcd starts limend with --store etcd on the cluster, under prefix.
func onEtcd(t *testing.T, c *etcdtest.Cluster, prefix string) *limentest.Limend {
	t.Helper()
	return limentest.Start(t, func(cfg *daemon.Config) {
		cfg.Store = daemon.StoreEtcd
		cfg.Etcd = daemon.Etcd{Endpoints: c.Endpoints(), Prefix: prefix}
	})
}

// TestLimendOnEtcd walks the decision loop with limend's state in a real
// etcd member: ask, Await, answer, learn; then a second limend on the same
// prefix (another machine of the team, or the same one restarted) has the
// pending ask, the history with the outcome, and the learned answer.
func TestLimendOnEtcd(t *testing.T) {
	c := etcdtest.Start(t, 1)
	a := onEtcd(t, c, "/team/")
	if a.Store() != nil || a.Backend() == nil {
		t.Fatalf("on etcd: Store() = %v, Backend() = %v; want no bbolt store and a backend", a.Store(), a.Backend())
	}

	first := decide(t, a.Client, bash("npm run test"))
	if first.GetVerdict() != limenv1.Verdict_VERDICT_ASK || first.GetAskId() == "" {
		t.Fatalf("a never-seen action = %v (ask id %q); want ask with an ask id", first.GetVerdict(), first.GetAskId())
	}
	awaited := make(chan *limenv1.AwaitResponse, 1)
	go func() {
		resp, _ := a.Client.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: first.GetAskId()})
		awaited <- resp
	}()
	ans, err := a.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: first.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE})
	if err != nil || ans.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("Answer approve = %v, %v; want allow", ans.GetVerdict(), err)
	}
	if resp := <-awaited; resp.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW || resp.GetState() != limenv1.AskState_ASK_STATE_ANSWERED {
		t.Fatalf("Await = %v; want allow, answered", resp)
	}
	if _, err := a.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: first.GetAskId(), Choice: limenv1.Choice_CHOICE_DENY}); err == nil {
		t.Error("a second answer to the same ask was accepted")
	}
	learned := dryDecide(t, a.Client, bash("npm run test"))
	if learned.GetP() <= first.GetP() {
		t.Errorf("after an approval p = %v (was %v); want higher", learned.GetP(), first.GetP())
	}
	pending := decide(t, a.Client, bash("terraform apply"))
	if pending.GetVerdict() != limenv1.Verdict_VERDICT_ASK || pending.GetAskId() == "" {
		t.Fatalf("terraform apply = %v (ask id %q); want a queued ask", pending.GetVerdict(), pending.GetAskId())
	}
	a.Client.Close()
	if err := a.Stop(t.Context()); err != nil {
		t.Fatalf("stop limend: %v", err)
	}

	b := onEtcd(t, c, "/team/")
	list, err := b.Client.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	if err != nil || len(list.GetAsks()) != 1 || list.GetAsks()[0].GetAskId() != pending.GetAskId() {
		t.Fatalf("pending on the second limend = %v, %v; want exactly ask %s", list.GetAsks(), err, pending.GetAskId())
	}
	hist, err := b.Client.API.History(t.Context(), &limenv1.HistoryRequest{AsksOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var outcome *limenv1.AskOutcome
	for _, d := range hist.GetDecisions() {
		if d.GetDecisionId() == first.GetDecisionId() {
			outcome = d.GetOutcome()
		}
	}
	if outcome.GetState() != limenv1.AskState_ASK_STATE_ANSWERED || outcome.GetChoice() != limenv1.Choice_CHOICE_APPROVE {
		t.Errorf("outcome of ask %s on the second limend = %v; want approved", first.GetDecisionId(), outcome)
	}
	// The same p, but for the decay of the answer's weight since.
	if again := decide(t, b.Client, bash("npm run test")); math.Abs(again.GetP()-learned.GetP()) > 1e-6 {
		t.Errorf("p on the second limend = %v; want %v, learned from the answer in etcd", again.GetP(), learned.GetP())
	}
	next, _ := store.ParseID(decide(t, b.Client, bash("ls")).GetDecisionId())
	if last, _ := store.ParseID(pending.GetDecisionId()); next <= last {
		t.Errorf("decision id %d on the second limend is not above %d", next, last)
	}
	ans, err = b.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: pending.GetAskId(), Choice: limenv1.Choice_CHOICE_DENY})
	if err != nil || ans.GetVerdict() != limenv1.Verdict_VERDICT_BLOCK {
		t.Errorf("answering on the second limend the ask the first queued = %v, %v; want block", ans.GetVerdict(), err)
	}
}

// TestEtcdRefusesPlaintextBeyondLoopback: --store etcd sends answers and
// policy to etcd, so it refuses plaintext off loopback, half a TLS setup,
// and no endpoints, each with the fix.
func TestEtcdRefusesPlaintextBeyondLoopback(t *testing.T) {
	tests := []struct {
		name string
		etcd daemon.Etcd
		want string
	}{
		{"no endpoints", daemon.Etcd{}, "needs --etcd-endpoints"},
		{"plaintext off loopback", daemon.Etcd{Endpoints: []string{"http://10.1.2.3:2379"}}, "not on loopback"},
		{"host:port off loopback", daemon.Etcd{Endpoints: []string{"127.0.0.1:2379", "etcd-2:2379"}}, "not on loopback"},
		{"half of TLS", daemon.Etcd{Endpoints: []string{"https://etcd-1:2379"}, Cert: "c.pem"}, "go together"},
		{"https without TLS", daemon.Etcd{Endpoints: []string{"https://127.0.0.1:2379"}}, "give --etcd-cert"},
		{"http with TLS", daemon.Etcd{Endpoints: []string{"http://etcd-1:2379"}, Cert: "c", Key: "k", CA: "ca"}, "use https://"},
		{"not a URL", daemon.Etcd{Endpoints: []string{"etcd-1"}}, "--etcd-endpoints \"etcd-1\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := daemon.Config{
				Socket: filepath.Join(dir, "run", "limend.sock"), DB: filepath.Join(dir, "data", "limen.db"),
				ShutdownTimeout: time.Second, Store: daemon.StoreEtcd, Etcd: tt.etcd,
			}
			d, err := daemon.Start(cfg, nil)
			if err == nil {
				d.Stop(t.Context())
				t.Fatal("limend started")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q; want it to say %q", err, tt.want)
			}
		})
	}
	dir := t.TempDir()
	_, err := daemon.Start(daemon.Config{Socket: filepath.Join(dir, "s.sock"), DB: filepath.Join(dir, "l.db"), Store: "postgres"}, nil)
	if err == nil || !strings.Contains(err.Error(), `"bbolt"`) {
		t.Errorf("--store postgres = %v; want a refusal naming the stores", err)
	}
}

// TestLimendOnEtcdOverMutualTLS: with --etcd-cert, --etcd-key and
// --etcd-ca limend reaches a member that serves only TLS and requires a
// client certificate.
func TestLimendOnEtcdOverMutualTLS(t *testing.T) {
	certs := etcdtest.NewCerts(t)
	c := etcdtest.StartTLS(t, 1, &certs)
	l := limentest.Start(t, func(cfg *daemon.Config) {
		cfg.Store = daemon.StoreEtcd
		cfg.Etcd = daemon.Etcd{Endpoints: c.Endpoints(), Cert: certs.ClientCert, Key: certs.ClientKey, CA: certs.CA}
	})
	asked := decide(t, l.Client, bash("npm run test"))
	if asked.GetAskId() == "" {
		t.Fatalf("Decide over TLS to etcd = %v with no ask id; want a queued ask", asked.GetVerdict())
	}
	if _, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: asked.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
		t.Fatalf("Answer over TLS to etcd: %v", err)
	}
	if !strings.HasPrefix(c.Endpoints()[0], "https://") {
		t.Errorf("endpoint %s is not TLS", c.Endpoints()[0])
	}
}
