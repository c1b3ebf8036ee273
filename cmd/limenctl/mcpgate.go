package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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

func newMCPGateCmd(a *app) *cobra.Command {
	var (
		name       string
		askTimeout time.Duration
		logLevel   string
	)
	cmd := &cobra.Command{
		Use:   "mcp-gate [flags] -- SERVER_COMMAND [ARGS...]",
		Short: "Run an MCP server behind limen: each tool call is decided first",
		Long: `mcp-gate starts the MCP server given after "--" and stands between it and the
MCP client that started mcp-gate (over stdio). Every request and
notification passes through (results re-encoded for the client's protocol
version) except tools/call, which limend decides first:

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
"mcp-gate --". Logs go to stderr (stdout is the MCP stream).`,
		Example: `  limenctl mcp-gate -- npx -y @modelcontextprotocol/server-filesystem ~/src
  limenctl mcp-gate --name github --ask-timeout 30s -- github-mcp-server stdio

  # .mcp.json (Claude Code) or claude_desktop_config.json (Claude Desktop):
  {"mcpServers": {"github": {"command": "limenctl",
    "args": ["mcp-gate", "--name", "github", "--", "github-mcp-server", "stdio"]}}}`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return usagef("give the MCP server's command after --, such as: limenctl mcp-gate -- npx -y @modelcontextprotocol/server-filesystem ~/src")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				name = serverName(args[0])
			}
			if err := mcpgate.CheckName(name); err != nil {
				return usagef("%v", err)
			}
			if askTimeout <= 0 {
				return usagef("--ask-timeout must be positive, such as 50s")
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return usagef("--log-level %q: use debug, info, warn or error", logLevel)
			}
			log := slog.New(slog.NewTextHandler(a.errOut, &slog.HandlerOptions{Level: level}))
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
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
			server := exec.Command(args[0], args[1:]...)
			server.Stderr = a.errOut // the server's own logs, next to ours
			cwd, _ := os.Getwd()
			err = mcpgate.Run(ctx, &mcp.StdioTransport{}, &mcp.CommandTransport{Command: server}, mcpgate.Options{
				Name: name, Decider: c, AskTimeout: askTimeout, Logger: log, Cwd: cwd,
				Session: fmt.Sprintf("mcp-gate-%s-%d", name, os.Getpid()),
			})
			if err != nil {
				return fmt.Errorf("%w\nhint: check that %q starts an MCP server on stdio", err, strings.Join(args, " "))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the server's name in tool names, mcp__<name>__<tool> (default: the command's base name)")
	f.DurationVar(&askTimeout, "ask-timeout", mcpgate.DefaultAskTimeout, "how long a tool call waits for a person's answer to an ask; then it is refused")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error (logs go to stderr)")
	return cmd
}

// checkLimend asks limend's health service whether it serves, within
// timeout (at most 2s). The error is worded as limenctl words it.
func checkLimend(ctx context.Context, c *client.Client, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, 2*time.Second))
	defer cancel()
	h, err := c.Health.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		if st, ok := status.FromError(err); ok {
			if text := grpcText(err, st); isHTTPSocket(text) {
				return fmt.Errorf("this is limend's HTTP hook socket (limend-http.sock); point --socket at the gRPC socket (limend.sock)")
			}
			return errors.New(grpcText(err, st))
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
