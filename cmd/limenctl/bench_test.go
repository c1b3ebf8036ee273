package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchTable(t *testing.T) {
	run, _ := polDaemon(t)
	out, errOut, code := run("bench", "--seed-answers", "-c", "1,2", "--duration", "150ms", "--round", "50ms")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"seeded: 190 distinct actions", "closed loop", "built-in fixture",
		"concurrency 1 ", "concurrency 2 ", "health ", "decide ", "decide÷health", "verdicts: allow",
		"targets (docs/BENCHMARKS.md", "c=2", "decide calls/s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr is not a terminal, so no progress bar; got %q", errOut)
	}
}

func TestBenchJSON(t *testing.T) {
	run, _ := polDaemon(t)
	stream := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(stream, []byte(`{"user":"","session":"s1","tool":"Bash","input":{"command":"ls"},"cwd":"/tmp","truth":"approve"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run("--json", "bench", "--actions", stream, "--rate", "200", "-c", "2", "--duration", "100ms", "--round", "50ms")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var got struct {
		Actions int    `json:"actions"`
		Source  string `json:"source"`
		PID     int    `json:"limend_pid"`
		Runs    []struct {
			Mode    string `json:"mode"`
			Targets []struct {
				Name     string            `json:"name"`
				Calls    uint64            `json:"calls"`
				Outcomes map[string]uint64 `json:"outcomes"`
				Service  *struct {
					P50 int64 `json:"p50_ns"`
				} `json:"service_latency"`
			} `json:"targets"`
			Ratio struct {
				Of  string  `json:"of"`
				P50 float64 `json:"p50"`
			} `json:"ratio"`
		} `json:"runs"`
	}
	if err := json.NewDecoder(bytes.NewReader([]byte(out))).Decode(&got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Actions != 1 || got.Source != stream || got.PID != os.Getpid() || len(got.Runs) != 1 {
		t.Fatalf("header = %+v", got)
	}
	r := got.Runs[0]
	if r.Mode != "open" || len(r.Targets) != 2 || r.Targets[0].Name != "health" || r.Targets[1].Name != "decide" {
		t.Fatalf("run = %+v", r)
	}
	if d := r.Targets[1]; d.Calls == 0 || d.Service == nil || d.Outcomes["ask"] == 0 {
		t.Errorf("decide = %+v: want calls, service latency, and ask for an unseen action", d)
	}
	if r.Ratio.Of != "decide" || r.Ratio.P50 <= 0 {
		t.Errorf("ratio = %+v", r.Ratio)
	}
}

func TestBenchRefusesBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"tool\":\"Bash\",\"truth\":\"perhaps\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"zero callers", []string{"-c", "0"}, "-c 0"},
		{"negative rate", []string{"--rate", "-5"}, "--rate"},
		{"no duration", []string{"--duration", "0s"}, "--duration"},
		{"tiny round", []string{"--round", "1ms"}, "--round"},
		{"negative limit", []string{"--limit", "-1"}, "--limit"},
		{"missing stream", []string{"--actions", filepath.Join(t.TempDir(), "none.jsonl")}, "--actions"},
		{"bad stream", []string{"--actions", bad}, `truth is "perhaps"`},
		{"arguments", []string{"extra"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := execute(append([]string{"--socket", filepath.Join(t.TempDir(), "none.sock"), "bench"}, tt.args...), &out, &errOut)
			if code != exitUsage || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut.String(), exitUsage, tt.want)
			}
		})
	}
	t.Run("limend unreachable", func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := execute([]string{"--socket", filepath.Join(t.TempDir(), "none.sock"), "bench", "--duration", "1s"}, &out, &errOut)
		if code != exitUnreachable || !strings.Contains(errOut.String(), "hint:") {
			t.Errorf("exit %d, stderr %q; want %d with a hint", code, errOut.String(), exitUnreachable)
		}
	})
}
