package mcpgate_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/mcpgate"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// wireLines are the messages a LoggingTransport saw arrive ("read: ").
func wireLines(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if rest, ok := strings.CutPrefix(line, "read: "); ok {
			out = append(out, rest)
		}
	}
	return out
}

// TestStatelessResults: the go-sdk v1.8.0 client speaks the stateless
// revision (server/discover, then tools/list and tools/call with _meta, no
// initialize). Through the gate every result it receives carries
// "resultType":"complete", the gate's own refusals included, and every
// result the server sent arrives exactly as the server sent it.
func TestStatelessResults(t *testing.T) {
	c := startLimend(t)
	f := &files{}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	upGate, upServer := mcp.NewInMemoryTransports()
	ss, err := f.server().Connect(ctx, upServer, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	downClient, downGate := mcp.NewInMemoryTransports()
	fromServer, toClient := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- mcpgate.Run(ctx, downGate, &mcp.LoggingTransport{Transport: upGate, Writer: fromServer},
			mcpgate.Options{Name: "files", Decider: c, AskTimeout: 300 * time.Millisecond})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.LoggingTransport{Transport: downClient, Writer: toClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for tool, wantError := range map[string]bool{"read": false, "delete": true, "write": true} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"path": "/tmp/a"}})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError != wantError {
			t.Errorf("%s: isError %v; want %v (%s)", tool, res.IsError, wantError, text(res))
		}
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	sent := map[string]bool{}
	for _, line := range wireLines(fromServer.String()) {
		if strings.Contains(line, `"method":"initialize"`) {
			t.Errorf("the session was initialized (%s); want the stateless revision", line)
		}
		sent[line] = true
	}
	var results, refusals int
	for _, line := range wireLines(toClient.String()) {
		var m struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
			continue
		}
		results++
		if string(m.Result["resultType"]) != `"complete"` {
			t.Errorf("the client got a result without \"resultType\":\"complete\": %s", line)
		}
		if string(m.Result["isError"]) == "true" && strings.Contains(line, "limen did not allow") {
			refusals++
			continue
		}
		if !sent[line] {
			t.Errorf("the client got %s; the server sent no such message", line)
		}
	}
	// discover, tools/list, three calls.
	if results != 5 || refusals != 2 {
		t.Errorf("the client got %d results, %d of them limen's refusals; want 5 and 2:\n%s", results, refusals, toClient)
	}
}

// byName decides by tool name; any other tool waits until its context ends
// (an ask nobody answers).
type byName map[string]limenv1.Verdict

func (b byName) DecideAndWait(ctx context.Context, a *limenv1.Action, _ client.WaitOptions) client.Verdict {
	if v, ok := b[a.GetTool()]; ok {
		return client.Verdict{Verdict: v, Reason: "test rule"}
	}
	<-ctx.Done()
	return client.Verdict{Verdict: limenv1.Verdict_VERDICT_BLOCK, Reason: "wait ended"}
}

// rawGate runs the stdio gate between two hand-driven JSON-RPC ends.
func rawGate(t *testing.T, d mcpgate.Decider) (agent, server mcp.Connection) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	downClient, downGate := mcp.NewInMemoryTransports()
	upGate, upServer := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() {
		done <- mcpgate.Run(ctx, downGate, upGate, mcpgate.Options{Name: "raw", Decider: d})
	}()
	agent, err := downClient.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	server, err = upServer.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		agent.Close()
		cancel()
		<-done
		server.Close()
	})
	return agent, server
}

func send(t *testing.T, c mcp.Connection, raw string) {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage([]byte(raw))
	if err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	if err := c.Write(t.Context(), msg); err != nil {
		t.Fatal(err)
	}
}

func recv(t *testing.T, c mcp.Connection) jsonrpc.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	msg, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return msg
}

func recvResult(t *testing.T, c mcp.Connection) *jsonrpc.Response {
	t.Helper()
	resp, ok := recv(t, c).(*jsonrpc.Response)
	if !ok {
		t.Fatal("got a request; want a response")
	}
	return resp
}

const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestResultsAsTheServerSentThem drives both ends by hand, so the server
// can send fields no SDK knows: they reach the client byte for byte, and
// the one field the gate adds is resultType on a stateless-revision
// tools/call result that lacks it. (Byte for byte but for whitespace
// between tokens: a stdio message is one line, and the SDK's transport
// compacts each.)
func TestResultsAsTheServerSentThem(t *testing.T) {
	agent, server := rawGate(t, byName{"mcp__raw__read": limenv1.Verdict_VERDICT_ALLOW, "mcp__raw__wipe": limenv1.Verdict_VERDICT_BLOCK})

	for _, tt := range []struct {
		name, request, server, want string
	}{
		{"a list with unknown fields, untouched",
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta26 + `}}`,
			`{"tools":[],"x-future":{"k":[1, 2,3]},"resultType":"complete"}`,
			`{"tools":[],"x-future":{"k":[1,2,3]},"resultType":"complete"}`},
		{"a stateless call result without resultType gets it",
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"p":1},` + meta26 + `}}`,
			`{"content":[],"x-future":{"nested":{}}}`,
			`{"content":[],"x-future":{"nested":{}},"resultType":"complete"}`},
		{"a stateless call result with resultType, untouched",
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read",` + meta26 + `}}`,
			`{"resultType":"complete","content":[] ,"x":1}`,
			`{"resultType":"complete","content":[],"x":1}`},
		{"a stateless call result that is not an object, untouched",
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read",` + meta26 + `}}`,
			`null`,
			`null`},
		{"an empty stateless call result gets resultType",
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read",` + meta26 + `}}`,
			`{ }`,
			`{"resultType":"complete"}`},
		{"an older revision's call result, untouched",
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read"}}`,
			`{"content":[],"x-old":true}`,
			`{"content":[],"x-old":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			send(t, agent, tt.request)
			req, ok := recv(t, server).(*jsonrpc.Request)
			if !ok {
				t.Fatal("the server got a response; want the request")
			}
			want, _ := jsonrpc.DecodeMessage([]byte(tt.request))
			if !bytes.Equal(req.Params, want.(*jsonrpc.Request).Params) {
				t.Errorf("the server got params %s; want the client's %s", req.Params, want.(*jsonrpc.Request).Params)
			}
			if err := server.Write(t.Context(), &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(tt.server)}); err != nil {
				t.Fatal(err)
			}
			if got := recvResult(t, agent); string(got.Result) != tt.want {
				t.Errorf("the client got %s; want %s", got.Result, tt.want)
			}
		})
	}

	// The gate's own answers: nothing reaches the server, so the next
	// message the server sees is the marker.
	for _, tt := range []struct {
		name, request string
		want          []string // in the answer
		notWant       string
	}{
		{"a refusal in the stateless revision",
			`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"wipe",` + meta26 + `}}`,
			[]string{`"isError":true`, `"resultType":"complete"`, `limen did not allow mcp__raw__wipe: test rule`}, ""},
		{"a refusal in an older revision",
			`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"wipe"}}`,
			[]string{`"isError":true`}, `resultType`},
		{"a key given twice",
			`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"read","name":"wipe"}}`,
			[]string{`"code":-32602`, `key \"name\" appears twice`}, `result`},
		{"a key given twice inside the arguments",
			`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"read","arguments":{"path":"/a","x":{"path":1,"path":2}}}}`,
			[]string{`"code":-32602`, `appears twice`}, `result`},
		{"a key given twice in another case",
			`{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"read","Name":"wipe"}}`,
			[]string{`"code":-32602`, `appears twice`}, `result`},
		{"a key given twice under Unicode folding",
			`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"read","arguments":{},"argumentſ":{"path":"/etc"}}}`,
			[]string{`"code":-32602`, `appears twice`}, `result`},
		{"arguments that are not an object",
			`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"read","arguments":["rm"]}}`,
			[]string{`"code":-32602`, `params.arguments`}, `result`},
		{"no tool name",
			`{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"arguments":{}}}`,
			[]string{`"code":-32602`, `params.name`}, `result`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			send(t, agent, tt.request)
			got, err := jsonrpc.EncodeMessage(recvResult(t, agent))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("the gate answered %s; want %s in it", got, w)
				}
			}
			if tt.notWant != "" && strings.Contains(string(got), tt.notWant) {
				t.Errorf("the gate answered %s; want no %s", got, tt.notWant)
			}
			send(t, agent, `{"jsonrpc":"2.0","method":"notifications/marker"}`)
			if req, ok := recv(t, server).(*jsonrpc.Request); !ok || req.Method != "notifications/marker" {
				t.Errorf("the server got %v before the marker; want the refused call never sent", req)
			}
		})
	}

	t.Run("a tools/call without an id is dropped", func(t *testing.T) {
		send(t, agent, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"wipe"}}`)
		send(t, agent, `{"jsonrpc":"2.0","method":"notifications/marker"}`)
		if req, ok := recv(t, server).(*jsonrpc.Request); !ok || req.Method != "notifications/marker" {
			t.Errorf("the server got %v; want the tools/call notification dropped", req)
		}
	})

	t.Run("a cancelled wait forwards nothing and answers nothing", func(t *testing.T) {
		send(t, agent, `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"post"}}`)
		send(t, agent, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":20}}`)
		if req, ok := recv(t, server).(*jsonrpc.Request); !ok || req.Method != "notifications/cancelled" {
			t.Fatalf("the server got %v; want only the cancellation", req)
		}
		send(t, agent, `{"jsonrpc":"2.0","id":21,"method":"ping"}`)
		req, ok := recv(t, server).(*jsonrpc.Request)
		if !ok || req.Method != "ping" {
			t.Fatalf("the server got %v; want the ping, and the cancelled call never", req)
		}
		if err := server.Write(t.Context(), &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if got := recvResult(t, agent); got.ID != req.ID {
			t.Errorf("the client got an answer for %v first; want none for the cancelled call", got.ID.Raw())
		}
	})
}

// TestServerGoneIsAnError: a server that exits under the client ends the
// gate with an error naming it (limenctl prints it with a hint), and a
// client that leaves ends it cleanly.
func TestServerGoneIsAnError(t *testing.T) {
	downClient, downGate := mcp.NewInMemoryTransports()
	upGate, upServer := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() {
		done <- mcpgate.Run(t.Context(), downGate, upGate, mcpgate.Options{Name: "raw", Decider: refuseAll{}})
	}()
	agent, err := downClient.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	server, err := upServer.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	server.Close()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "the MCP server raw closed its side") {
		t.Errorf("Run after the server left = %v; want an error naming the server", err)
	}
}

// TestStdioBatch: a 2025-03-26 batch over stdio is decided per call: the
// server gets the allowed call only, and the client one batch answer with
// the server's result and limen's refusal.
func TestStdioBatch(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	gateIn, clientOut := io.Pipe()
	clientIn, gateOut := io.Pipe()
	upGate, upServer := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() {
		done <- mcpgate.Run(ctx, &mcp.IOTransport{Reader: gateIn, Writer: gateOut}, upGate,
			mcpgate.Options{Name: "raw", Decider: byName{"mcp__raw__read": limenv1.Verdict_VERDICT_ALLOW, "mcp__raw__wipe": limenv1.Verdict_VERDICT_BLOCK}})
	}()
	server, err := upServer.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		clientOut.Close()
		cancel()
		<-done
		server.Close()
	}()
	go io.WriteString(clientOut, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read"}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wipe"}}]`+"\n")
	req, ok := recv(t, server).(*jsonrpc.Request)
	if !ok || !strings.Contains(string(req.Params), `"read"`) {
		t.Fatalf("the server got %v; want the allowed call", req)
	}
	if err := server.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"content":[],"x":1}`)}); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(clientIn).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &answers); err != nil || len(answers) != 2 {
		t.Fatalf("the client got %s; want one batch of two answers", line)
	}
	for _, a := range answers {
		if want := map[int]string{1: `"x":1`, 2: `limen did not allow mcp__raw__wipe`}[a.ID]; !strings.Contains(string(a.Result), want) {
			t.Errorf("answer %d = %s; want %s in it", a.ID, a.Result, want)
		}
	}
}
