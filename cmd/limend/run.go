package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/paths"
	"github.com/limenhq/limen/internal/server"
	"github.com/limenhq/limen/internal/version"
	"github.com/limenhq/limen/store"
)

const usage = `limend decides whether an AI agent may run an action: allow, ask a person, or
block. Agent runtimes (through limen's Claude Code hook, MCP gate or Go
client) call it before every shell command, file edit and tool call.

With no flags it listens on a Unix socket under $XDG_RUNTIME_DIR/limen/
(only you can open it) and keeps its database under $XDG_DATA_HOME/limen/.
Every flag has a LIMEN_* environment variable; a flag wins over the variable.

Who may do what. limend knows a caller by how it connected, never by what it
says about itself:
  - you (limend's own uid, over the Unix socket): everything, including
    changing the policy (limenctl policy set/edit/rollback);
  - an admin gateway (--tcp with TLS and --tls-client-ca or --token-file):
    everything, for any user it names; its answers settle asks but do not
    teach the predictor, since they name no person;
  - another OS user on the socket: decides, and sees, awaits and answers its
    own asks and history only; --trusted-gateways lets one act for others;
    it never changes the policy;
  - anyone limend cannot identify (plain TCP on loopback, --http-tcp): may
    Decide and Await its own asks, nothing else: no history, no pending
    asks, no answers, no policy;
  - a laptop's limend on a team replica's --upstream-listen (TLS, with a
    client certificate signed by --upstream-client-ca): acts as the team
    user that certificate's common name (CN) names, with that user's reach
    only: decides, and sees, awaits and answers that user's asks.
Answers and policy changes come from a person: limend refuses them from any
process that runs under an agent runtime it has seen (the process that
started limen-hook or mcp-gate), so answer in limenctl tui in your own
terminal. docs/SECURITY.md says what that check does not stop.

A team (docs/scale-out.md): replicas run --store etcd; a person's laptop
runs limend --upstream HOST:PORT with --upstream-cert/--upstream-key (a
client certificate whose CN is the person's team user name, such as CN=ana,
signed by the replica's --upstream-client-ca) and --upstream-ca. It keeps no
database and serves the person's agents on the usual sockets: it checks each
caller as above (only its owner; no answers from an agent's processes) and
forwards decisions, waits, answers and pending asks to the replica. When the
replica cannot be reached or is slower than --upstream-timeout, every
decision is ask, and an answer is refused, never half-stored.

Under systemd (limenctl service install) the sockets belong to systemd's
socket units, which start limend on the first call that reaches them:
limend takes them (named limend and limend-http by FileDescriptorName=)
instead of binding its own, and leaves them in place when it stops.

Stop it with Ctrl-C (or SIGTERM): open calls get a few seconds to finish and
the database is closed cleanly. A second Ctrl-C exits at once.`

func run(args []string) int {
	defaults, err := daemon.DefaultConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "limend:", err)
		return 1
	}
	cfg := defaults
	var debugAddr string
	var webOpts *webFlags
	logOpts := logOptions{format: "text", maxSizeMB: 20}
	cmd := &cobra.Command{
		Use:   "limend",
		Short: "limen's decision daemon",
		Long:  usage,
		Example: `  limend                                  # socket and database in the default places
  limend --socket /tmp/limen.sock --db /tmp/limen.db
  LIMEN_LOG_LEVEL=debug limend
  limend --tcp 127.0.0.1:7411             # also serve loopback TCP: anonymous, Decide and Await only
  limend --tcp :7411 --tls-cert s.pem --tls-key s.key --tls-client-ca ca.pem   # another machine, mutual TLS
  limend --http-tcp 127.0.0.1:7412        # hook API on loopback, for Claude Code "type": "http" hooks
  limend --web-addr 127.0.0.1:7443        # the web app; pair a browser with limenctl pair
  limend --store etcd --etcd-endpoints ... --tls-cert s.pem --tls-key s.key --upstream-listen :7413 --upstream-client-ca laptops-ca.pem
  limend --upstream limen.team.example:7413 --upstream-cert ana.pem --upstream-key ana-key.pem --upstream-ca team-ca.pem`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get().String(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, set := os.LookupEnv(paths.EnvHTTPSocket); !cmd.Flags().Changed("http-socket") && !set {
				cfg.HTTPSocket = paths.HTTPSocketFor(cfg.Socket) // follows --socket
			}
			if err := checkLimits(cfg.Limits); err != nil {
				return err
			}
			if err := webOpts.apply(&cfg); err != nil {
				return err
			}
			log, closeLog, err := newLogger(logOpts, os.Stderr)
			if err != nil {
				return err
			}
			defer closeLog()
			cfg.Limits.Burst = int(2 * cfg.Limits.Rate)
			// Under systemd the sockets may already exist and be handed
			// over (limenctl service install); otherwise limend binds them.
			if cfg.Inherited, err = daemon.Activated(); err != nil {
				return err
			}
			defer cfg.Inherited.Close()
			err = serve(cfg, debugAddr, log)
			if err != nil && logOpts.file != "" {
				log.Error("limend stopped on an error", "err", err) // stderr has it too
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Socket, "socket", defaults.Socket, "Unix socket to serve gRPC on (env LIMEN_SOCKET)")
	f.StringVar(&cfg.DB, "db", defaults.DB, "bbolt database file (env LIMEN_DB)")
	f.StringVar(&cfg.Store, "store", daemon.StoreBolt, "where limend keeps its state: bbolt (the --db file) or etcd (a team's cluster, shared by several limend servers; see --etcd-*) (env LIMEN_STORE)")
	f.StringSliceVar(&cfg.Etcd.Endpoints, "etcd-endpoints", nil, "with --store etcd: the etcd members' client URLs, comma-separated; beyond loopback they must be https:// with --etcd-cert, --etcd-key and --etcd-ca (env LIMEN_ETCD_ENDPOINTS)")
	f.StringVar(&cfg.Etcd.Cert, "etcd-cert", "", "limend's client certificate for etcd (PEM; mutual TLS) (env LIMEN_ETCD_CERT)")
	f.StringVar(&cfg.Etcd.Key, "etcd-key", "", "the private key of --etcd-cert (env LIMEN_ETCD_KEY)")
	f.StringVar(&cfg.Etcd.CA, "etcd-ca", "", "the CA that signed the etcd members' certificates (env LIMEN_ETCD_CA)")
	f.StringVar(&cfg.Etcd.Prefix, "etcd-prefix", "", "the key prefix of limen's state in etcd (default /limen/) (env LIMEN_ETCD_PREFIX)")
	f.IntVar(&cfg.Etcd.LogRecords, "etcd-log-records", 1_000_000, "with --store etcd: the most decision records kept in etcd; older ones are deleted (env LIMEN_ETCD_LOG_RECORDS)")
	f.DurationVar(&cfg.Etcd.LogRetention, "etcd-log-retention", 90*24*time.Hour, "with --store etcd: decision records older than this are deleted from etcd (env LIMEN_ETCD_LOG_RETENTION)")
	f.Int64Var(&cfg.Etcd.LogMaxDB, "etcd-log-max-db", 1<<30, "with --store etcd: past this size of etcd's database (bytes) no decision record is written, so answers keep room below etcd's quota; allows are asks meanwhile (env LIMEN_ETCD_LOG_MAX_DB)")
	f.DurationVar(&cfg.Etcd.GrantTTL, "etcd-grant-ttl", 24*time.Hour, "with --store etcd: how long an approval for the session holds on every limend; etcd ends it then (env LIMEN_ETCD_GRANT_TTL)")
	f.DurationVar(&cfg.Etcd.Staleness, "etcd-staleness", 5*time.Second, "with --store etcd: after this long without reaching a quorum of etcd, every allow is ask and health NOT_SERVING (env LIMEN_ETCD_STALENESS)")
	f.StringVar(&cfg.TCP, "tcp", defaults.TCP, "also serve gRPC over TCP: a loopback address such as 127.0.0.1:7411, whose callers are anonymous and may only Decide and Await their own asks; or any address with --tls-*, whose authenticated callers are admin gateways (env LIMEN_TCP)")
	f.StringVar(&cfg.HTTPSocket, "http-socket", defaults.HTTPSocket, "Unix socket of the HTTP/JSON hook API that limen-hook uses (default: beside --socket, as NAME-http.sock); empty turns it off (env LIMEN_HTTP_SOCKET)")
	f.StringVar(&cfg.HTTPTCP, "http-tcp", defaults.HTTPTCP, "also serve the hook API on this loopback address, such as 127.0.0.1:7412, for \"type\": \"http\" hooks; its callers are anonymous (env LIMEN_HTTP_TCP)")
	f.StringVar(&logOpts.level, "log-level", "info", "debug, info, warn or error (env LIMEN_LOG_LEVEL)")
	f.StringVar(&logOpts.format, "log-format", logOpts.format, "text (key=value) or json, one record a line (env LIMEN_LOG_FORMAT)")
	f.StringVar(&logOpts.file, "log-file", "", "log to this file instead of stderr (the journal under systemd), rotated at --log-max-size with 5 old files kept (env LIMEN_LOG_FILE)")
	f.IntVar(&logOpts.maxSizeMB, "log-max-size", logOpts.maxSizeMB, "rotate --log-file at this many megabytes (env LIMEN_LOG_MAX_SIZE)")
	f.StringVar(&debugAddr, "debug-addr", "", "serve Go profiles (pprof) on this loopback address, such as 127.0.0.1:6060 (env LIMEN_DEBUG_ADDR)")
	f.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", defaults.ShutdownTimeout, "how long open calls get to finish on stop (env LIMEN_SHUTDOWN_TIMEOUT)")
	f.StringVar(&cfg.TLS.Cert, "tls-cert", "", "serve --tcp over TLS with this certificate (PEM); needed beyond loopback (env LIMEN_TLS_CERT)")
	f.StringVar(&cfg.TLS.Key, "tls-key", "", "the private key of --tls-cert (env LIMEN_TLS_KEY)")
	f.StringVar(&cfg.TLS.ClientCA, "tls-client-ca", "", "require TCP clients to present a certificate signed by this CA (mutual TLS; env LIMEN_TLS_CLIENT_CA)")
	f.StringVar(&cfg.TLS.TokenFile, "token-file", "", "or require 'authorization: Bearer <token>' with the token in this file (env LIMEN_TOKEN_FILE)")
	webOpts = addWebFlags(f, &cfg) // webflags.go
	f.StringVar(&cfg.Upstream.Addr, "upstream", "", "run on a person's machine for a team: keep no database and forward every call to the team replica at this host:port (its --upstream-listen) over mutual TLS; unreachable means ask (env LIMEN_UPSTREAM)")
	f.StringVar(&cfg.Upstream.Cert, "upstream-cert", "", "with --upstream: this limend's client certificate (PEM); its common name (CN) is the team user it acts for (env LIMEN_UPSTREAM_CERT)")
	f.StringVar(&cfg.Upstream.Key, "upstream-key", "", "with --upstream: the private key of --upstream-cert; whoever reads it can act as that user on the team (env LIMEN_UPSTREAM_KEY)")
	f.StringVar(&cfg.Upstream.CA, "upstream-ca", "", "with --upstream: the CA that signed the replica's --tls-cert (env LIMEN_UPSTREAM_CA)")
	f.DurationVar(&cfg.Upstream.Timeout, "upstream-timeout", server.DefaultUpstreamTimeout, "with --upstream: a decision the replica has not returned by then is ask; keep it below the hook's timeout (env LIMEN_UPSTREAM_TIMEOUT)")
	f.StringVar(&cfg.ServeUpstream.Addr, "upstream-listen", "", "on a team replica: serve laptops' limends (--upstream) on this address over TLS (--tls-cert, --tls-key), each as the user its client certificate's CN names (env LIMEN_UPSTREAM_LISTEN)")
	f.StringVar(&cfg.ServeUpstream.ClientCA, "upstream-client-ca", "", "with --upstream-listen: the CA that signs laptops' certificates; it must not be --tls-client-ca, whose certificates are admin gateways (env LIMEN_UPSTREAM_CLIENT_CA)")
	limits := server.DefaultLimits()
	f.IntVar(&cfg.Limits.MaxPendingPerUser, "max-pending", limits.MaxPendingPerUser, "pending asks per user; beyond it decisions are still ask but not queued (env LIMEN_MAX_PENDING)")
	f.IntVar(&cfg.Limits.MaxAwaits, "max-awaits", limits.MaxAwaits, "Await calls waiting at once (env LIMEN_MAX_AWAITS)")
	f.Float64Var(&cfg.Limits.Rate, "rate", limits.Rate, "decisions per second per user, with a burst of twice that (env LIMEN_RATE)")
	// A list's default is read here, not below: pflag appends to a list
	// set once already, so --trusted-gateways would add to the variable's.
	trusted := server.DefaultTrustedGateways()
	if v := os.Getenv("LIMEN_TRUSTED_GATEWAYS"); v != "" {
		trusted = strings.Split(v, ",")
	}
	f.StringSliceVar(&cfg.TrustedGateways, "trusted-gateways", trusted,
		"OS users (or uids) that may decide, see and answer for other users, but not change the policy (env LIMEN_TRUSTED_GATEWAYS, comma-separated)")
	// Every flag takes LIMEN_<FLAG> as its default, here and only here
	// (limend's sockets and database also follow internal/paths'
	// XDG locations); an explicit flag still wins.
	var envErr error
	f.VisitAll(func(fl *pflag.Flag) {
		name := "LIMEN_" + strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_"))
		v, ok := os.LookupEnv(name)
		if !ok || fl.Name == "help" || fl.Name == "trusted-gateways" || fl.DefValue == v {
			return
		}
		if err := fl.Value.Set(v); err != nil && envErr == nil {
			envErr = fmt.Errorf("%w: %s=%q is not a valid --%s: give %s such as %s", errUsage, name, v, fl.Name, kindOf(fl.Value.Type()), fl.DefValue)
		}
		fl.DefValue = fl.Value.String()
	})
	if envErr != nil {
		fmt.Fprintln(os.Stderr, "limend:", envErr)
		return 2
	}
	cmd.SetVersionTemplate("limend {{.Version}}\n")
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "limend:", err)
		if errors.Is(err, errUsage) || strings.Contains(err.Error(), "flag") || strings.Contains(err.Error(), "unknown command") {
			return 2
		}
		return 1
	}
	return 0
}

var errUsage = errors.New("usage")

// kindOf words a pflag value type for a person.
func kindOf(typ string) string {
	switch typ {
	case "float64", "int":
		return "a number"
	case "duration":
		return "a duration"
	case "bool":
		return "true or false,"
	case "stringSlice":
		return "a comma-separated list"
	}
	return "a " + typ
}

// checkLimits refuses limits that would switch a protection off by
// accident: a rate of 0 or below used to mean "no limit".
func checkLimits(l server.Limits) error {
	switch {
	case math.IsNaN(l.Rate) || math.IsInf(l.Rate, 0) || l.Rate <= 0:
		return fmt.Errorf("%w: --rate %v (LIMEN_RATE): decisions per second per user must be above 0, such as 2000; for a benchmark give a large number", errUsage, l.Rate)
	case l.MaxPendingPerUser < 1:
		return fmt.Errorf("%w: --max-pending %d (LIMEN_MAX_PENDING): must be 1 or more; past it an ask is not queued and the runtime asks in its own way", errUsage, l.MaxPendingPerUser)
	case l.MaxAwaits < 1:
		return fmt.Errorf("%w: --max-awaits %d (LIMEN_MAX_AWAITS): must be 1 or more, or nobody can wait for an answer", errUsage, l.MaxAwaits)
	}
	return nil
}

func serve(cfg daemon.Config, debugAddr string, log *slog.Logger) error {
	for _, g := range cfg.TrustedGateways {
		if _, err := strconv.ParseUint(g, 10, 32); err == nil {
			continue // a uid
		}
		if _, err := user.Lookup(g); err != nil {
			// Not fatal (a directory service may not answer yet), but a
			// typo here silently trusts nobody.
			log.Warn("a trusted gateway is neither a user on this machine nor a uid, so it matches no caller", "gateway", g, "err", err)
		}
	}
	if debugAddr != "" {
		stop, err := serveDebug(debugAddr, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	// Catch the signals before serving: a SIGTERM that came after the
	// first call was served but before Notify would kill limend outright
	// (systemd stopping a limend it has just started, say).
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	// The hangup of the terminal limend was started from (`limend &`, then
	// the terminal closed) is no reason to stop deciding: every hook call
	// would become "limend is unreachable". It is logged and ignored; stop
	// limend with SIGTERM or Ctrl-C.
	hangups := make(chan os.Signal, 1)
	signal.Notify(hangups, syscall.SIGHUP)
	defer signal.Stop(hangups)
	go func() {
		for range hangups {
			log.Info("ignoring SIGHUP (a closed terminal): limend keeps running; stop it with SIGTERM")
		}
	}()
	d, err := daemon.Start(cfg, log)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("%w\nhint: only one limend can use a database; stop the other one or pass --db", err)
		}
		return err
	}
	select {
	case sig := <-signals:
		log.Info("stopping; press Ctrl-C again to exit at once", "signal", sig.String())
	case err := <-d.Err():
		log.Error("serving failed", "err", err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- d.Stop(context.Background()) }()
	select {
	case err := <-stopped:
		return err
	case <-signals:
		d.Kill()
		log.Warn("second signal: exiting without waiting")
		os.Exit(1)
	case <-time.After(cfg.ShutdownTimeout + 5*time.Second):
		return errors.New("stop took too long")
	}
	return nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("%w: --log-level %q: use debug, info, warn or error", errUsage, s)
	}
	return l, nil
}
