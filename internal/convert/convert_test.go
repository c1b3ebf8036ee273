package convert

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

func TestAction(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name, input string
		wantErr     string // "" for none
		wantArgs    int
	}{
		{"object", ` {"command":"ls","n":3} `, "", 2},
		{"empty is {}", "", "", 0},
		{"blank is {}", "  \n", "", 0},
		{"array", `["ls"]`, "must be a JSON object", 0},
		{"not JSON", `{command: ls}`, "is not valid JSON", 0},
		{"trailing data", `{"a":1} {}`, "data after the JSON object", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := &limenv1.Action{User: "ana", Agent: "claude", Session: "s1", Tool: "Bash", InputJson: tt.input, Cwd: "/w"}
			act, err := Action(msg, at)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Action(%q) error = %v, want %q", tt.input, err, tt.wantErr)
			}
			if act.User != "ana" || act.Agent != "claude" || act.Session != "s1" || act.Tool != "Bash" || act.Cwd != "/w" || !act.Time.Equal(at) {
				t.Errorf("Action(%q) = %+v: fields lost", tt.input, act)
			}
			if len(act.Input) != tt.wantArgs || act.Input == nil {
				t.Errorf("Action(%q).Input = %v, want %d arguments", tt.input, act.Input, tt.wantArgs)
			}
			if p := Preview(msg); len(p.Input) != tt.wantArgs || p.Tool != "Bash" {
				t.Errorf("Preview(%q) = %+v, want %d arguments", tt.input, p, tt.wantArgs)
			}
		})
	}
	// Numbers stay as sent: keys spell 3.0 as 3.0, not 3.
	act, _ := Action(&limenv1.Action{Tool: "mcp__x__y", InputJson: `{"n":3.0}`}, at)
	if n, ok := act.Input["n"].(json.Number); !ok || n.String() != "3.0" {
		t.Errorf("Input[n] = %#v, want json.Number 3.0", act.Input["n"])
	}
}
