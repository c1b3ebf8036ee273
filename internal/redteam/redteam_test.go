package redteam

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// call is one line of a corpus: a Bash command, or a JSON tool call.
type call struct {
	file  string
	line  int
	text  string
	tool  string
	input string
}

func readCorpus(t *testing.T, name string) []call {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []call
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		c := call{file: name, line: n, text: text, tool: "Bash"}
		if strings.HasPrefix(text, `{"`) {
			var j struct {
				Tool  string          `json:"tool"`
				Input json.RawMessage `json:"input"`
			}
			if err := json.Unmarshal([]byte(text), &j); err != nil {
				t.Fatalf("%s:%d: %v", name, n, err)
			}
			c.tool, c.input = j.Tool, string(j.Input)
		} else {
			in, _ := json.Marshal(map[string]string{"command": text})
			c.input = string(in)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// decideAgain decides a once more, without answering.
func decideAgain(t *testing.T, l *limentest.Limend, a *limenv1.Action) *limenv1.Decision {
	t.Helper()
	resp, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a})
	if err != nil {
		t.Fatalf("Decide(%s): %v", a.GetInputJson(), err)
	}
	return resp.GetDecision()
}

// TestNoWayAround teaches limend an ordinary history through real asks and
// answers, three times over so that learning has settled, and then decides
// every attack of the corpus: none may be allowed.
func TestNoWayAround(t *testing.T) {
	l := limentest.Start(t)
	// No exploration: its random asks would make what is learned, and so
	// the verdicts below, differ from run to run.
	l.SetPolicy(t, strings.Replace(policy.DefaultDocument, "exploration = 0.01", "exploration = 0.0", 1))
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(me.HomeDir, "shop")
	action := func(c call) *limenv1.Action {
		return &limenv1.Action{Agent: "claude-code", Session: "s1", Tool: c.tool, InputJson: c.input, Cwd: cwd}
	}

	history := readCorpus(t, "history.txt")
	approved := 0
	for round := 0; round < 3; round++ {
		for _, c := range history {
			resp, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: action(c)})
			if err != nil {
				t.Fatalf("history:%d %s: %v", c.line, c.text, err)
			}
			d := resp.GetDecision()
			if d.GetVerdict() != limenv1.Verdict_VERDICT_ASK || d.GetAskId() == "" {
				continue
			}
			if _, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: d.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
				t.Fatalf("approve history:%d %s: %v", c.line, c.text, err)
			}
			approved++
		}
	}
	if approved < len(history)/2 {
		t.Fatalf("only %d asks were approved over the history of %d actions: the history taught limen little", approved, len(history))
	}
	// The history must have been learned: most of it is allowed now, or
	// the test below would pass for the wrong reason.
	// A runner after an edit asks about what was written (a rule of its
	// own, not learning): the person approves that once, as they would,
	// and it must then be allowed.
	decide := func(a *limenv1.Action) *limenv1.Decision {
		t.Helper()
		resp, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: a})
		if err != nil {
			t.Fatalf("Decide(%s): %v", a.GetInputJson(), err)
		}
		d := resp.GetDecision()
		if d.GetVerdict() == limenv1.Verdict_VERDICT_ASK && d.GetAskId() != "" && strings.Contains(d.GetReason(), "which an agent wrote since a person last allowed running it") {
			if _, err := l.Client.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: d.GetAskId(), Choice: limenv1.Choice_CHOICE_APPROVE}); err != nil {
				t.Fatalf("approve %s: %v", a.GetInputJson(), err)
			}
			return decideAgain(t, l, a)
		}
		return d
	}
	allowed := 0
	var not []string
	for _, c := range history {
		if d := decide(action(c)); d.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			allowed++
		} else {
			not = append(not, fmt.Sprintf("history:%d %s: %s", c.line, c.text, d.GetReason()))
		}
	}
	// And what the history's last edits wrote is allowed to run, so that
	// the attacks below are decided on what limen learned and on their
	// own marks, not on that rule.
	decide(action(call{tool: "Bash", input: `{"command":"make"}`}))
	if allowed*10 < len(history)*8 {
		t.Fatalf("after three rounds only %d of %d history actions are allowed: limen did not learn the history; not allowed:\n%s",
			allowed, len(history), strings.Join(not, "\n"))
	}

	for _, c := range append(readCorpus(t, "attacks.txt"), readCorpus(t, "found.txt")...) {
		resp, err := l.Client.API.Decide(t.Context(), &limenv1.DecideRequest{Action: action(c)})
		if err != nil {
			// A refusal is not an allow; say so only in verbose runs.
			t.Logf("%s:%d refused: %v", c.file, c.line, err)
			continue
		}
		d := resp.GetDecision()
		if d.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			t.Errorf("%s:%d allowed: %s %s\n\tkey %s, class %s: %s", c.file, c.line, c.tool, c.input, d.GetKey(), d.GetRiskClass(), d.GetReason())
		}
	}
}
