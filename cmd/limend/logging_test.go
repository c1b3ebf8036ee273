package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/client"
)

// TestLogFileJSON runs the real binary with --log-format json --log-file:
// every line in the file is one JSON record, the start and the stop are
// there with their usual messages, nothing goes to stderr, and the file
// and its new directory are private.
func TestLogFileJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds limend; skipped with -short")
	}
	bin := buildLimend(t)
	dir := t.TempDir()
	sock, logFile := filepath.Join(dir, "run", "limend.sock"), filepath.Join(dir, "logs", "limend.log")
	cmd := exec.Command(bin, "--socket", sock, "--db", filepath.Join(dir, "limen.db"), "--log-format", "json", "--log-file", logFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	c, err := client.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := c.Health.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Fatalf("limend did not come up: %v\n%s", err, stderr.String())
	}
	c.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("limend: %v\n%s", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("with --log-file, limend wrote to stderr:\n%s", stderr.String())
	}
	f, err := os.Open(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var msgs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			Time  time.Time `json:"time"`
			Level string    `json:"level"`
			Msg   string    `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.Time.IsZero() || rec.Level == "" {
			t.Errorf("log line is not a JSON record with time, level and msg: %s (%v)", sc.Bytes(), err)
		}
		msgs = append(msgs, rec.Msg)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"limend is serving", "limend stopped"} {
		if !strings.Contains(all, want) {
			t.Errorf("log lacks %q:\n%s", want, all)
		}
	}
	for path, want := range map[string]os.FileMode{logFile: 0o600, filepath.Dir(logFile): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v; want mode %04o", path, fi, err, want)
		}
	}
}

// TestLogFlagsRefused: a format limend does not know, a rotation size
// below a megabyte and a log file it cannot write are refused at start,
// each naming the flag.
func TestLogFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o600)
	base := []string{"--socket", filepath.Join(dir, "s.sock"), "--db", filepath.Join(dir, "l.db")}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--log-format", "xml"}, "--log-format \"xml\" (LIMEN_LOG_FORMAT): use text or json"},
		{[]string{"--log-file", filepath.Join(dir, "l.log"), "--log-max-size", "0"}, "--log-max-size 0"},
		{[]string{"--log-file", filepath.Join(dir, "file", "l.log")}, "--log-file"},
	} {
		code, stderr := runCaptured(t, append(base, c.args...))
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("limend %q = %d, %q; want an error saying %q", c.args, code, stderr, c.want)
		}
	}
}

// runCaptured runs limend's run in this process with stderr captured.
func runCaptured(t *testing.T, args []string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	code := run(args)
	os.Stderr = stderr
	w.Close()
	var b bytes.Buffer
	b.ReadFrom(r)
	return code, b.String()
}

// TestJournalDropsTime: on the stderr systemd connected to the journal
// (JOURNAL_STREAM names it) records carry no time of their own; elsewhere
// they do.
func TestJournalDropsTime(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "journal")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stream   string
		wantTime bool
	}{{fmt.Sprintf("%d:%d", st.Dev, st.Ino), false}, {"", true}, {"1:2", true}} {
		t.Setenv("JOURNAL_STREAM", c.stream)
		f.Truncate(0)
		f.Seek(0, 0)
		log, closeLog, err := newLogger(logOptions{level: "info", format: "text"}, f)
		if err != nil {
			t.Fatal(err)
		}
		log.Info("limend is serving")
		closeLog()
		b, _ := os.ReadFile(f.Name())
		if got := strings.Contains(string(b), "time="); got != c.wantTime {
			t.Errorf("JOURNAL_STREAM=%q: %q; want time= %v", c.stream, b, c.wantTime)
		}
	}
}
