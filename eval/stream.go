package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/limenhq/limen/action"
)

// Action is one line of a stream as a strategy sees it: everything but the
// label. It deliberately has no truth and no risk field, so no strategy can
// read them.
type Action struct {
	// Seq is the action's position in the stream, from 0.
	Seq int
	// Time is when the action happened, as the stream says.
	Time time.Time
	// User and Session say whose agent acted, in which session.
	User    string
	Session string
	// Tool is the runtime's tool name ("Bash", "Read", "mcp__github__…").
	Tool string
	// Input is the tool's arguments. Strategies must not modify it: every
	// strategy of a run is handed the same map.
	Input map[string]any
	// Cwd is the agent's working directory.
	Cwd string
}

// Predictor returns the action as the predictor and the engine see it.
func (a Action) Predictor() action.Action {
	return action.Action{
		User: a.User, Agent: "replay", Session: a.Session,
		Tool: a.Tool, Input: a.Input, Cwd: a.Cwd, Time: a.Time,
	}
}

// labelled is an action with its label. Only the replayer holds these; a
// strategy never sees one.
type labelled struct {
	act     Action
	approve bool   // the person's answer when asked
	risk    string // the stream's risk class, for reporting only
}

// line is the JSON form of one stream line.
type line struct {
	T       time.Time      `json:"t"`
	User    string         `json:"user"`
	Session string         `json:"session"`
	Tool    string         `json:"tool"`
	Input   map[string]any `json:"input"`
	Cwd     string         `json:"cwd"`
	Truth   string         `json:"truth"`
	Risk    string         `json:"risk"`
}

// maxLine bounds one stream line; a longer line is an error, not a hang.
const maxLine = 4 << 20

// reader yields the labelled actions of a stream, in order.
type reader struct {
	sc   *bufio.Scanner
	n    int // lines read
	seq  int // actions yielded
	last map[string]time.Time
}

func newReader(r io.Reader) *reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &reader{sc: sc, last: make(map[string]time.Time)}
}

// next returns the next action, or io.EOF after the last. Blank lines are
// skipped; anything else that is not a valid action is an error naming the
// line and the field.
func (r *reader) next() (labelled, error) {
	for r.sc.Scan() {
		r.n++
		b := bytes.TrimSpace(r.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		l, err := r.parse(b)
		if err != nil {
			return labelled{}, fmt.Errorf("line %d: %w", r.n, err)
		}
		return l, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return labelled{}, fmt.Errorf("line %d: longer than %d bytes: %w", r.n+1, maxLine, err)
		}
		return labelled{}, fmt.Errorf("read stream: %w", err)
	}
	return labelled{}, io.EOF
}

func (r *reader) parse(b []byte) (labelled, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return labelled{}, fmt.Errorf("not a JSON object of the EVAL.md stream format: %w", err)
	}
	switch {
	case l.T.IsZero():
		return labelled{}, errors.New(`"t" is missing: give the time as RFC 3339, such as "2026-03-02T10:04:11Z"`)
	case l.User == "":
		return labelled{}, errors.New(`"user" is missing: every action belongs to a user`)
	case l.Tool == "":
		return labelled{}, errors.New(`"tool" is missing: give the runtime's tool name, such as "Bash"`)
	}
	var approve bool
	switch l.Truth {
	case "approve":
		approve = true
	case "deny":
	default:
		return labelled{}, fmt.Errorf(`"truth" is %q: it must be "approve" or "deny"`, l.Truth)
	}
	if prev, ok := r.last[l.User]; ok && l.T.Before(prev) {
		return labelled{}, fmt.Errorf(`"t" %s is before user %s's previous action (%s): a stream is in time order`,
			l.T.Format(time.RFC3339), l.User, prev.Format(time.RFC3339))
	}
	r.last[l.User] = l.T
	if l.Input == nil {
		l.Input = map[string]any{}
	}
	act := Action{Seq: r.seq, Time: l.T, User: l.User, Session: l.Session, Tool: l.Tool, Input: l.Input, Cwd: l.Cwd}
	r.seq++
	return labelled{act: act, approve: approve, risk: l.Risk}, nil
}
