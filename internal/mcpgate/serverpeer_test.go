package mcpgate_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
)

// A real limend that the gate is told runs as another uid (as it would see
// someone else's process on limen's socket): the MCP server runs nothing,
// and the model reads whose socket it was. (TestSocketOfAnotherUserIsNotBelieved
// in client has a real other user's server.) The read is allowed by rule, so
// only the check refuses it.
func TestGateChecksWhoServesTheSocket(t *testing.T) {
	l := limentest.Start(t)
	l.SetPolicy(t, strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["mcp__files__read"]`, 1))
	other := uint32(os.Getuid() + 1)
	c, err := client.DialServer(l.Socket(), other)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := &files{}
	cs := connect(t, f, c, time.Second)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "/tmp/a"}})
	if err != nil {
		t.Fatalf("tools/call read: %v", err)
	}
	found := "served by uid " + strconv.Itoa(os.Getuid())
	if !res.IsError || !strings.Contains(text(res), found) {
		t.Errorf("read: isError=%v %q; want isError saying %q", res.IsError, text(res), found)
	}
	if ran := f.ran(); len(ran) != 0 {
		t.Fatalf("the server ran %v though limend's socket is not served by the expected uid", ran)
	}
}
