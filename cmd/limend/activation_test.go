package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/service"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// fakeSystemd does what systemd does for limend.socket and
// limend-http.socket: it owns the listening sockets, starts nothing until
// a connection waits on one of them, then starts limend with the sockets
// as fds 3 and 4 (LISTEN_FDS, LISTEN_FDNAMES, and LISTEN_PID set in the
// child itself, since go-systemd checks it against getpid), and after
// limend exits it goes back to waiting. Like StartLimitBurst it gives up
// after limit starts.
type fakeSystemd struct {
	t       *testing.T
	files   []*os.File // what systemd holds: the sockets outlive limend
	names   string
	argv    []string
	limit   int
	started chan *exec.Cmd // each start, as it happens
	exited  chan error     // each exit, as it happens
	mu      sync.Mutex
	stderr  strings.Builder // every limend's stderr, for failures
	stop    chan struct{}   // closed when the test ends
}

func newFakeSystemd(t *testing.T, sockets []string, names string, argv []string, limit int) *fakeSystemd {
	t.Helper()
	s := &fakeSystemd{t: t, names: names, argv: argv, limit: limit,
		started: make(chan *exec.Cmd, limit), exited: make(chan error, limit), stop: make(chan struct{})}
	for _, path := range sockets {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o600); err != nil { // SocketMode=0600
			t.Fatal(err)
		}
		f, err := l.(*net.UnixListener).File()
		if err != nil {
			t.Fatal(err)
		}
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		l.Close() // f holds the socket, as systemd's fd does
		s.files = append(s.files, f)
	}
	t.Cleanup(func() {
		close(s.stop)
		for _, f := range s.files {
			f.Close()
		}
	})
	go s.run()
	return s
}

// logs is what every limend started so far wrote on stderr.
func (s *fakeSystemd) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

func (s *fakeSystemd) run() {
	for range s.limit {
		if !s.waitForCall() {
			return
		}
		shell := `LISTEN_PID=$$; export LISTEN_PID; exec "$0" "$@"`
		cmd := exec.Command("sh", append([]string{"-c", shell}, s.argv...)...)
		cmd.Env = append(os.Environ(), "LISTEN_FDS="+strconv.Itoa(len(s.files)), "LISTEN_FDNAMES="+s.names)
		cmd.ExtraFiles = s.files
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			s.exited <- err
			return
		}
		s.started <- cmd
		err := cmd.Wait()
		s.mu.Lock()
		s.stderr.WriteString(stderr.String())
		s.mu.Unlock()
		s.exited <- err
	}
}

// waitForCall blocks until a connection waits on one of the sockets (what
// systemd's poll on a listening socket sees), or the test ends.
func (s *fakeSystemd) waitForCall() bool {
	fds := make([]unix.PollFd, len(s.files))
	for i, f := range s.files {
		fds[i] = unix.PollFd{Fd: int32(f.Fd()), Events: unix.POLLIN}
	}
	for {
		select {
		case <-s.stop:
			return false
		default:
		}
		n, err := unix.Poll(fds, 100)
		if err == unix.EINTR || n == 0 {
			continue
		}
		return err == nil
	}
}

// buildHook compiles limen-hook next to limend.
func buildHook(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "limen-hook")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/limenhq/limen/cmd/limen-hook").CombinedOutput(); err != nil {
		t.Fatalf("build limen-hook: %v\n%s", err, out)
	}
	return bin
}

// runHook runs limen-hook for one Claude Code Bash call and returns its
// permissionDecision and reason.
func runHook(t *testing.T, hook, httpSock, command string, timeout time.Duration) (decision, reason string) {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": t.TempDir(), "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]string{"command": command}})
	cmd := exec.Command(hook, "--socket", httpSock, "--timeout", timeout.String())
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("limen-hook: %v; output %s", err, out)
	}
	var o struct {
		Specific struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("limen-hook printed %s: %v", out, err)
	}
	return o.Specific.Decision, o.Specific.Reason
}

// TestSocketActivationStartsOnFirstCall is the reboot: the sockets exist
// (systemd made them at login) but no limend runs. The first hook call
// waits on the socket, that starts limend with the sockets handed over,
// and limend decides the call. After SIGTERM limend leaves systemd's
// socket files in place, and the next call starts it again with the ask
// still pending.
func TestSocketActivationStartsOnFirstCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds limend and limen-hook; skipped with -short")
	}
	bin, hook := buildLimend(t), buildHook(t)
	dir := t.TempDir()
	sock, httpSock := filepath.Join(dir, "run", "limend.sock"), filepath.Join(dir, "run", "limend-http.sock")
	argv := []string{bin, "--socket", sock, "--http-socket", httpSock, "--db", filepath.Join(dir, "data", "limen.db")}
	sd := newFakeSystemd(t, []string{sock, httpSock}, service.GRPCSocketName+":"+service.HTTPSocketName, argv, 2)
	t.Cleanup(func() {
		select {
		case cmd := <-sd.started:
			cmd.Process.Kill()
		default:
		}
	})

	select {
	case <-sd.started:
		t.Fatal("limend started before any call reached its socket")
	default:
	}
	decision, reason := runHook(t, hook, httpSock, "make deploy", 20*time.Second)
	var limend *exec.Cmd
	select {
	case limend = <-sd.started:
	default:
		t.Fatalf("limen-hook answered %s (%s) but no limend was started", decision, reason)
	}
	if decision != "ask" || strings.Contains(reason, "unreachable") || strings.Contains(reason, "did not answer") {
		t.Fatalf("first call after the reboot: %s (%s); want limend's own ask", decision, reason)
	}
	c, err := client.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	c.Close()
	if err != nil || len(list.GetAsks()) != 1 || list.GetAsks()[0].GetDecision().GetAction().GetAgent() != "claude-code" {
		t.Fatalf("pending = %v, %v; want the hook's one ask, queued by the activated limend", list.GetAsks(), err)
	}

	if err := limend.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-sd.exited; err != nil {
		t.Fatalf("limend after SIGTERM: %v; want exit 0\n%s", err, sd.logs())
	}
	for _, p := range []string{sock, httpSock} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("after SIGTERM %s is gone (%v): limend removed systemd's socket, so nothing would start it again", p, err)
		}
	}
	select {
	case <-sd.started:
		t.Fatal("limend started again with no call waiting")
	default:
	}

	// The next call, gRPC this time, starts limend again; the ask is kept.
	c, err = client.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err = c.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	if err != nil || len(list.GetAsks()) != 1 {
		t.Fatalf("pending after the restart = %v, %v; want the one ask kept", list.GetAsks(), err)
	}
	limend = <-sd.started
	limend.Process.Signal(syscall.SIGTERM)
	if err := <-sd.exited; err != nil {
		t.Fatalf("second limend after SIGTERM: %v\n%s", err, sd.logs())
	}
}

// TestSocketActivationFailureIsAsk hands limend sockets it must refuse —
// a unit whose path is not limend's --socket, sockets named for nothing
// limend knows: limend exits with an error that names the fix, and the
// hook call waiting on the socket still gets ask, never allow.
func TestSocketActivationFailureIsAsk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds limend and limen-hook; skipped with -short")
	}
	bin, hook := buildLimend(t), buildHook(t)
	for _, c := range []struct {
		name, names string
		otherSocket bool
		want        string
	}{
		{"path is not --socket", service.GRPCSocketName + ":" + service.HTTPSocketName, true, "ListenStream="},
		{"unknown names", "grpc:http", false, "FileDescriptorName="},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			sock, httpSock := filepath.Join(dir, "run", "limend.sock"), filepath.Join(dir, "run", "limend-http.sock")
			flagSock := sock
			if c.otherSocket {
				flagSock = filepath.Join(dir, "elsewhere.sock")
			}
			argv := []string{bin, "--socket", flagSock, "--http-socket", httpSock, "--db", filepath.Join(dir, "limen.db")}
			sd := newFakeSystemd(t, []string{sock, httpSock}, c.names, argv, 3)

			decision, reason := runHook(t, hook, httpSock, "git status", 3*time.Second)
			if decision != "ask" {
				t.Fatalf("hook with a limend that cannot start: %s (%s); want ask", decision, reason)
			}
			if err := <-sd.exited; err == nil {
				t.Fatal("limend served sockets it should refuse")
			}
			if !strings.Contains(sd.logs(), c.want) {
				t.Errorf("limend's error does not say how to fix the unit (%s):\n%s", c.want, sd.logs())
			}
		})
	}
}
