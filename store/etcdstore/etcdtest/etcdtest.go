// Package etcdtest starts real etcd members inside a test (etcd's embed
// package), on loopback, with their data in the test's temp directory:
// the etcd store's tests, and limend's, run against etcd itself, never a
// mock of it.
package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/pkg/v3/proxy"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Cluster is a running etcd cluster of embedded members.
type Cluster struct {
	t       testing.TB
	Members []*Member
}

// Member is one embedded etcd member.
type Member struct {
	Name string
	// ClientURL is where clients reach it (http://127.0.0.1:port).
	ClientURL string
	etcd      *embed.Etcd
	proxy     proxy.Server // in front of its peer port (StartProxied); nil otherwise
	stopped   bool
	closed    chan struct{} // closed once Stop's Close is done
}

// Start starts an n-member cluster and waits until every member is ready
// (has joined and the cluster has a leader). Members stop when the test
// ends. Heartbeats are 10ms and elections 100ms, so that a cluster is
// ready, and a lost leader replaced, in a fraction of a second.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	return StartTLS(t, n, nil)
}

// StartTLS is Start with the members' client URLs served over TLS with
// certs, requiring a client certificate signed by certs.CA (nil: plain
// http, as Start).
func StartTLS(t testing.TB, n int, certs *Certs) *Cluster {
	t.Helper()
	return startWith(t, n, certs, false)
}

// StartProxied is Start with a proxy in front of each member's peer
// port, so that a test can make one member slow (Member.DelayPeer).
func StartProxied(t testing.TB, n int) *Cluster {
	t.Helper()
	return startWith(t, n, nil, true)
}

func startWith(t testing.TB, n int, certs *Certs, proxied bool) *Cluster {
	t.Helper()
	var lastErr error
	for range 3 { // a port picked free may be taken before etcd binds it
		c, err := start(t, n, certs, proxied)
		if err == nil {
			return c
		}
		lastErr = err
	}
	t.Fatalf("start etcd: %v", lastErr)
	return nil
}

func start(t testing.TB, n int, certs *Certs, proxied bool) (*Cluster, error) {
	c := &Cluster{t: t}
	var peers []string
	cfgs := make([]*embed.Config, n)
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = t.TempDir()
		// Quiet: a member stopping logs its listeners' closing as errors.
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		// No fsync: the members share one process and one disk with the
		// rest of the tests, where an fsync can stall for seconds and a
		// leader with it. What a test shows survives here survives by
		// replication to a majority, not by one member's disk.
		cfg.UnsafeNoFsync = true
		cfg.TickMs, cfg.ElectionMs = 50, 500
		peer, client := freeURL(t), freeURL(t)
		if certs != nil {
			client.Scheme = "https"
			cfg.ClientTLSInfo = transport.TLSInfo{
				CertFile: certs.ServerCert, KeyFile: certs.ServerKey, TrustedCAFile: certs.CA, ClientCertAuth: true,
			}
		}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
		m := &Member{Name: cfg.Name, ClientURL: client.String()}
		if proxied {
			// The others reach this member at the proxy's address; it
			// listens behind it.
			front := freeURL(t)
			cfg.AdvertisePeerUrls = []url.URL{front}
			m.proxy = proxy.NewServer(proxy.ServerConfig{Logger: zap.NewNop(), From: url.URL{Scheme: "tcp", Host: front.Host}, To: url.URL{Scheme: "tcp", Host: peer.Host}})
			select {
			case <-m.proxy.Ready():
			case err := <-m.proxy.Error():
				c.stop()
				return nil, fmt.Errorf("proxy of member %s: %w", cfg.Name, err)
			}
			peer = front
		}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
		cfg.InitialClusterToken = t.Name()
		peers = append(peers, cfg.Name+"="+peer.String())
		cfgs[i] = cfg
		c.Members = append(c.Members, m)
	}
	for i, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(peers, ",")
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			c.stop()
			return nil, fmt.Errorf("start member %s: %w", cfg.Name, err)
		}
		c.Members[i].etcd = e
	}
	t.Cleanup(c.stop)
	for _, m := range c.Members {
		select {
		case <-m.etcd.Server.ReadyNotify():
		case err := <-m.etcd.Err():
			c.stop()
			return nil, fmt.Errorf("member %s: %w", m.Name, err)
		case <-time.After(20 * time.Second):
			c.stop()
			return nil, fmt.Errorf("member %s not ready after 20s", m.Name)
		}
	}
	// A new cluster decides its version once every member has told the
	// leader its own; a leader lost before that leaves the others unable
	// to serve writes until it is back. Real clusters are past it: wait.
	settled := time.NewTicker(5 * time.Millisecond)
	defer settled.Stop()
	deadline := time.After(20 * time.Second)
	for _, m := range c.Members {
		for m.etcd.Server.ClusterVersion() == nil {
			select {
			case <-settled.C:
			case <-deadline:
				c.stop()
				return nil, fmt.Errorf("member %s has no cluster version after 20s", m.Name)
			}
		}
	}
	return c, nil
}

// freeURL picks a loopback port that is free now.
func freeURL(t testing.TB) url.URL {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pick a port: %v", err)
	}
	defer l.Close()
	return url.URL{Scheme: "http", Host: l.Addr().String()}
}

// Endpoints are the client URLs of the members still running.
func (c *Cluster) Endpoints() []string {
	var out []string
	for _, m := range c.Members {
		if !m.stopped {
			out = append(out, m.ClientURL)
		}
	}
	return out
}

// Client returns a client of the given endpoints (every running member's
// if none), closed when the test ends.
func (c *Cluster) Client(endpoints ...string) *clientv3.Client {
	c.t.Helper()
	if len(endpoints) == 0 {
		endpoints = c.Endpoints()
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		c.t.Fatalf("etcd client: %v", err)
	}
	c.t.Cleanup(func() { cli.Close() })
	return cli
}

// Leader returns the member that leads the cluster now.
func (c *Cluster) Leader() *Member {
	for _, m := range c.Members {
		if !m.stopped && m.etcd.Server.Leader() == m.etcd.Server.MemberID() {
			return m
		}
	}
	return nil
}

// WaitLeader waits until the running members agree on a leader among
// them, and returns it. A write sent while the followers still follow a
// leader that is gone is lost with it and waits out its deadline (etcd
// does not retry it), so a test that stops the leader waits for the next
// one before it writes again.
func (c *Cluster) WaitLeader() *Member {
	c.t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for {
		if l := c.Leader(); l != nil && c.agree(l) {
			return l
		}
		select {
		case <-tick.C:
		case <-deadline:
			c.t.Fatal("etcd: no leader after 20s")
		}
	}
}

// agree reports whether every running member follows l.
func (c *Cluster) agree(l *Member) bool {
	for _, m := range c.Members {
		if !m.stopped && m.etcd.Server.Leader() != l.etcd.Server.MemberID() {
			return false
		}
	}
	return true
}

// Stop stops a member at once: its data stays in its directory, as after a
// crash of its machine. Its raft node stops now; its listeners close in
// the background (etcd waits for its clients' connections to drain), and
// the cluster's cleanup waits for that.
func (m *Member) Stop() {
	if !m.stopped {
		m.stopped = true
		m.etcd.Server.HardStop()
		m.closed = make(chan struct{})
		go func() {
			defer close(m.closed)
			m.etcd.Close()
		}()
	}
}

func (c *Cluster) stop() {
	for _, m := range c.Members {
		if m.etcd != nil {
			m.Stop()
		}
	}
	for _, m := range c.Members {
		if m.closed != nil {
			<-m.closed
		}
		if m.proxy != nil {
			m.proxy.Close()
		}
	}
}

// DelayPeer delays by d every byte this member sends its peers and every
// request they send it (a cluster started with StartProxied): its raft
// messages — acknowledgements of the leader's appends, votes, the
// proposals and read-index requests it forwards to the leader — arrive d
// late, which is how a member whose disk takes d to sync looks to the
// others. Its own disk and apply are not slowed. Zero removes the delay.
func (m *Member) DelayPeer(d time.Duration) {
	if d == 0 {
		m.proxy.UndelayRx()
		m.proxy.UndelayTx()
		return
	}
	m.proxy.DelayRx(d, 0)
	m.proxy.DelayTx(d, 0)
}

// IsLeader reports whether the member leads the cluster now.
func (m *Member) IsLeader() bool {
	return !m.stopped && m.etcd.Server.Leader() == m.etcd.Server.MemberID()
}
