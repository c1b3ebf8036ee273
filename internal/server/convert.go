package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/predictor"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// MaxInputBytes is the largest input_json limend decides on as usual and
// records whole. A larger one, up to HardMaxInputBytes, is oversized: a
// file tool's is decided on its path, anything else at most asked, and its
// long strings are cut in the record (see oversize.go).
const MaxInputBytes = 64 << 10

func validateAction(a *limenv1.Action) error {
	switch {
	case a == nil:
		return invalid("action is required: send {\"action\": {\"tool\": \"Bash\", \"input_json\": \"{\\\"command\\\":\\\"ls\\\"}\"}}")
	case a.GetTool() == "":
		return invalid("action.tool is empty: set it to the tool's name, such as \"Bash\", \"Edit\" or \"mcp__github__create_issue\"")
	case len(a.GetTool()) > 256:
		return invalid(fmt.Sprintf("action.tool is %d bytes; a tool name is at most 256", len(a.GetTool())))
	case len(a.GetInputJson()) > HardMaxInputBytes:
		return invalid(fmt.Sprintf("action.input_json is %d bytes; limend reads at most %d (1 MiB): send the tool's arguments, and write a large file in parts", len(a.GetInputJson()), HardMaxInputBytes))
	}
	for name, v := range map[string]string{"user": a.GetUser(), "agent": a.GetAgent(), "session": a.GetSession(), "cwd": a.GetCwd(), "tool_use_id": a.GetToolUseId()} {
		if len(v) > 4096 {
			return invalid(fmt.Sprintf("action.%s is %d bytes; the limit is 4096", name, len(v)))
		}
	}
	return nil
}

// NewSelf describes where a limend keeps its sockets and database, for
// the predictor to recognise an agent touching them (action.Self): the
// paths made absolute and clean, empty ones left out.
func NewSelf(sockets []string, db string, pid int) *action.Self {
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return filepath.Clean(p)
	}
	self := &action.Self{DB: abs(db), PID: pid}
	if pid == os.Getpid() {
		if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
			self.Home = filepath.Clean(h)
		}
	}
	for _, s := range sockets {
		if s = abs(s); s != "" {
			self.Sockets = append(self.Sockets, s)
		}
	}
	// limen's programs wherever they were installed: limend's own binary
	// and limen-hook and limenctl beside it (a red-team pass replaced a
	// limen-hook installed outside the usual bin directories).
	if exe, err := os.Executable(); err == nil && pid == os.Getpid() {
		dir := filepath.Dir(exe)
		self.Files = append(self.Files, exe, filepath.Join(dir, "limen-hook"), filepath.Join(dir, "limenctl"))
	}
	return self
}

// requiredArg is the argument without which a tool call of a known tool
// means nothing: deciding "Bash with no command" would queue an ask nobody
// can judge (a new-user trial found such asks in the queue as "Bash {}").
var requiredArg = map[string]string{
	"Bash":         "command",
	"Read":         "file_path",
	"Edit":         "file_path",
	"Write":        "file_path",
	"MultiEdit":    "file_path",
	"NotebookEdit": "notebook_path",
	"WebFetch":     "url",
}

// checkArgs refuses a call of a known tool whose required argument is
// missing, empty or not a string.
func checkArgs(a action.Action) error {
	name, ok := requiredArg[a.Tool]
	if !ok {
		return nil
	}
	switch v := a.Input[name].(type) {
	case string:
		if strings.TrimSpace(v) != "" {
			return nil
		}
		return fmt.Errorf("action.input_json.%s is empty: a %s call needs its %s, such as %s", name, a.Tool, name, argExample(a.Tool))
	case nil:
		return fmt.Errorf("action.input_json has no %q: a %s call needs it, such as %s", name, a.Tool, argExample(a.Tool))
	default:
		return fmt.Errorf("action.input_json.%s is %s, not a string: send it as %s", name, jsonKind(v), argExample(a.Tool))
	}
}

// jsonKind names the JSON type of a value decoded with UseNumber.
func jsonKind(v any) string {
	switch v.(type) {
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return "null"
	}
}

func argExample(tool string) string {
	switch tool {
	case "Bash":
		return `{"command":"ls -la"}`
	case "WebFetch":
		return `{"url":"https://example.com"}`
	case "NotebookEdit":
		return `{"notebook_path":"analysis.ipynb"}`
	default:
		return `{"file_path":"src/main.go"}`
	}
}

func toEvidence(p predictor.Prediction) *limenv1.Evidence {
	return &limenv1.Evidence{Level: p.Level, Approvals: p.Approvals, Denials: p.Denials, EffectiveCount: p.Effective, Specific: p.Specific}
}
