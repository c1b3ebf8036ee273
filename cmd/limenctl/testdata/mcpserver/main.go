// Command mcpserver is a small real MCP server (go-sdk, stdio) for the
// mcp-gate end-to-end test. Each tool call it runs is recorded as a file in
// the directory given as its argument, so the test can tell which calls
// reached it.
package main

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type args struct {
	Text string `json:"text" jsonschema:"what to say"`
}

func main() {
	dir := os.Args[1]
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	for _, name := range []string{"echo", "wipe", "post"} {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: name + " some text"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
			rec := filepath.Join(dir, name+"-"+strconv.FormatInt(time.Now().UnixNano(), 10))
			if err := os.WriteFile(rec, []byte(in.Text), 0o644); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ": " + in.Text}}}, nil, nil
		})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
