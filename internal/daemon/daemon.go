// Package daemon assembles limend: it opens the store, builds the service,
// listens on the Unix socket (and, opted in, loopback TCP), and stops
// gracefully. cmd/limend only turns flags into a Config; tests start the
// same daemon on a temporary socket.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/limenhq/limen/internal/hookapi"
	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/peercred"
	"github.com/limenhq/limen/internal/server"
	"github.com/limenhq/limen/internal/service"
	"github.com/limenhq/limen/internal/web"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
)

// Config is everything limend can be told. Flags override LIMEN_*
// environment variables, which override DefaultConfig.
type Config struct {
	// Socket is the gRPC Unix socket.
	Socket string
	// DB is the bbolt database file.
	DB string
	// Store is StoreBolt (the default when empty) or StoreEtcd.
	Store string
	// Etcd is how to reach etcd when Store is StoreEtcd.
	Etcd Etcd
	// TCP is an optional loopback address (such as 127.0.0.1:7411) served
	// in addition to the socket.
	TCP string
	// HTTPSocket is the Unix socket of the HTTP/JSON hook API (empty: not
	// served). limen-hook uses it because it must not link gRPC.
	HTTPSocket string
	// HTTPTCP is an optional loopback address (such as 127.0.0.1:7412) for
	// the HTTP/JSON hook API, for runtimes that call a URL ("type": "http"
	// hooks). Callers over TCP have no kernel identity: they are served as
	// the anonymous user.
	HTTPTCP string
	// ShutdownTimeout bounds a graceful stop before open calls are cut.
	ShutdownTimeout time.Duration
	// LockTimeout bounds the wait for the database lock held by another limend.
	LockTimeout time.Duration
	// Model replaces the predictor (tests inject faulty ones).
	Model server.Model
	// Limits bound each caller (zero fields take server.DefaultLimits).
	Limits server.Limits
	// TrustedGateways may act for other users; nil means limend's own user.
	TrustedGateways []string
	// TLS secures TCP; without it TCP is loopback-only and anonymous.
	TLS TLS
	// Inherited are listening sockets handed to limend (systemd socket
	// activation, see Activated) to serve instead of binding Socket and
	// HTTPSocket. limend leaves their files alone when it stops: they
	// belong to systemd, which keeps listening on them for the next start.
	Inherited Inherited
	// LogWriteFault, if set, fails every commit of the decision log while
	// it returns an error, as a full disk would (tests; see
	// store.Options.WriteFault).
	LogWriteFault func() error
	// Web is the web app (--web-addr and its flags); an empty Addr is off.
	Web web.Config
	// Upstream, when its Addr is set, runs limend on the laptop side of a
	// team: no store, every call forwarded to a team replica (upstream.go).
	Upstream Upstream
	// ServeUpstream, when its Addr is set, serves the laptops' limends on
	// a replica (upstream.go).
	ServeUpstream ServeUpstream
}

// DefaultConfig returns the configuration limend runs with when given no
// flags: the socket under $XDG_RUNTIME_DIR/limen and the database under
// $XDG_DATA_HOME/limen (or their fallbacks).
func DefaultConfig() (Config, error) {
	sock, err := paths.Socket()
	if err != nil {
		return Config{}, err
	}
	db, err := paths.DB()
	if err != nil {
		return Config{}, err
	}
	httpSock, err := paths.HTTPSocket()
	if err != nil {
		return Config{}, err
	}
	return Config{Socket: sock, HTTPSocket: httpSock, DB: db, ShutdownTimeout: 5 * time.Second, LockTimeout: time.Second}, nil
}

// Daemon is a running limend.
type Daemon struct {
	cfg    Config
	log    *slog.Logger
	store  store.Backend
	svc    *server.Server
	up     *server.Upstream // instead of svc, in upstream mode (upstream.go)
	upConn *grpc.ClientConn // up's connection to the team replica
	grpc   *grpc.Server
	health *health.Server
	lis    []net.Listener
	// http serves the hook API on httpLis (the Unix socket first).
	http    *http.Server
	httpLis []net.Listener
	tcp     *grpc.Server // the TCP listener's server, with its own credentials
	tcpLis  net.Listener
	upSrv   *grpc.Server // serves the laptops' limends on upLis (--upstream-listen)
	upLis   net.Listener
	web     *web.App // the web app, when cfg.Web.Addr is set (web.go)
	// owned are the socket files limend bound itself, removed on stop.
	owned []string

	serveErr chan error
	stopOnce sync.Once

	// healthMu orders the health updates of Start and of the batcher.
	healthMu  sync.Mutex
	started   bool  // Start got to the end
	logFailed error // the decision log's failure, while it fails
}

// updateHealth applies change and then reports SERVING once Start is done
// and while the decision log can be written, NOT_SERVING otherwise, for
// the whole server and for the DecisionService alike.
func (d *Daemon) updateHealth(change func()) {
	d.healthMu.Lock()
	defer d.healthMu.Unlock()
	change()
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if d.started && d.logFailed == nil {
		st = healthpb.HealthCheckResponse_SERVING
	}
	d.health.SetServingStatus("", st)
	d.health.SetServingStatus(limenv1.DecisionService_ServiceDesc.ServiceName, st)
}

// logHealth is the store's report that the decision log started failing
// or recovered: logged once each way, and shown on health.
func (d *Daemon) logHealth(h store.LogHealth) {
	if h.Err != nil {
		d.log.Error("limen cannot write its decision log (disk full?): every allow is ask until it can; health is NOT_SERVING",
			"db", d.cfg.DB, "records_unwritten", h.Unwritten, "records_dropped", h.Dropped, "err", h.Err)
	} else {
		d.log.Warn("the decision log can be written again: allows resume and health is SERVING",
			"db", d.cfg.DB, "records_written_late", h.Unwritten, "records_dropped", h.Dropped)
	}
	d.updateHealth(func() { d.logFailed = h.Err })
}

// Start opens the store and starts serving. It returns once the daemon
// accepts calls, or with an error that says what to do.
func Start(cfg Config, log *slog.Logger) (*Daemon, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.TCP != "" {
		if err := checkTCP(cfg.TCP, cfg.TLS); err != nil {
			return nil, err
		}
	}
	if cfg.HTTPTCP != "" {
		if err := checkLoopback("--http-tcp", cfg.HTTPTCP); err != nil {
			return nil, err
		}
	}
	if cfg.Upstream.Addr != "" {
		if err := checkUpstream(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.ServeUpstream.Addr != "" {
		if err := checkServeUpstream(cfg); err != nil {
			return nil, err
		}
	}
	if err := checkPrivate(cfg); err != nil {
		return nil, err
	}
	if cfg.Inherited.GRPC != nil {
		if err := checkInherited(cfg.Inherited.GRPC, cfg.Socket, "--socket", service.GRPCSocketName); err != nil {
			return nil, err
		}
	}
	if cfg.Inherited.HTTP != nil {
		if err := checkInherited(cfg.Inherited.HTTP, cfg.HTTPSocket, "--http-socket", service.HTTPSocketName); err != nil {
			return nil, err
		}
	}
	// The store first: its lock tells a second limend to go away before it
	// touches the first one's socket.
	_, statErr := os.Stat(cfg.DB)
	newDB := errors.Is(statErr, fs.ErrNotExist)
	d := &Daemon{cfg: cfg, log: log, serveErr: make(chan error, 4), health: health.NewServer()}
	d.updateHealth(func() {})
	var st store.Backend
	var err error
	switch cfg.Store {
	case "", StoreBolt:
		if cfg.Upstream.Addr != "" {
			newDB = false // the team replica keeps everything: no store here
			break
		}
		st, err = store.Open(cfg.DB, store.Options{LockTimeout: cfg.LockTimeout, OnLogHealth: d.logHealth, WriteFault: cfg.LogWriteFault})
	case StoreEtcd:
		newDB = false // no file of ours to remove on a refused start
		st, err = openEtcd(cfg.Etcd, d.logHealth)
	default:
		err = fmt.Errorf("--store %q: limend runs on %q (a file, the default) or %q (a team's cluster)", cfg.Store, StoreBolt, StoreEtcd)
	}
	if err != nil {
		return nil, err // store.Open names the operation and the file
	}
	d.store = st
	fail := func(err error) (*Daemon, error) {
		for _, l := range append(d.lis, d.httpLis...) {
			l.Close()
		}
		for _, l := range []net.Listener{d.tcpLis, d.upLis} {
			if l != nil {
				l.Close()
			}
		}
		// gRPC starts its stream workers with the server, not with Serve.
		for _, g := range []*grpc.Server{d.grpc, d.tcp, d.upSrv} {
			if g != nil {
				g.Stop()
			}
		}
		if d.svc != nil {
			d.svc.Stop()
		}
		if d.upConn != nil {
			d.upConn.Close()
		}
		if st != nil {
			st.Close()
		}
		if newDB {
			os.Remove(cfg.DB) // a refused start leaves nothing behind
		}
		return nil, err
	}
	self := server.NewSelf([]string{cfg.Socket, cfg.HTTPSocket}, cfg.DB, os.Getpid())
	if cfg.Store == StoreEtcd {
		// With limend's etcd client key an agent could write answers and
		// policy past limend: reading it is a secret read, changing it a
		// control.
		for _, f := range []string{cfg.Etcd.Cert, cfg.Etcd.Key, cfg.Etcd.CA} {
			if a, err := filepath.Abs(f); f != "" && err == nil {
				self.Keys = append(self.Keys, a)
				self.Files = append(self.Files, a)
			}
		}
	}
	self.Keys = append(self.Keys, webKeys(cfg)...) // web.go
	self.Files = append(self.Files, webKeys(cfg)...)
	var api limenv1.DecisionServiceServer
	if cfg.Upstream.Addr != "" {
		if d.upConn, err = dialUpstream(cfg.Upstream); err != nil {
			return fail(err)
		}
		d.up = server.NewUpstream(server.UpstreamOptions{Conn: d.upConn, Addr: cfg.Upstream.Addr, Timeout: cfg.Upstream.Timeout, Logger: log, Limits: cfg.Limits})
		api = d.up
	} else {
		d.svc, err = server.New(server.Options{Store: st, Model: cfg.Model, Logger: log, Limits: cfg.Limits, TrustedGateways: cfg.TrustedGateways,
			Self: self})
		if err != nil {
			return fail(err)
		}
		api = d.svc
	}
	d.grpc = grpc.NewServer(server.ServerOptions(log, peercred.Credentials())...)
	healthpb.RegisterHealthServer(d.grpc, d.health)
	limenv1.RegisterDecisionServiceServer(d.grpc, api)
	reflection.Register(d.grpc)
	if cfg.TCP != "" {
		if d.tcp, err = newTCPServer(cfg.TLS, log); err != nil {
			return fail(err)
		}
		healthpb.RegisterHealthServer(d.tcp, d.health)
		limenv1.RegisterDecisionServiceServer(d.tcp, d.svc)
		reflection.Register(d.tcp)
	}
	if cfg.ServeUpstream.Addr != "" {
		if d.upSrv, err = newUpstreamServer(cfg.TLS, cfg.ServeUpstream, log); err != nil {
			return fail(err)
		}
		healthpb.RegisterHealthServer(d.upSrv, d.health)
		limenv1.RegisterDecisionServiceServer(d.upSrv, d.svc)
		if d.upLis, err = net.Listen("tcp", cfg.ServeUpstream.Addr); err != nil {
			return fail(fmt.Errorf("listen on --upstream-listen %s: %w", cfg.ServeUpstream.Addr, err))
		}
	}

	unix := cfg.Inherited.GRPC
	if unix == nil {
		if unix, err = listenUnix(cfg.Socket); err != nil {
			return fail(err)
		}
		d.owned = append(d.owned, cfg.Socket)
	}
	d.lis = append(d.lis, unix)
	if cfg.TCP != "" {
		tcp, err := net.Listen("tcp", cfg.TCP)
		if err != nil {
			return fail(fmt.Errorf("listen on %s: %w", cfg.TCP, err))
		}
		d.tcpLis = tcp
	}
	if l := cfg.Inherited.HTTP; l != nil {
		d.httpLis = append(d.httpLis, l)
	} else if cfg.HTTPSocket != "" {
		l, err := listenUnix(cfg.HTTPSocket)
		if err != nil {
			return fail(err)
		}
		d.httpLis = append(d.httpLis, l)
		d.owned = append(d.owned, cfg.HTTPSocket)
	}
	if cfg.HTTPTCP != "" {
		l, err := net.Listen("tcp", cfg.HTTPTCP)
		if err != nil {
			return fail(fmt.Errorf("listen on %s: %w", cfg.HTTPTCP, err))
		}
		d.httpLis = append(d.httpLis, l)
	}
	for _, l := range d.lis {
		go func() { d.serveErr <- d.grpc.Serve(l) }()
	}
	if d.tcpLis != nil {
		go func() { d.serveErr <- d.tcp.Serve(d.tcpLis) }()
	}
	if d.upLis != nil {
		go func() { d.serveErr <- d.upSrv.Serve(d.upLis) }()
	}
	if err := d.startWeb(); err != nil {
		return fail(err)
	}
	d.http = hookapi.NewServer(hookapi.New(api, log), log)
	for _, l := range d.httpLis {
		go func() {
			if err := d.http.Serve(l); !errors.Is(err, http.ErrServerClosed) {
				d.serveErr <- err
			}
		}()
	}
	d.updateHealth(func() { d.started = true })
	log.Info("limend is serving", "socket", cfg.Socket, "http_socket", cfg.HTTPSocket, "db", cfg.DB, "tcp", cfg.TCP, "http_tcp", cfg.HTTPTCP,
		"socket_activated", cfg.Inherited.GRPC != nil || cfg.Inherited.HTTP != nil, "upstream", cfg.Upstream.Addr, "upstream_listen", cfg.ServeUpstream.Addr)
	return d, nil
}

// Socket returns the Unix socket path.
func (d *Daemon) Socket() string { return d.cfg.Socket }

// HTTPAddrs returns the addresses of the HTTP/JSON hook API, the Unix
// socket first.
func (d *Daemon) HTTPAddrs() []net.Addr {
	out := make([]net.Addr, len(d.httpLis))
	for i, l := range d.httpLis {
		out[i] = l.Addr()
	}
	return out
}

// Addrs returns the addresses served, the Unix socket first.
func (d *Daemon) Addrs() []net.Addr {
	out := make([]net.Addr, len(d.lis))
	for i, l := range d.lis {
		out[i] = l.Addr()
	}
	if d.tcpLis != nil {
		out = append(out, d.tcpLis.Addr())
	}
	return out
}

// UpstreamAddr returns the address of --upstream-listen, or nil.
func (d *Daemon) UpstreamAddr() net.Addr {
	if d.upLis == nil {
		return nil
	}
	return d.upLis.Addr()
}

// Store returns the daemon's bbolt store (tests and benchmarks look inside
// it), or nil when it runs on another (see Backend).
func (d *Daemon) Store() *store.Store {
	s, _ := d.store.(*store.Store)
	return s
}

// Backend returns the daemon's store, whichever it is.
func (d *Daemon) Backend() store.Backend { return d.store }

// Stop stops serving: health turns NOT_SERVING, waiting Await and
// WatchPending calls are told the daemon is going away, open calls get until
// ctx is done (or ShutdownTimeout) to finish, then the store is flushed and
// closed. Stop is safe to call more than once.
func (d *Daemon) Stop(ctx context.Context) error {
	var err error
	d.stopOnce.Do(func() {
		d.health.Shutdown()
		if d.svc != nil {
			d.svc.Stop()
		} else {
			d.up.Stop()
		}
		timeout := d.cfg.ShutdownTimeout
		if timeout <= 0 {
			timeout = 5 * time.Second
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		stopped := make(chan struct{})
		go func() {
			var tcp sync.WaitGroup
			if d.tcp != nil {
				tcp.Go(d.tcp.GracefulStop)
			}
			if d.upSrv != nil {
				tcp.Go(d.upSrv.GracefulStop)
			}
			d.grpc.GracefulStop()
			tcp.Wait()
			close(stopped)
		}()
		httpStopped := make(chan struct{})
		go func() {
			d.http.Shutdown(ctx)
			close(httpStopped)
		}()
		select {
		case <-stopped:
		case <-ctx.Done():
			d.log.Warn("graceful stop timed out; closing open calls")
			d.grpc.Stop()
			if d.tcp != nil {
				d.tcp.Stop()
			}
			if d.upSrv != nil {
				d.upSrv.Stop()
			}
			<-stopped
		}
		<-httpStopped // Shutdown returns by ctx's end at the latest
		d.http.Close()
		d.stopWeb(ctx)
		if d.store != nil {
			err = d.store.Close()
		}
		if d.upConn != nil {
			d.upConn.Close()
		}
		for _, path := range d.owned {
			os.Remove(path)
		}
		d.log.Info("limend stopped")
	})
	return err
}

// Kill stops at once without waiting for open calls (a second Ctrl-C).
func (d *Daemon) Kill() {
	d.grpc.Stop()
	if d.tcp != nil {
		d.tcp.Stop()
	}
	if d.upSrv != nil {
		d.upSrv.Stop()
	}
	d.http.Close()
}

// Err returns a channel that receives an error if serving fails.
func (d *Daemon) Err() <-chan error { return d.serveErr }

// listenUnix creates the socket with care: a directory it has to create
// is made 0700 (one that exists, such as /tmp, is left as it is: the
// socket's own mode and the peer's credentials guard limend, and
// checkPrivate has refused one that others could write unless it is
// sticky), a stale socket from a crashed limend is replaced, a live one or
// anything that is not a socket is left alone, and the socket itself is
// 0600.
func listenUnix(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create socket directory: %w", err)
		}
		if err := os.Chmod(dir, 0o700); err != nil { // whatever the umask
			return nil, fmt.Errorf("restrict socket directory %s to its owner: %w", dir, err)
		}
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket: limend does not replace it; remove it, or pass another path", path)
		}
		c, err := net.DialTimeout("unix", path, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("another limend is already serving on %s: stop it first, or pass another path", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
		}
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("restrict socket %s to its owner: %w", path, err)
	}
	return l, nil
}

// checkPrivate refuses a database, socket or credential file that another
// user owns or could change, directories on the way included (see
// paths.CheckPrivate): a database planted in a shared directory, or a
// socket directory someone else can write, would hand limen's decisions to
// that user.
func checkPrivate(cfg Config) error {
	checks := []struct {
		path string
		use  paths.Use
	}{
		{cfg.DB, paths.Use{What: "database", Flag: "--db"}},
		{cfg.Socket, paths.Use{What: "socket", Flag: "--socket"}},
		{cfg.HTTPSocket, paths.Use{What: "hook API socket", Flag: "--http-socket"}},
		{cfg.TLS.Cert, paths.Use{What: "TLS certificate", Flag: "--tls-cert", ReadOnly: true}},
		{cfg.TLS.Key, paths.Use{What: "TLS key", Flag: "--tls-key", ReadOnly: true}},
		{cfg.TLS.ClientCA, paths.Use{What: "client CA", Flag: "--tls-client-ca", ReadOnly: true}},
		{cfg.TLS.TokenFile, paths.Use{What: "token file", Flag: "--token-file", ReadOnly: true}},
	}
	for _, c := range checks {
		if c.path == "" {
			continue
		}
		if err := paths.CheckPrivate(c.path, c.use); err != nil {
			return err
		}
	}
	return nil
}

// checkLoopback refuses a TCP address that is not on this machine: TCP
// without TLS is only allowed on loopback.
func checkLoopback(flag, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: %w: use host:port, such as 127.0.0.1:7411", flag, addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return errors.New(flag + " " + addr + ": limend serves plaintext TCP only on loopback (127.0.0.1 or [::1]); use the Unix socket for anything else")
	}
	return nil
}
