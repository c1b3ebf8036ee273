package mcpgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limenhq/limen/client"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Stateless is the first protocol revision without a protocol-level
// session (SEP-2575): each request names its revision in _meta, and every
// successful result carries "resultType". Revisions are dates, so they
// compare as strings.
const Stateless = "2026-07-28"

// methodCallTool is the one method the gate decides.
const methodCallTool = "tools/call"

// requestVersion is the revision a request names in its own _meta
// (io.modelcontextprotocol/protocolVersion), or "".
func requestVersion(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var v string
	if json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &v) != nil {
		return ""
	}
	return v
}

// call is a tools/call as limen decides it.
type call struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"arguments"`
}

// parseCall reads a tools/call's params, refusing what the gate and the
// server could read differently: a key given twice anywhere (one JSON
// reader keeps the first, another the last, so limen would decide one
// call and the server run another), no tool name, or arguments that are
// not an object.
func parseCall(params json.RawMessage) (call, error) {
	var c call
	if err := uniqueKeys(params); err != nil {
		return c, fmt.Errorf("tools/call params: %w", err)
	}
	if err := json.Unmarshal(params, &c); err != nil {
		return c, fmt.Errorf("tools/call params: %w", err)
	}
	if c.Name == "" {
		return c, errors.New("tools/call params: no tool name: give params.name")
	}
	args := bytes.TrimSpace(c.Args)
	if len(args) == 0 || string(args) == "null" {
		c.Args = json.RawMessage("{}")
		return c, nil
	}
	if args[0] != '{' {
		return c, errors.New("tools/call params: arguments is not a JSON object: give params.arguments as {...}")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, args); err != nil {
		return c, fmt.Errorf("tools/call params: arguments: %w", err)
	}
	c.Args = b.Bytes()
	return c, nil
}

// foldKey is key with each rune replaced by the smallest rune of its
// Unicode case-folding orbit: two keys that Go's encoding/json would match
// to the same field ("name", "NAME", "paramſ" for "params") fold alike.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, key)
}

// uniqueKeys fails on JSON that repeats a key in any object, at any depth,
// ignoring case: encoding/json (the gate's reader) matches field names
// ignoring case, and a server's reader may not, so {"name":"read",
// "Name":"delete"} could be decided as one tool and run as another.
func uniqueKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				folded := foldKey(key)
				if seen[folded] {
					return fmt.Errorf("key %q appears twice in one object (keys are compared ignoring case, as Go's encoding/json matches them): send each key once", key)
				}
				seen[folded] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := walk(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value")
	}
	return nil
}

// decision is what the gate does with one tools/call.
type decision struct {
	// allow: forward the call as the client sent it.
	allow bool
	// result is the tool error result to answer with when not allowed.
	result json.RawMessage
	// err, when set, is answered as a JSON-RPC error instead (bad params).
	err *jsonrpc.Error
}

// decide asks limen about one tools/call. Anything but a clear allow is a
// refusal: a deadline, a cancelled wait or limend down included.
func decide(ctx context.Context, opts *Options, params json.RawMessage, version string) decision {
	c, err := parseCall(params)
	if err != nil {
		return decision{err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}}
	}
	name := ToolName(opts.Name, c.Name)
	v := opts.Decider.DecideAndWait(ctx, &limenv1.Action{
		Agent: Agent, Session: opts.Session, Tool: name, InputJson: string(c.Args), Cwd: opts.Cwd,
	}, client.WaitOptions{Wait: opts.AskTimeout, Otherwise: limenv1.Verdict_VERDICT_BLOCK})
	// The tool name and verdict only: arguments may hold secrets.
	opts.Logger.Info("tools/call decided", "tool", name, "verdict", v.Verdict.String(), "reason", v.Reason)
	if v.Verdict == limenv1.Verdict_VERDICT_ALLOW {
		return decision{allow: true}
	}
	return decision{result: toolError(version, refusalText(name, v))}
}

// refusalText is what the model reads about a call limen did not let
// through.
func refusalText(name string, v client.Verdict) string {
	text := fmt.Sprintf("limen did not allow %s: %s", name, v.Reason)
	if id := v.Decision.GetAskId(); id != "" {
		// Say where the person answers, never the command that answers:
		// an agent told `limenctl answer` tries it (and limend refuses it
		// from the agent's processes anyway).
		return text + fmt.Sprintf(". The tool was not called. Ask the user to answer ask %s in limen's TUI (limenctl tui, in their own terminal); once they approve it, call it again.", id)
	}
	return text + ". The tool was not called; do not retry the same call, tell the user what was refused and why."
}

// toolError is a tools/call result with isError set: a tool error, not a
// protocol error, so the model reads the text. From the stateless
// revision on every successful result says it is complete.
func toolError(version, text string) json.RawMessage {
	r := struct {
		Content    []*mcp.TextContent `json:"content"`
		IsError    bool               `json:"isError"`
		ResultType string             `json:"resultType,omitempty"`
	}{Content: []*mcp.TextContent{{Text: text}}, IsError: true}
	if version >= Stateless {
		r.ResultType = "complete"
	}
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	return b
}

// completed returns a stateless-revision tools/call result with
// "resultType":"complete" added when the server left it out, and the
// result untouched (byte for byte) otherwise.
func completed(result json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(result, &fields) != nil || fields == nil {
		return result // not an object (null included): not the gate's to mend
	}
	if _, ok := fields["resultType"]; ok {
		return result
	}
	body := bytes.TrimSpace(result) // an object: ends in its closing brace
	out := append([]byte{}, body[:len(body)-1]...)
	if len(fields) > 0 {
		out = append(out, ',')
	}
	return append(out, `"resultType":"complete"}`...)
}
