package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/mcpgate"
)

// mcpGateOptions are mcp-gate's flags.
type mcpGateOptions struct {
	name       string
	askTimeout time.Duration
	logLevel   string
	http       httpGateFlags
}

func newMCPGateCmd(a *app) *cobra.Command {
	var o mcpGateOptions
	cmd := &cobra.Command{
		Use:   "mcp-gate [flags] -- SERVER_COMMAND [ARGS...] | mcp-gate --listen 127.0.0.1:PORT --upstream URL --name NAME [flags]",
		Short: "Run an MCP server behind limen: each tool call is decided first",
		Long: `mcp-gate stands between an MCP client and an MCP server. In its first form it
starts the MCP server given after "--" and speaks to the client that started
mcp-gate over stdio. In its second form it is a Streamable HTTP endpoint on
--listen that forwards to the remote server at --upstream; point the client
at http://127.0.0.1:PORT/mcp instead of the server's URL.

Every request and notification passes through as it was sent (the gate
keeps no MCP session of its own) except tools/call, which limend decides
first:

  allow   the call reaches the server
  block   it does not; the client gets a tool error with limen's reason
  ask     mcp-gate waits up to --ask-timeout for a person's answer in limen
          (limenctl answer ID --approve, or the TUI); no answer in time, a
          deny, or limend unreachable: the call does not reach the server

Tools are decided under Claude Code's names, mcp__<name>__<tool>, where
<name> is --name (default: the server command's base name), so policy rules
such as mcp__github__create_issue cover them.

Put it in front of the server in the MCP client's configuration: the
command becomes limenctl, and the server's command and arguments follow
"mcp-gate --". Logs go to stderr (stdout is the MCP stream).

Over HTTP the client's Authorization header goes to the upstream as sent,
and the upstream's 401 and WWW-Authenticate come back, so the client's own
login works; neither is logged or recorded. The gate listens on loopback
only, unless it serves TLS (--tls-cert, --tls-key); it refuses requests
from web pages of other origins (--allow-origin adds one). An upstream that
has not answered within --call-timeout has the call refused and cancelled.`,
		Example: `  limenctl mcp-gate -- npx -y @modelcontextprotocol/server-filesystem ~/src
  limenctl mcp-gate --name github --ask-timeout 30s -- github-mcp-server stdio

  # .mcp.json (Claude Code) or claude_desktop_config.json (Claude Desktop):
  {"mcpServers": {"github": {"command": "limenctl",
    "args": ["mcp-gate", "--name", "github", "--", "github-mcp-server", "stdio"]}}}

  # a remote server: run the gate, and give the client its URL
  limenctl mcp-gate --listen 127.0.0.1:8931 --upstream https://api.githubcopilot.com/mcp/ --name github
  {"mcpServers": {"github": {"type": "http", "url": "http://127.0.0.1:8931/mcp"}}}`,
		Args: func(cmd *cobra.Command, args []string) error { return o.checkArgs(cmd, args) },
		RunE: func(cmd *cobra.Command, args []string) error { return runMCPGate(cmd.Context(), a, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "the server's name in tool names, mcp__<name>__<tool> (default: the command's base name)")
	f.DurationVar(&o.askTimeout, "ask-timeout", mcpgate.DefaultAskTimeout, "how long a tool call waits for a person's answer to an ask; then it is refused")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error (logs go to stderr)")
	f.StringVar(&o.http.listen, "listen", "", "serve Streamable HTTP on this address, such as 127.0.0.1:8931 (with --upstream)")
	f.StringVar(&o.http.upstream, "upstream", "", "the remote MCP server's URL, such as https://api.example.com/mcp (with --listen)")
	f.StringVar(&o.http.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM); needed to listen on a non-loopback address")
	f.StringVar(&o.http.tlsKey, "tls-key", "", "the key of --tls-cert (PEM)")
	f.StringSliceVar(&o.http.origins, "allow-origin", nil, "a web origin allowed to call the HTTP gate besides loopback ones, such as https://app.example.com (repeatable)")
	f.DurationVar(&o.http.callTimeout, "call-timeout", mcpgate.DefaultCallTimeout, "how long the HTTP gate waits for the upstream's answer; then the call is refused and cancelled")
	return cmd
}

// checkArgs accepts either a server command after -- or --listen with
// --upstream.
func (o *mcpGateOptions) checkArgs(cmd *cobra.Command, args []string) error {
	if o.http.listen != "" || o.http.upstream != "" {
		if len(args) > 0 {
			return usagef("give either --listen and --upstream (a remote server) or a server command after --, not both")
		}
		if o.http.listen == "" || o.http.upstream == "" {
			return usagef("a remote server needs both --listen and --upstream, such as: limenctl mcp-gate --listen 127.0.0.1:8931 --upstream https://api.example.com/mcp --name example")
		}
		return nil
	}
	if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
		return usagef("give the MCP server's command after --, such as: limenctl mcp-gate -- npx -y @modelcontextprotocol/server-filesystem ~/src")
	}
	return nil
}

// runMCPGate is limenctl mcp-gate: args is the server command, empty for
// the HTTP gate.
func runMCPGate(ctx context.Context, a *app, o mcpGateOptions, args []string) error {
	name := o.name
	if name == "" && o.http.listen != "" {
		return usagef("--name is required with --upstream: it names the server in tool names (mcp__<name>__<tool>), such as --name github")
	}
	if name == "" {
		name = serverName(args[0])
	}
	if err := mcpgate.CheckName(name); err != nil {
		return usagef("%v", err)
	}
	if o.askTimeout <= 0 {
		return usagef("--ask-timeout must be positive, such as 50s")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return usagef("--log-level %q: use debug, info, warn or error", o.logLevel)
	}
	hf := &o.http
	if hf.listen != "" {
		if err := hf.check(); err != nil {
			return err
		}
	}
	log := slog.New(slog.NewTextHandler(a.errOut, &slog.HandlerOptions{Level: level}))
	c, err := a.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Say at once when limend is not there: each call is refused
	// anyway, but silently starting would look like a working gate.
	// The check runs beside the server's start, not before it.
	checkCtx, cancelCheck := context.WithCancel(ctx)
	checked := make(chan struct{})
	defer func() { cancelCheck(); <-checked }()
	go func() {
		defer close(checked)
		if err := checkLimend(checkCtx, c, a.timeout); err != nil && checkCtx.Err() == nil {
			log.Warn(fmt.Sprintf("limend is not reachable at %s; every tools/call will be refused until it is", c.Socket()), "error", err)
		}
	}()
	cwd, _ := os.Getwd()
	gateOpts := mcpgate.Options{
		Name: name, Decider: c, AskTimeout: o.askTimeout, Logger: log, Cwd: cwd,
		Session: fmt.Sprintf("mcp-gate-%s-%d", name, os.Getpid()),
	}
	if hf.listen != "" {
		return serveHTTPGate(ctx, log, hf, gateOpts)
	}
	server := exec.Command(args[0], args[1:]...)
	server.Stderr = a.errOut // the server's own logs, next to ours
	err = mcpgate.Run(ctx, &mcp.StdioTransport{}, &mcp.CommandTransport{Command: server}, gateOpts)
	if err != nil {
		return fmt.Errorf("%w\nhint: check that %q starts an MCP server on stdio", err, strings.Join(args, " "))
	}
	return nil
}

// httpGateFlags are the HTTP gate's own flags, and what check made of
// them.
type httpGateFlags struct {
	listen, upstream, tlsCert, tlsKey string
	origins                           []string
	callTimeout                       time.Duration

	tls, loopback bool
	up            *url.URL
}

// check validates the flags before anything starts.
func (f *httpGateFlags) check() error {
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return usagef("give both --tls-cert and --tls-key, or neither")
	}
	f.tls = f.tlsCert != ""
	var err error
	if f.loopback, err = mcpgate.CheckListen(f.listen, f.tls); err != nil {
		return usagef("%v", err)
	}
	f.up, err = url.Parse(f.upstream)
	if err == nil {
		err = mcpgate.CheckUpstream(f.up)
	}
	if err != nil {
		return usagef("--upstream: %v", err)
	}
	if f.callTimeout <= 0 {
		return usagef("--call-timeout must be positive, such as 5m")
	}
	return nil
}

// serveHTTPGate runs the HTTP gate until ctx ends.
func serveHTTPGate(ctx context.Context, log *slog.Logger, f *httpGateFlags, opts mcpgate.Options) error {
	tls, up := f.tls, f.up
	gate, err := mcpgate.NewHTTPGate(mcpgate.HTTPOptions{
		Options: opts, Upstream: up, Origins: f.origins, LoopbackHost: f.loopback, CallTimeout: f.callTimeout,
	})
	if err != nil {
		return usagef("%v", err)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", f.listen, err)
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	// The log says where the client goes, and names the upstream without
	// its query (which may hold a key).
	log.Info(fmt.Sprintf("mcp-gate listening on %s://%s/mcp", scheme, ln.Addr()), "upstream", mcpgate.Endpoint(up), "name", opts.Name)
	srv := &http.Server{Handler: gate, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	served := make(chan error, 1)
	go func() {
		if tls {
			served <- srv.ServeTLS(ln, f.tlsCert, f.tlsKey)
		} else {
			served <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-served:
		return fmt.Errorf("serve the MCP gate: %w", err)
	case <-ctx.Done():
	}
	// Streams (the server's GET stream) never end on their own: give
	// requests in flight a moment, then close.
	stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		srv.Close()
	}
	<-served
	return nil
}

// checkLimend asks limend's health service whether it serves, within
// timeout (at most 2s). The error is worded as limenctl words it.
func checkLimend(ctx context.Context, c *client.Client, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, 2*time.Second))
	defer cancel()
	h, err := c.Health.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		if _, ok := status.FromError(err); ok {
			if text := client.Message(err); isHTTPSocket(text) {
				return fmt.Errorf("this is limend's HTTP hook socket (limend-http.sock); point --socket at the gRPC socket (limend.sock)")
			}
			return errors.New(client.Message(err))
		}
		return err
	}
	if h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("limend reports %s", h.GetStatus())
	}
	return nil
}

// serverName derives a name from the server command: its base name without
// an extension, with characters tool names cannot carry replaced.
func serverName(command string) string {
	base := strings.TrimSuffix(filepath.Base(command), filepath.Ext(command))
	base = strings.Map(func(r rune) rune {
		if r == ' ' || r == '(' || r == ')' {
			return '-'
		}
		return r
	}, base)
	for strings.Contains(base, "__") {
		base = strings.ReplaceAll(base, "__", "_")
	}
	return base
}
