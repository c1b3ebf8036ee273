package daemon

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/server"
)

// Upstream runs limend on the laptop side of a team (limend --upstream):
// it keeps no store, serves the person's agents on the usual local
// sockets, and forwards every call to the team replica at Addr over
// mutual TLS (server.Upstream). The client certificate's common name is
// the team's user this limend acts for.
type Upstream struct {
	// Addr is the team replica's --upstream-listen address (host:port).
	Addr string
	// Cert and Key are this limend's client certificate (its CN names the
	// team's user), CA the authority that signed the replica's
	// certificate (PEM).
	Cert, Key, CA string
	// Timeout bounds each forwarded Decide (server.DefaultUpstreamTimeout
	// when zero): past it the verdict is ask.
	Timeout time.Duration
}

// ServeUpstream is the replica's side of the laptops' limends
// (--upstream-listen): a TCP listener over TLS (the server certificate of
// --tls-cert and --tls-key) that requires a client certificate signed by
// ClientCA and serves its caller as the team's user that certificate's
// common name names: that user's asks and decisions only, like a person
// on the replica's socket.
type ServeUpstream struct {
	Addr     string
	ClientCA string
}

// upstreamKeepalive is how often a laptop's limend pings its replica
// while calls are open.
const upstreamKeepalive = 10 * time.Second

// upstreamMethods are the calls a laptop's limend may make on a replica;
// the rest (the policy's changes, forgetting, pairing) are made on a
// replica by whoever the team lets.
var upstreamMethods = map[string]bool{
	"Decide": true, "Await": true, "Answer": true, "ListPending": true, "WatchPending": true,
	"GetPolicy": true, "ListPolicyVersions": true, "History": true, "Stats": true,
	"ExplainDecision": true, "GetCluster": true, "GetVersion": true,
}

// checkUpstream refuses an upstream mode that would be incomplete or that
// would serve callers limend cannot name to the team.
func checkUpstream(cfg Config) error {
	u := cfg.Upstream
	if _, _, err := net.SplitHostPort(u.Addr); err != nil {
		return fmt.Errorf("--upstream %q: %w: give the team replica's --upstream-listen address, such as limen.team.example:7413", u.Addr, err)
	}
	if u.Cert == "" || u.Key == "" || u.CA == "" {
		return errors.New("--upstream needs --upstream-cert, --upstream-key and --upstream-ca: limend talks to the team's limen only over mutual TLS, and the certificate names the team's user it acts for")
	}
	for _, f := range []struct{ path, what, flag string }{
		{u.Cert, "upstream certificate", "--upstream-cert"}, {u.Key, "upstream key", "--upstream-key"}, {u.CA, "upstream CA", "--upstream-ca"},
	} {
		// Whoever could swap the key or the CA could speak for the person.
		if err := paths.CheckPrivate(f.path, paths.Use{What: f.what, Flag: f.flag, ReadOnly: true}); err != nil {
			return err
		}
	}
	switch {
	case cfg.Store == StoreEtcd:
		return errors.New("--upstream and --store etcd exclude each other: a limend in upstream mode keeps no store (the team replica it forwards to runs on etcd)")
	case cfg.TCP != "" || cfg.HTTPTCP != "":
		return errors.New("--tcp and --http-tcp are not served in upstream mode: their callers have no kernel identity, and this limend acts for its owner alone")
	case cfg.Web.Addr != "":
		return errors.New("--web-addr is not served in upstream mode: answer in the team's web app, or in limenctl tui on this machine")
	case cfg.ServeUpstream.Addr != "":
		return errors.New("--upstream and --upstream-listen exclude each other: a limend either forwards to a team replica or is one")
	}
	return nil
}

// dialUpstream connects to the team replica. grpc.NewClient connects
// lazily: a replica that is down makes each call fail (and Decide ask),
// not limend's start.
func dialUpstream(u Upstream) (*grpc.ClientConn, error) {
	cert, err := tls.LoadX509KeyPair(u.Cert, u.Key)
	if err != nil {
		return nil, fmt.Errorf("load --upstream-cert/--upstream-key: %w", err)
	}
	pool, err := certPool(u.CA, "--upstream-ca")
	if err != nil {
		return nil, err
	}
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS13}
	// Keepalives find a replica that is paused or cut off with the
	// connection open: the calls that wait (Await, WatchPending) fail
	// then, rather than hang on it (etcd's client needed the same,
	// TestPausedLeaderUnderAnswers).
	conn, err := grpc.NewClient(u.Addr, grpc.WithTransportCredentials(credentials.NewTLS(conf)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: upstreamKeepalive, Timeout: 5 * time.Second}))
	if err != nil {
		return nil, fmt.Errorf("--upstream %s: %w", u.Addr, err)
	}
	return conn, nil
}

func certPool(file, flag string) (*x509.CertPool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", flag, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s %s holds no PEM certificate", flag, file)
	}
	return pool, nil
}

// checkServeUpstream refuses a laptops' listener that could not name its
// callers, or whose certificates would also make them admin gateways.
func checkServeUpstream(cfg Config) error {
	s := cfg.ServeUpstream
	if _, _, err := net.SplitHostPort(s.Addr); err != nil {
		return fmt.Errorf("--upstream-listen %q: %w: use host:port, such as :7413", s.Addr, err)
	}
	if cfg.TLS.Cert == "" || cfg.TLS.Key == "" {
		return errors.New("--upstream-listen serves over TLS: give the replica's certificate with --tls-cert and --tls-key")
	}
	if s.ClientCA == "" {
		return errors.New("--upstream-listen needs --upstream-client-ca: the authority that signs the laptops' certificates, whose common name names the team's user each acts for")
	}
	if cfg.TLS.ClientCA != "" {
		a, errA := os.ReadFile(s.ClientCA)
		b, errB := os.ReadFile(cfg.TLS.ClientCA)
		if s.ClientCA == cfg.TLS.ClientCA || (errA == nil && errB == nil && bytes.Equal(a, b)) {
			return errors.New("--upstream-client-ca and --tls-client-ca are the same authority: a laptop's certificate would then also be an admin gateway's on --tcp (reaching every user's asks); sign the laptops' certificates with a CA of their own")
		}
	}
	return nil
}

// upstreamUser is the team's user a laptop's certificate names: its
// common name, which must be a plain user name (a ':' would read as a
// gateway's, server.attributed).
func upstreamUser(ctx context.Context) (string, error) {
	name, ok := clientCertName(ctx) // tcp.go
	switch {
	case !ok:
		return "", status.Error(codes.Unauthenticated, "present a client certificate signed by the replica's --upstream-client-ca")
	case name == "" || strings.ContainsAny(name, ":/ \t\n") || len(name) > 64:
		return "", status.Errorf(codes.Unauthenticated, "the client certificate's common name %q is not a user name: its CN must name the team's user it acts for, such as CN=ana", name)
	}
	return name, nil
}

// newUpstreamServer is the gRPC server of --upstream-listen: each call
// runs as the user its client certificate names (server.WithWebCaller,
// channel "upstream"), with that user's reach. The laptop's limend has
// already refused an Answer from an agent's process tree; the replica
// cannot see that machine's processes, so it takes the certificate as the
// person's word.
func newUpstreamServer(t TLS, s ServeUpstream, log *slog.Logger) (*grpc.Server, error) {
	cert, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, fmt.Errorf("load --tls-cert/--tls-key: %w", err)
	}
	pool, err := certPool(s.ClientCA, "--upstream-client-ca")
	if err != nil {
		return nil, err
	}
	creds := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13})
	auth := func(ctx context.Context, method string) (context.Context, error) {
		if strings.HasPrefix(method, "/grpc.health.v1.Health/") {
			return ctx, nil
		}
		name, err := upstreamUser(ctx)
		if err != nil {
			return nil, err
		}
		short := method[strings.LastIndexByte(method, '/')+1:]
		if !strings.HasPrefix(method, "/limen.v1.DecisionService/") || !upstreamMethods[short] {
			return nil, status.Errorf(codes.PermissionDenied, "%s is not served to a laptop's limend: make it on a replica's socket or --tcp", short)
		}
		return server.WithWebCaller(ctx, server.WebCaller{User: name, Channel: "upstream"}), nil
	}
	return grpc.NewServer(server.ServerOptions(log, creds,
		// The laptops' keepalives (dialUpstream) are welcome.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: upstreamKeepalive / 2}),
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			ctx, err := auth(ctx, info.FullMethod)
			if err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			ctx, err := auth(ss.Context(), info.FullMethod)
			if err != nil {
				return err
			}
			return h(srv, &authedStream{ss, ctx})
		}),
	)...), nil
}
