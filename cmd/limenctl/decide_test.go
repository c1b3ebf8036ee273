package main

import (
	"encoding/json"
	"testing"
)

// TestDecideQuotesArguments: the words the shell split are quoted again as
// the shell would need them, so the command limend decides is the one the
// person typed; a single argument is the command as written.
func TestDecideQuotesArguments(t *testing.T) {
	run, _ := polDaemon(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"git", "commit", "-m", "fix bug"}, "git commit -m 'fix bug'"},
		{[]string{"git", "status"}, "git status"},
		{[]string{"rm -rf build && make"}, "rm -rf build && make"},
		{[]string{"echo", "it's", "$HOME", "a&&b"}, `echo "it's" '$HOME' 'a&&b'`},
		{[]string{"ls", "*.go"}, "ls '*.go'"},
	}
	for _, tt := range tests {
		out, errOut, code := run(append([]string{"--json", "decide"}, tt.args...)...)
		if code != exitAsk && code != exitOK && code != exitBlock {
			t.Fatalf("decide %q = %d: %s", tt.args, code, errOut)
		}
		var d struct {
			Action struct {
				InputJSON string `json:"input_json"`
			} `json:"action"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("decide %q: stdout is not a decision (%v): %s", tt.args, err, out)
		}
		var input struct{ Command string }
		if err := json.Unmarshal([]byte(d.Action.InputJSON), &input); err != nil {
			t.Fatalf("input_json %q: %v", d.Action.InputJSON, err)
		}
		if input.Command != tt.want {
			t.Errorf("decide %q decided %q; want %q", tt.args, input.Command, tt.want)
		}
	}
}
