// Package mcpgate puts limen between an MCP client (Claude Desktop, Claude
// Code, any agent) and an MCP server, over stdio (Run) or Streamable HTTP
// (HTTPGate). The gate relays JSON-RPC messages; it holds no MCP session of
// its own, so the client and the server agree on the revision between
// them, and what the server sends reaches the client as it was sent. Every
// request and notification passes through except tools/call, which limen
// decides first:
//
//   - allow: the call is forwarded and the server's result returned;
//   - block: the call is not forwarded; the client gets a tool result with
//     isError set and limen's reason;
//   - ask: the gate waits for a person's answer in limen (limenctl answer,
//     the TUI) up to AskTimeout. Approved is forwarded; denied, expired,
//     a deadline or limend down is a block for that call, never an allow.
//
// The stdio gate runs as a child of the agent runtime and calls Decide
// over limend's socket, so limend records the gate and the runtime above
// it (SO_PEERCRED, pid and start time): from then on no process under that
// runtime, including the MCP server the gate starts, can answer an ask
// or change the policy (internal/server/runtimes.go). The HTTP gate is
// started on its own (a service, a terminal); limend records it the same
// way, and the agents reach it over loopback TCP, which carries no
// process identity: what keeps them from answering their own asks is the
// runtime's own registration (its hook) and limen's policy.
//
// Neither gate logs or sends to limend more of a request than the tool's
// name and arguments: credentials (Authorization, cookies, session ids)
// pass through the HTTP gate untouched and unrecorded.
//
// Tools are named as Claude Code names them, mcp__<server>__<tool>, so the
// same policy rules cover a server whether it is reached through Claude
// Code's own MCP support (and limen-hook) or through this gate.
package mcpgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limenhq/limen/client"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Decider is what the gate needs of limen; *client.Client is the real one.
type Decider interface {
	DecideAndWait(ctx context.Context, a *limenv1.Action, opts client.WaitOptions) client.Verdict
}

// Options configure a gate.
type Options struct {
	// Name is the server's name in tool names (mcp__<Name>__<tool>).
	Name string
	// Decider is limen.
	Decider Decider
	// AskTimeout bounds the wait for a person's answer; zero means
	// DefaultAskTimeout.
	AskTimeout time.Duration
	// Session and Cwd are recorded with each decision.
	Session string
	Cwd     string
	Logger  *slog.Logger
}

// DefaultAskTimeout is below the 60 s many MCP clients allow a tool call.
const DefaultAskTimeout = 50 * time.Second

// Agent is the agent name the gate's decisions are recorded under.
const Agent = "mcp-gate"

// Run connects to the real server over upstream, then relays messages
// between it and the client on downstream until either side goes away or
// ctx ends. The gate relays JSON-RPC messages, not an MCP session of its
// own: both sides speak the revision the client and the server agree on,
// and a result reaches the client as the server wrote it (its unknown
// fields included), except the one change a stateless-revision tools/call
// result may need (resultType, see completed).
func Run(ctx context.Context, downstream, upstream mcp.Transport, opts Options) error {
	if err := opts.check(); err != nil {
		return err
	}
	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	up, err := upstream.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connect to the MCP server %s: %w", opts.Name, err)
	}
	defer up.Close()
	down, err := downstream.Connect(ctx)
	if err != nil {
		return fmt.Errorf("serve the MCP client: %w", err)
	}
	defer down.Close()
	r := &relay{opts: &opts, up: up, down: down, pending: map[jsonrpc.ID]*pendingCall{}, stateless: map[jsonrpc.ID]bool{}}
	clientDone := make(chan error, 1)
	serverDone := make(chan error, 1)
	go func() { clientDone <- r.fromClient(ctx) }()
	go func() { serverDone <- r.fromServer(ctx) }()
	var serverGone bool
	select {
	case <-clientDone:
		clientDone <- nil
	case err := <-serverDone:
		serverGone = true
		opts.Logger.Warn("the MCP server went away; closing the client's side", "server", opts.Name, "error", err)
		serverDone <- nil
	case <-ctx.Done():
	}
	// Closing both connections ends both loops; cancelling ctx ends the
	// decisions still waiting, none of which forwards once cancelled.
	cancel()
	up.Close()
	down.Close()
	<-clientDone
	<-serverDone
	r.calls.Wait()
	if serverGone && outer.Err() == nil {
		return fmt.Errorf("the MCP server %s closed its side", opts.Name)
	}
	return nil
}

// check validates opts and fills in the defaults.
func (opts *Options) check() error {
	if opts.Decider == nil {
		return errors.New("mcp gate: no decider")
	}
	if err := CheckName(opts.Name); err != nil {
		return err
	}
	if opts.AskTimeout <= 0 {
		opts.AskTimeout = DefaultAskTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// relay is one stdio gate's state.
type relay struct {
	opts     *Options
	up, down mcp.Connection
	calls    sync.WaitGroup
	// upMu orders the writes to the server (see startCall).
	upMu sync.Mutex

	mu sync.Mutex
	// pending are the tools/calls limen is deciding, by the client's id,
	// so that the client's notifications/cancelled ends the wait.
	pending map[jsonrpc.ID]*pendingCall
	// stateless are the forwarded stateless-revision tools/calls whose
	// result the gate checks for resultType.
	stateless map[jsonrpc.ID]bool
	// initID is the client's initialize request; negotiated the revision
	// the server answered it with (older revisions agree on one per
	// session; the stateless one names it in every request).
	initID     jsonrpc.ID
	negotiated string
}

type pendingCall struct {
	cancel    context.CancelFunc
	cancelled bool
}

// fromClient relays the client's messages to the server, holding back
// each tools/call until limen decided it.
func (r *relay) fromClient(ctx context.Context) error {
	for {
		msg, err := r.down.Read(ctx)
		if err != nil {
			return err
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			switch req.Method {
			case methodCallTool:
				if !req.IsCall() {
					// A tools/call without an id is not MCP; a server
					// that ran it anyway would run it undecided.
					r.opts.Logger.Warn("dropped a tools/call sent as a notification (no id)")
					continue
				}
				r.startCall(ctx, req)
				continue
			case "initialize":
				r.mu.Lock()
				r.initID = req.ID
				r.mu.Unlock()
			case "notifications/cancelled":
				r.cancelled(req.Params)
			}
		}
		r.upMu.Lock()
		err = r.up.Write(ctx, msg)
		r.upMu.Unlock()
		if err != nil {
			return err
		}
	}
}

// startCall decides a tools/call in its own goroutine (an ask waits for a
// person; the other messages keep flowing meanwhile).
func (r *relay) startCall(ctx context.Context, req *jsonrpc.Request) {
	ctx, cancel := context.WithCancel(ctx)
	p := &pendingCall{cancel: cancel}
	r.mu.Lock()
	r.pending[req.ID] = p
	version := requestVersion(req.Params)
	if version == "" {
		version = r.negotiated
	}
	r.mu.Unlock()
	r.calls.Add(1)
	go func() {
		defer r.calls.Done()
		defer cancel()
		d := decide(ctx, r.opts, req.Params, version)
		// Forward only an allow given to a wait nobody ended: a call the
		// client cancelled, or the gate is closing, stays unsent. The
		// check and the write hold upMu, so a cancellation the client sent
		// after the allow reaches the server after the call, not before.
		r.upMu.Lock()
		r.mu.Lock()
		delete(r.pending, req.ID)
		cancelled := p.cancelled
		forward := d.allow && !cancelled && ctx.Err() == nil
		if forward && version >= Stateless {
			r.stateless[req.ID] = true
		}
		r.mu.Unlock()
		if forward {
			err := r.up.Write(ctx, req)
			r.upMu.Unlock()
			if err != nil {
				r.opts.Logger.Warn("forward tools/call", "error", err)
			}
			return
		}
		r.upMu.Unlock()
		if cancelled {
			return // the client gave up on it and expects no answer
		}
		resp := &jsonrpc.Response{ID: req.ID, Result: d.result}
		if d.err != nil {
			resp = &jsonrpc.Response{ID: req.ID, Error: d.err}
		} else if d.allow {
			// Allowed, but the gate is closing: the call was not sent.
			resp.Result = toolError(version, "limen's MCP gate closed before the call was forwarded; the tool was not called.")
		}
		if err := r.down.Write(context.WithoutCancel(ctx), resp); err != nil {
			r.opts.Logger.Debug("answer tools/call", "error", err)
		}
	}()
}

// cancelled ends limen's wait for a call the client cancelled.
func (r *relay) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(normalID(p.RequestID))
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.pending[id]; ok {
		c.cancelled = true
		c.cancel()
	}
}

// normalID turns a JSON number id into the int64 jsonrpc ids hold.
func normalID(v any) any {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}

// fromServer relays the server's messages to the client as they came.
func (r *relay) fromServer(ctx context.Context) error {
	for {
		msg, err := r.up.Read(ctx)
		if err != nil {
			return err
		}
		if resp, ok := msg.(*jsonrpc.Response); ok {
			r.mu.Lock()
			stateless := r.stateless[resp.ID]
			delete(r.stateless, resp.ID)
			if resp.Error == nil && r.initID.IsValid() && resp.ID == r.initID {
				var init struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if json.Unmarshal(resp.Result, &init) == nil {
					r.negotiated = init.ProtocolVersion
				}
			}
			if stateless && resp.Error == nil {
				resp.Result = completed(resp.Result)
			}
			r.mu.Unlock()
		}
		if err := r.down.Write(ctx, msg); err != nil {
			return err
		}
	}
}

// CheckName refuses a server name that would make tool names limen's rules
// cannot address (mcp__<name>__<tool>).
func CheckName(name string) error {
	if name == "" {
		return errors.New("mcp gate: the server name is empty: pass --name, such as --name github")
	}
	if strings.Contains(name, "__") || strings.ContainsAny(name, " \t\n()") {
		return fmt.Errorf("mcp gate: server name %q: use letters, digits, - and _ (no \"__\", spaces or brackets), such as --name github", name)
	}
	return nil
}

// ToolName is the name limen decides: mcp__<server>__<tool>.
func ToolName(server, tool string) string { return "mcp__" + server + "__" + tool }
