// Package mcpgate puts limen between an MCP client (Claude Desktop, Claude
// Code, any agent) and an MCP server. To the client it is the server; to the
// server it is the client. Every request and notification passes through (results
// re-encoded for the client's protocol version) except tools/call, which limen decides first:
//
//   - allow: the call is forwarded and the server's result returned;
//   - block: the call is not forwarded; the client gets a tool result with
//     isError set and limen's reason;
//   - ask: the gate waits for a person's answer in limen (limenctl answer,
//     the TUI) up to AskTimeout. Approved is forwarded; denied, expired,
//     a deadline or limend down is a block for that call, never an allow.
//
// The gate runs as a child of the agent runtime and calls Decide over
// limend's socket, so limend records the gate and the runtime above it
// (SO_PEERCRED, pid and start time): from then on no process under that
// runtime, including the MCP server the gate starts, can answer an ask
// or change the policy (internal/server/runtimes.go).
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
	"sync/atomic"
	"time"

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

// Run connects to the real server over upstream, then serves the client on
// downstream until either side goes away or ctx ends.
func Run(ctx context.Context, downstream, upstream mcp.Transport, opts Options) error {
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
	// The SDK logs every session event at info; those are only worth
	// seeing when debugging.
	sdkLog := slog.New(slog.DiscardHandler)
	if opts.Logger.Enabled(ctx, slog.LevelDebug) {
		sdkLog = opts.Logger
	}
	// The gate cannot answer roots, sampling or elicitation for the
	// server, so it does not offer them. What the server tells the client
	// on its own (list changes, resource updates, log messages, progress)
	// is passed on once the client's side is up.
	g := &gate{opts: opts}
	up := mcp.NewClient(&mcp.Implementation{Name: "limen-mcp-gate", Version: "1"}, &mcp.ClientOptions{
		Capabilities:               &mcp.ClientCapabilities{},
		Logger:                     sdkLog,
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { g.listChanged("tools") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { g.listChanged("prompts") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { g.listChanged("resources") },
		ResourceUpdatedHandler: func(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			if srv := g.srv.Load(); srv != nil {
				srv.ResourceUpdated(ctx, r.Params)
			}
		},
		LoggingMessageHandler: func(ctx context.Context, r *mcp.LoggingMessageRequest) {
			if ss := g.down.Load(); ss != nil {
				ss.Log(ctx, r.Params)
			}
		},
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			if ss := g.down.Load(); ss != nil {
				ss.NotifyProgress(ctx, r.Params)
			}
		},
	})
	cs, err := up.Connect(ctx, upstream, nil)
	if err != nil {
		return fmt.Errorf("connect to the MCP server %s: %w", opts.Name, err)
	}
	defer cs.Close()
	g.up = cs
	init := cs.InitializeResult()
	info := &mcp.Implementation{Name: opts.Name, Version: "unknown"}
	caps := &mcp.ServerCapabilities{}
	var instructions string
	if init != nil {
		if init.ServerInfo != nil {
			info = init.ServerInfo
		}
		if init.Capabilities != nil {
			caps = init.Capabilities
		}
		instructions = init.Instructions
	}
	sopts := &mcp.ServerOptions{Capabilities: caps, Instructions: instructions, Logger: sdkLog}
	if caps.Resources != nil && caps.Resources.Subscribe {
		sopts.SubscribeHandler = func(ctx context.Context, r *mcp.SubscribeRequest) error { return cs.Subscribe(ctx, r.Params) }
		sopts.UnsubscribeHandler = func(ctx context.Context, r *mcp.UnsubscribeRequest) error { return cs.Unsubscribe(ctx, r.Params) }
	}
	srv := mcp.NewServer(info, sopts)
	srv.AddReceivingMiddleware(g.middleware)
	g.srv.Store(srv)
	ss, err := srv.Connect(ctx, downstream, nil)
	if err != nil {
		return fmt.Errorf("serve the MCP client: %w", err)
	}
	g.down.Store(ss)
	// Whichever side ends first ends the other.
	upDone := make(chan struct{})
	go func() {
		cs.Wait()
		close(upDone)
	}()
	downDone := make(chan struct{})
	go func() {
		ss.Wait()
		close(downDone)
	}()
	select {
	case <-downDone:
	case <-upDone:
		opts.Logger.Warn("the MCP server went away; closing the client's session", "server", opts.Name)
		ss.Close()
		<-downDone
	case <-ctx.Done():
		ss.Close()
		<-downDone
	}
	cs.Close()
	<-upDone
	return nil
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

type gate struct {
	opts Options
	up   *mcp.ClientSession
	srv  atomic.Pointer[mcp.Server]
	down atomic.Pointer[mcp.ServerSession]
}

// listChanged tells the client that the server's list of tools, prompts or
// resources changed. The SDK sends these notifications only when the
// server's own registry changes, and the gate serves the lists from the
// real server instead; so it changes its registry (an entry the client
// never sees, since tools/list and the others are passed through) and
// changes it back.
func (g *gate) listChanged(what string) {
	srv := g.srv.Load()
	if srv == nil {
		return
	}
	const name = "limen-mcp-gate-list-changed"
	switch what {
	case "tools":
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("not a tool")
		})
		srv.RemoveTools(name)
	case "prompts":
		srv.AddPrompt(&mcp.Prompt{Name: name}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, errors.New("not a prompt")
		})
		srv.RemovePrompts(name)
	case "resources":
		uri := "limen-mcp-gate:list-changed"
		srv.AddResource(&mcp.Resource{Name: name, URI: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("not a resource")
		})
		srv.RemoveResources(uri)
	}
}

// middleware forwards what the client asks to the real server, and gates
// tools/call. Methods not listed (initialize, ping, notifications, logging
// level) are the gate's own session business.
func (g *gate) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p := req.GetParams()
		switch method {
		case "tools/call":
			params, ok := p.(*mcp.CallToolParamsRaw)
			if !ok || params == nil {
				return nil, errors.New("tools/call without params")
			}
			return g.call(ctx, params)
		case "tools/list":
			params, _ := p.(*mcp.ListToolsParams)
			r, err := g.up.ListTools(ctx, params)
			return fresh(r, err, func() *mcp.ListToolsResult {
				return &mcp.ListToolsResult{Meta: own(r.Meta), Cacheable: cacheable(r.Cacheable), NextCursor: r.NextCursor, Tools: r.Tools}
			})
		case "resources/list":
			params, _ := p.(*mcp.ListResourcesParams)
			r, err := g.up.ListResources(ctx, params)
			return fresh(r, err, func() *mcp.ListResourcesResult {
				return &mcp.ListResourcesResult{Meta: own(r.Meta), Cacheable: cacheable(r.Cacheable), NextCursor: r.NextCursor, Resources: r.Resources}
			})
		case "resources/templates/list":
			params, _ := p.(*mcp.ListResourceTemplatesParams)
			r, err := g.up.ListResourceTemplates(ctx, params)
			return fresh(r, err, func() *mcp.ListResourceTemplatesResult {
				return &mcp.ListResourceTemplatesResult{Meta: own(r.Meta), Cacheable: cacheable(r.Cacheable), NextCursor: r.NextCursor, ResourceTemplates: r.ResourceTemplates}
			})
		case "resources/read":
			params, _ := p.(*mcp.ReadResourceParams)
			r, err := g.up.ReadResource(ctx, params)
			return fresh(r, err, func() *mcp.ReadResourceResult {
				return &mcp.ReadResourceResult{Meta: own(r.Meta), Cacheable: cacheable(r.Cacheable), Contents: r.Contents}
			})
		case "prompts/list":
			params, _ := p.(*mcp.ListPromptsParams)
			r, err := g.up.ListPrompts(ctx, params)
			return fresh(r, err, func() *mcp.ListPromptsResult {
				return &mcp.ListPromptsResult{Meta: own(r.Meta), Cacheable: cacheable(r.Cacheable), NextCursor: r.NextCursor, Prompts: r.Prompts}
			})
		case "prompts/get":
			params, _ := p.(*mcp.GetPromptParams)
			r, err := g.up.GetPrompt(ctx, params)
			return fresh(r, err, func() *mcp.GetPromptResult {
				return &mcp.GetPromptResult{Meta: own(r.Meta), Description: r.Description, Messages: r.Messages}
			})
		case "completion/complete":
			params, _ := p.(*mcp.CompleteParams)
			r, err := g.up.Complete(ctx, params)
			return fresh(r, err, func() *mcp.CompleteResult {
				return &mcp.CompleteResult{Meta: own(r.Meta), Completion: r.Completion}
			})
		}
		return next(ctx, method, req)
	}
}

// fresh returns the server's result rebuilt from its content fields. The
// gate's two sides may speak different protocol versions (the server's
// side negotiates its own), so the version-specific fields the SDK filled in
// on one side (result type) are left for the other side's SDK to fill in
// for its own version; the cache hints are the server's (see cacheable).
func fresh[R mcp.Result](r R, err error, rebuild func() R) (mcp.Result, error) {
	if err != nil {
		return nil, err
	}
	return rebuild(), nil
}

// cacheable is the server's cache hint (ttlMs, cacheScope) as the gate
// passes it on. The SDK writes both fields into every list result whatever
// the protocol version (they have no omitempty), and fills an unset
// cacheScope with the protocol default only in its own handlers, which the
// gate's results bypass: without this the client got the server's hint
// dropped and an invalid "cacheScope":"". A server that sent no hint gets
// the default, as a go-sdk server's own lists do: ttlMs 0 (stale at once,
// right for a gate that asks the server every time) and public.
func cacheable(c mcp.Cacheable) mcp.Cacheable {
	if c.CacheScope == "" {
		c.CacheScope = "public"
	}
	return c
}

// own drops the protocol's reserved _meta keys (io.modelcontextprotocol/…),
// which describe the server's side of the connection, and keeps the
// server's own.
func own(m mcp.Meta) mcp.Meta {
	var out mcp.Meta
	for k, v := range m {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			continue
		}
		if out == nil {
			out = mcp.Meta{}
		}
		out[k] = v
	}
	return out
}

// ToolName is the name limen decides: mcp__<server>__<tool>.
func ToolName(server, tool string) string { return "mcp__" + server + "__" + tool }

// call decides one tools/call and forwards it only on allow.
func (g *gate) call(ctx context.Context, p *mcp.CallToolParamsRaw) (mcp.Result, error) {
	args := strings.TrimSpace(string(p.Arguments))
	if args == "" || args == "null" {
		args = "{}"
	}
	name := ToolName(g.opts.Name, p.Name)
	v := g.opts.Decider.DecideAndWait(ctx, &limenv1.Action{
		Agent: Agent, Session: g.opts.Session, Tool: name, InputJson: args, Cwd: g.opts.Cwd,
	}, client.WaitOptions{Wait: g.opts.AskTimeout, Otherwise: limenv1.Verdict_VERDICT_BLOCK})
	g.opts.Logger.Info("tools/call decided", "tool", name, "verdict", v.Verdict.String(), "reason", v.Reason)
	if v.Verdict != limenv1.Verdict_VERDICT_ALLOW {
		return refused(name, v), nil
	}
	r, err := g.up.CallTool(ctx, &mcp.CallToolParams{Meta: own(p.Meta), Name: p.Name, Arguments: json.RawMessage(args)})
	return fresh(r, err, func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Meta: own(r.Meta), Content: r.Content, StructuredContent: r.StructuredContent, IsError: r.IsError}
	})
}

// refused is the tool result of a call limen did not let through. It is a
// tool error, not a protocol error, so the model reads the reason.
func refused(name string, v client.Verdict) *mcp.CallToolResult {
	text := fmt.Sprintf("limen did not allow %s: %s", name, v.Reason)
	if id := v.Decision.GetAskId(); id != "" && v.Verdict != limenv1.Verdict_VERDICT_ALLOW {
		// Say where the person answers, never the command that answers:
		// an agent told `limenctl answer` tries it (and limend refuses it
		// from the agent's processes anyway).
		text += fmt.Sprintf(". The tool was not called. Ask the user to answer ask %s in limen's TUI (limenctl tui, in their own terminal); once they approve it, call it again.", id)
	} else {
		text += ". The tool was not called; do not retry the same call, tell the user what was refused and why."
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
