package mcpgate_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/internal/serverpeer/serverpeertest"
)

// A real limend run as another user (as someone else's process on
// limen's socket would be): the MCP server runs nothing, and the model
// reads whose socket it was. The read is allowed by rule for limend's own
// user, so only the check refuses it.
func TestGateChecksWhoServesTheSocket(t *testing.T) {
	var l *limentest.Limend
	serverpeertest.AsUser(t, serverpeertest.OtherUID, func() { l = limentest.Start(t) })
	c, err := client.Dial(l.Socket())
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
	found := "served by uid " + strconv.Itoa(serverpeertest.OtherUID)
	if !res.IsError || !strings.Contains(text(res), found) {
		t.Errorf("read: isError=%v %q; want isError saying %q", res.IsError, text(res), found)
	}
	if ran := f.ran(); len(ran) != 0 {
		t.Fatalf("the server ran %v though limend's socket is served by another user", ran)
	}
}
