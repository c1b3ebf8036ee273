package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const smokeStream = "../../eval/testdata/smoke.jsonl"

func runEval(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(append([]string{"eval"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestEvalTable(t *testing.T) {
	code, out, errOut := runEval(t, smokeStream, "--per-user")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"300 actions, 5 users", "limen's default policy",
		"limen ", "always-ask ", "remember-exact ", "remember-prefix ",
		"calibration of limen", "per user", "u28 ", "spread over the 5 users (min / median / max)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr is not a terminal, so no progress bar is drawn; got %q", errOut)
	}
}

func TestEvalJSON(t *testing.T) {
	code, out, errOut := runEval(t, smokeStream, "--json", "--costs", "allow=20,block=2,ask=1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Actions int `json:"actions"`
		Results []struct {
			Strategy string `json:"strategy"`
			Overall  struct {
				Asks          int     `json:"asks"`
				CostPerAction float64 `json:"cost_per_action"`
			} `json:"overall"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	if rep.Actions != 300 || len(rep.Results) != 4 {
		t.Fatalf("report: %d actions, %d strategies; want 300 and 4", rep.Actions, len(rep.Results))
	}
	for _, r := range rep.Results {
		// With flat costs and no blocks, a baseline's cost is its asks
		// plus 20 per wrong allow; always-ask's is exactly 1.
		if r.Strategy == "always-ask" && (r.Overall.Asks != 300 || r.Overall.CostPerAction != 1) {
			t.Errorf("always-ask: %+v", r.Overall)
		}
	}
}

// --floor adds the oracles, each paying for one more rule than the last,
// so each costs at least as much as the one before.
func TestEvalFloor(t *testing.T) {
	code, out, errOut := runEval(t, smokeStream, "--json", "--floor", "--costs", "allow=20,block=2,ask=1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Results []struct {
			Strategy string `json:"strategy"`
			Overall  struct {
				Asks          int     `json:"asks"`
				CostPerAction float64 `json:"cost_per_action"`
			} `json:"overall"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	var names []string
	prev := -1.0
	for _, r := range rep.Results {
		if !strings.HasPrefix(r.Strategy, "floor-") {
			continue
		}
		names = append(names, r.Strategy)
		if r.Overall.CostPerAction < prev {
			t.Errorf("%s costs %.4f, less than the floor before it (%.4f)", r.Strategy, r.Overall.CostPerAction, prev)
		}
		prev = r.Overall.CostPerAction
	}
	if strings.Join(names, " ") != "floor-coarse floor-keys floor-exact floor-blocks" {
		t.Errorf("floors %v; want floor-coarse floor-keys floor-exact floor-blocks", names)
	}
	if code, out, _ := runEval(t, smokeStream, "--floor"); code != exitOK || !strings.Contains(out, "oracles told every answer") {
		t.Errorf("the table does not say what the floors are (exit %d):\n%s", code, out)
	}
}

func TestEvalRefusesBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"t":"2026-03-02T10:00:00Z","user":"u1","tool":"Bash","truth":"maybe"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no stream", nil, exitUsage, "eval needs the labelled stream"},
		{"empty stream", []string{empty}, exitUsage, "holds no actions"},
		{"missing file", []string{filepath.Join(t.TempDir(), "nope.jsonl")}, exitFailure, "hint: give the path of a .jsonl stream"},
		{"bad label", []string{bad}, exitFailure, `line 1: "truth" is "maybe"`},
		{"costs not name=value", []string{smokeStream, "--costs", "20,2,1"}, exitUsage, `--costs: "20" is not name=value`},
		{"unknown cost", []string{smokeStream, "--costs", "deny=3"}, exitUsage, `unknown cost "deny"`},
		{"negative cost", []string{smokeStream, "--costs", "allow=-1"}, exitUsage, "--costs allow=-1: the cost must be more than zero"},
		{"bad policy file", []string{smokeStream, "--policy", bad}, exitUsage, "--policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runEval(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q (stdout %q)", code, errOut, tt.code, tt.want, out)
			}
		})
	}
}

// --users-half replays the two halves of the smoke stream's users apart:
// together they are the whole stream, and neither holds the other's users.
func TestEvalUsersHalf(t *testing.T) {
	type report struct {
		Actions int `json:"actions"`
		Users   int `json:"users"`
		Results []struct {
			Strategy string `json:"strategy"`
			PerUser  []struct {
				User string `json:"user"`
			} `json:"per_user"`
		} `json:"results"`
	}
	halves := map[string]report{}
	for _, h := range []string{"a", "b"} {
		code, out, errOut := runEval(t, smokeStream, "--json", "--per-user", "--users-half", h)
		if code != exitOK {
			t.Fatalf("--users-half %s: exit %d: %s", h, code, errOut)
		}
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("--users-half %s: %v", h, err)
		}
		halves[h] = rep
	}
	a, b := halves["a"], halves["b"]
	// The smoke stream's 5 users: u42 (71 actions) falls in a, u28, u31,
	// u54 and u56 (229 actions) in b.
	if a.Users != 1 || a.Actions != 71 || b.Users != 4 || b.Actions != 229 {
		t.Errorf("half a: %d users, %d actions; half b: %d users, %d actions; want 1, 71 and 4, 229",
			a.Users, a.Actions, b.Users, b.Actions)
	}
	inA := map[string]bool{}
	for _, u := range a.Results[0].PerUser {
		inA[u.User] = true
	}
	for _, u := range b.Results[0].PerUser {
		if inA[u.User] {
			t.Errorf("user %s is in both halves", u.User)
		}
	}

	code, out, errOut := runEval(t, smokeStream, "--users-half", "a")
	if code != exitOK || !strings.Contains(out, "only the users of half a") {
		t.Errorf("exit %d; the table should say which half it covers:\n%s%s", code, out, errOut)
	}
	code, _, errOut = runEval(t, smokeStream, "--users-half", "c")
	if code != exitUsage || !strings.Contains(errOut, `--users-half "c": give a or b`) {
		t.Errorf("--users-half c: exit %d, stderr %q; want a usage error naming the flag", code, errOut)
	}
}
