package main

import (
	"strings"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// TestBenchRefusesRealLimend: bench runs again and again on a scratch
// limend that holds only its own decisions, but refuses one that holds a
// decision of a real runtime, unless --against-real-limend.
func TestBenchRefusesRealLimend(t *testing.T) {
	run, api := polDaemon(t)
	short := []string{"bench", "-c", "1", "--duration", "50ms", "--round", "25ms", "--no-baseline"}
	for i := range 2 {
		if out, errOut, code := run(short...); code != exitOK {
			t.Fatalf("bench run %d on a scratch limend = %d\n%s%s", i, code, out, errOut)
		}
	}
	// One tool call of a real runtime, older than bench's.
	if _, err := api.API.Decide(t.Context(), &limenv1.DecideRequest{Action: &limenv1.Action{
		Agent: "claude-code", Session: "s1", Tool: "Bash", InputJson: `{"command":"make deploy"}`, Cwd: "/src"}}); err != nil {
		t.Fatal(err)
	}
	// Bench's own decisions after it, more than a page of history.
	if out, errOut, code := run("bench", "-c", "4", "--duration", "300ms", "--round", "50ms", "--no-baseline", "--against-real-limend"); code != exitOK {
		t.Fatalf("bench --against-real-limend = %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := run(short...)
	if code != exitFailure || out != "" {
		t.Errorf("bench on a limend in real use = %d, stdout %q; want exit 1 and nothing run", code, out)
	}
	for _, want := range []string{"is in real use: it holds decision", "Bash by claude-code", "bench would queue its fake asks among yours",
		"hint: run bench against a scratch limend: limend --socket /tmp/lb/limend.sock", "--against-real-limend"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("refusal lacks %q: %s", want, errOut)
		}
	}
}
