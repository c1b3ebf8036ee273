package daemon

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/etcdstore"
)

// The stores limend can run on (Config.Store, --store).
const (
	// StoreBolt is the embedded bbolt file at Config.DB: one person, no
	// configuration, the default.
	StoreBolt = "bbolt"
	// StoreEtcd is a team's etcd cluster (Config.Etcd), shared by several
	// limend servers (store/etcdstore).
	StoreEtcd = "etcd"
)

// Etcd says how limend reaches etcd with --store etcd. Beyond loopback it
// talks to etcd only over mutual TLS: only limend servers hold etcd
// credentials, and answers and policy travel on that connection.
type Etcd struct {
	// Endpoints are the etcd members' client URLs (http://127.0.0.1:2379,
	// https://etcd-1:2379, or host:port).
	Endpoints []string
	// Cert and Key are limend's client certificate for etcd, CA the
	// certificate authority that signed the members' certificates (PEM).
	Cert, Key, CA string
	// Prefix is where limen's keys live (default etcdstore.DefaultPrefix).
	Prefix string
	// Staleness is how long limend may go without reaching a quorum
	// before every allow is ask and health NOT_SERVING (default
	// etcdstore's, 5s).
	Staleness time.Duration
	// GrantTTL is how long an approval for the session holds, on every
	// limend (default etcdstore's, 24h): etcd deletes it with its lease.
	GrantTTL time.Duration
	// LogRecords, LogRetention and LogMaxDB bound the decision log in
	// etcd (etcdstore.Options; defaults 1,000,000 records, 90 days, 1 GiB).
	LogRecords   int
	LogRetention time.Duration
	LogMaxDB     int64
}

func (e Etcd) tls() bool { return e.Cert != "" || e.Key != "" || e.CA != "" }

// checkEtcd refuses an etcd setup that would send answers and policy in
// plaintext beyond loopback, or that is missing a piece.
func checkEtcd(e Etcd) error {
	if len(e.Endpoints) == 0 {
		return errors.New("--store etcd needs --etcd-endpoints: the client URLs of the etcd members, such as https://etcd-1:2379,https://etcd-2:2379")
	}
	if e.tls() && (e.Cert == "" || e.Key == "" || e.CA == "") {
		return errors.New("--etcd-cert, --etcd-key and --etcd-ca go together: limend talks to etcd over mutual TLS, so give all three")
	}
	for _, ep := range e.Endpoints {
		host, scheme, err := endpointHost(ep)
		if err != nil {
			return fmt.Errorf("--etcd-endpoints %q: %w: use a URL such as https://etcd-1:2379, or host:port", ep, err)
		}
		if e.tls() {
			if scheme == "http" {
				return fmt.Errorf("--etcd-endpoints %q is http:// but --etcd-cert is given: use https:// (or host:port) so the connection is TLS", ep)
			}
			continue
		}
		if scheme == "https" {
			return fmt.Errorf("--etcd-endpoints %q is https://: give --etcd-cert, --etcd-key and --etcd-ca for it", ep)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("--etcd-endpoints %q is not on loopback: beyond loopback limend talks to etcd only over mutual TLS; give --etcd-cert, --etcd-key and --etcd-ca (and https:// endpoints)", ep)
		}
	}
	return nil
}

// endpointHost returns the host and scheme ("" for host:port) of an etcd
// endpoint.
func endpointHost(ep string) (host, scheme string, err error) {
	if !strings.Contains(ep, "://") {
		host, _, err = net.SplitHostPort(ep)
		return host, "", err
	}
	u, err := url.Parse(ep)
	if err != nil {
		return "", "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", "", fmt.Errorf("scheme %q is neither http nor https", u.Scheme)
	}
	if u.Hostname() == "" {
		return "", "", errors.New("no host")
	}
	return u.Hostname(), u.Scheme, nil
}

// etcdBackend is the etcd store with the client it runs on: closing it
// closes both.
type etcdBackend struct {
	*etcdstore.Store
	cli *clientv3.Client
}

func (b etcdBackend) Close() error {
	err := b.Store.Close()
	return errors.Join(err, b.cli.Close())
}

// openEtcd connects to etcd and opens the store there.
func openEtcd(e Etcd, onHealth func(store.LogHealth)) (store.Backend, error) {
	if err := checkEtcd(e); err != nil {
		return nil, err
	}
	cfg := clientv3.Config{
		Endpoints:   e.Endpoints,
		DialTimeout: 5 * time.Second,
		// A member that is paused (not gone) would hold calls until their
		// deadline; keepalives find it out.
		DialKeepAliveTime:    5 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		Logger:               zap.NewNop(),
	}
	if e.tls() {
		conf, err := etcdTLS(e)
		if err != nil {
			return nil, err
		}
		cfg.TLS = conf
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to etcd %s: %w", strings.Join(e.Endpoints, ","), err)
	}
	st, err := etcdstore.Open(context.Background(), etcdstore.Options{Client: cli, Prefix: e.Prefix, OnLogHealth: onHealth, Staleness: e.Staleness, GrantTTL: e.GrantTTL,
		LogRecords: e.LogRecords, LogRetention: e.LogRetention, LogMaxDB: e.LogMaxDB})
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w (etcd endpoints %s)", err, strings.Join(e.Endpoints, ","))
	}
	return etcdBackend{Store: st, cli: cli}, nil
}

// etcdTLS is the mutual TLS configuration for etcd.
func etcdTLS(e Etcd) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(e.Cert, e.Key)
	if err != nil {
		return nil, fmt.Errorf("load --etcd-cert/--etcd-key: %w", err)
	}
	pem, err := os.ReadFile(e.CA)
	if err != nil {
		return nil, fmt.Errorf("read --etcd-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--etcd-ca %s holds no PEM certificate", e.CA)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
