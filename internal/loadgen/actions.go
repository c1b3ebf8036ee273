package loadgen

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// Fixture is a small stream in the EVAL.md format (the 300 actions of
// evaldata/streams/smoke.jsonl: 5 users, 89% approved), embedded so that
// `limenctl bench` has realistic actions with no file at hand.
//
//go:embed testdata/actions.jsonl
var Fixture []byte

// FixtureName names Fixture in reports.
const FixtureName = "built-in fixture (smoke.jsonl, 300 actions)"

// Action is one line of a stream: the action as an agent would send it, and
// what its user answers when asked.
type Action struct {
	Action *limenv1.Action
	// Approve is the stream's truth: the user approves this action.
	Approve bool
}

// streamLine is the EVAL.md line format.
type streamLine struct {
	User    string          `json:"user"`
	Session string          `json:"session"`
	Tool    string          `json:"tool"`
	Input   json.RawMessage `json:"input"`
	Cwd     string          `json:"cwd"`
	Truth   string          `json:"truth"`
}

// Agent is the agent name the load generator puts on every action.
const Agent = "limenctl-bench"

// ReadActions reads at most limit actions (0: all) from a stream in the
// EVAL.md format: one JSON object per line with user, session, tool, input
// (an object), cwd and truth ("approve" or "deny"). Blank lines are
// skipped; anything else malformed is an error naming the line.
func ReadActions(r io.Reader, limit int) ([]Action, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var out []Action
	for line := 1; sc.Scan() && (limit <= 0 || len(out) < limit); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var l streamLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("read actions: line %d: %w (each line must be one JSON object in the EVAL.md stream format)", line, err)
		}
		switch {
		case l.Tool == "":
			return nil, fmt.Errorf("read actions: line %d: tool is empty: every line needs the tool's name, such as \"Bash\"", line)
		case len(l.Input) > 0 && l.Input[0] != '{':
			return nil, fmt.Errorf("read actions: line %d: input must be a JSON object of the tool's arguments, such as {\"command\":\"ls\"}", line)
		case l.Truth != "approve" && l.Truth != "deny":
			return nil, fmt.Errorf("read actions: line %d: truth is %q: it must be \"approve\" or \"deny\"", line, l.Truth)
		}
		input := string(l.Input)
		if input == "" {
			input = "{}"
		}
		out = append(out, Action{
			Action: &limenv1.Action{
				User: l.User, Agent: Agent, Session: l.Session, Tool: l.Tool, InputJson: input, Cwd: l.Cwd,
			},
			Approve: l.Truth == "approve",
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read actions: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("read actions: the stream has no actions")
	}
	return out, nil
}

// ReadActionsFile reads a stream file; an empty path means Fixture.
func ReadActionsFile(path string, limit int) ([]Action, error) {
	if path == "" {
		return ReadActions(bytes.NewReader(Fixture), limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read actions: %w", err)
	}
	defer f.Close()
	acts, err := ReadActions(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return acts, nil
}
