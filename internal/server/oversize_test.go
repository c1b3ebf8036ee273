package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/internal/convert"
	"github.com/limenhq/limen/internal/engine"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestRecordedInput(t *testing.T) {
	long := strings.Repeat("é", 40<<10) // two bytes a rune: a cut must not split one
	tests := []struct {
		name, in string
		keeps    []string // substrings the record must hold
		cut      bool
	}{
		{"small is whole", `{"command":"ls"}`, []string{`{"command":"ls"}`}, false},
		{"64 KiB is whole", `{"content":"` + strings.Repeat("x", MaxInputBytes-20) + `"}`, nil, false},
		{"long content cut, path kept", `{"file_path":"/home/ana/shop/a.csv","content":"` + long + `","n":3}`,
			[]string{`"file_path":"/home/ana/shop/a.csv"`, `"n":3`, "limen kept 1024 of 81920 bytes; sha256 "}, true},
		{"nested strings cut", `{"edits":[{"old_string":"` + long + `","new_string":"b"}]}`, []string{`"new_string":"b"`, "limen kept"}, true},
		{"many small strings", `{"a":[` + strings.Repeat(`"xxxxxxxxxx",`, 8000) + `"x"]}`, []string{`"limen_input_cut"`}, true},
		{"not JSON", strings.Repeat("{", 70<<10), []string{`"limen_input_cut"`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := recordedInput(tt.in)
			if tt.cut == (got == tt.in) {
				t.Fatalf("cut = %v; want %v", got != tt.in, tt.cut)
			}
			if len(got) > MaxInputBytes || !json.Valid([]byte(got)) {
				t.Fatalf("record is %d bytes, valid JSON %v", len(got), json.Valid([]byte(got)))
			}
			for _, k := range tt.keeps {
				if !strings.Contains(got, k) {
					t.Errorf("record %.300s… lacks %q", got, k)
				}
			}
		})
	}
}

// TestLimitBeyondCaps: the rules meet every part of a command Parts cut
// short, an oversized input that is not a file tool's is never allowed,
// and what the engine blocked stays blocked.
func TestLimitBeyondCaps(t *testing.T) {
	doc := strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Bash(true)", "Bash(echo *)"]`, 1)
	doc = strings.Replace(doc, "ask = []", `ask = ["Bash(git push *)"]`, 1)
	pol, err := policy.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	env := policy.Env{Cwd: "/home/ana/shop", Home: "/home/ana"}
	allow := engine.Result{Verdict: policy.Allow, DecidedBy: engine.ByRule, Reason: "allowed by the policy rule Bash(true)"}
	tests := []struct {
		name, tool, input string
		res               engine.Result
		want              policy.Verdict
		says              string
	}{
		{"block past 64 parts", "Bash", cmd(strings.Repeat("true; ", 70) + "rm -rf /"), allow, policy.Block, "Bash(rm -rf /)"},
		{"ask rule past 64 parts", "Bash", cmd(strings.Repeat("true; ", 70) + "git push origin main"), allow, policy.Ask, "Bash(git push *)"},
		{"nothing hidden", "Bash", cmd(strings.Repeat("true; ", 70)), allow, policy.Allow, "Bash(true)"},
		{"too many to check", "Bash", cmd(strings.Repeat("true; ", action.MaxCheckedParts+1)), allow, policy.Block, "too big for limen to check"},
		{"a block stays", "Bash", cmd("ls"), engine.Result{Verdict: policy.Block, Reason: "x"}, policy.Block, "x"},
		{"oversized command", "Bash", `{"command":"echo hi","description":"` + strings.Repeat("x", MaxInputBytes) + `"}`, allow, policy.Ask, "more than the 64 KiB"},
		{"oversized Write", "Write", `{"file_path":"/home/ana/shop/a","content":"` + strings.Repeat("x", MaxInputBytes) + `"}`, allow, policy.Allow, "Bash(true)"},
		{"small Read", "Read", `{"file_path":"/home/ana/shop/a"}`, allow, policy.Allow, "Bash(true)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := &limenv1.Action{User: "ana", Tool: tt.tool, InputJson: tt.input, Cwd: env.Cwd}
			act, err := convert.Action(msg, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			got := limitBeyondCaps(pol, msg, action.Parts(act), env, tt.res, time.Now())
			if got.Verdict != tt.want || !strings.Contains(got.Reason, tt.says) {
				t.Fatalf("= %v %q; want %v saying %q", got.Verdict, got.Reason, tt.want, tt.says)
			}
		})
	}
}

func cmd(s string) string {
	b, _ := json.Marshal(map[string]string{"command": s})
	return string(b)
}

func TestFlattenDeep(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	tests := []struct {
		name, in, want, err string
	}{
		{"within", `{"a":` + deep(2) + `}`, `{"a":[[1]]}`, ""},
		{"cut below max", `{"command":"rm -rf /","x":` + deep(5) + `,"y":{"z":"ok"}}`, `{"command":"rm -rf /","x":[["<nested deeper than 3 levels: not read>"]],"y":{"z":"ok"}}`, ""},
		{"keys and numbers kept", `{"n":1.50,"s":"a\"b","t":true,"u":null,"o":{"p":{"q":{}}}}`, `{"n":1.50,"s":"a\"b","t":true,"u":null,"o":{"p":{"q":"<nested deeper than 3 levels: not read>"}}}`, ""},
		{"broken", `{"a":[[[[`, "", "cannot be read"},
		{"trailing data", `{"a":1} {}`, "", "data after the JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := flattenDeep(tt.in, 3)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("= %s, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want || checkDepth(got, 3) != nil {
				t.Fatalf("= %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}
