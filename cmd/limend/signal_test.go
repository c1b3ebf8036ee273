package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/client"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// buildLimend compiles this package once per test binary run.
func buildLimend(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "limend")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build limend: %v\n%s", err, out)
	}
	return bin
}

// TestSignalStopsGracefully sends SIGTERM to the real binary while a client
// waits on an ask: the waiter is told limend is going away (so it treats the
// call as ask), limend exits 0 and removes its sockets, and the pending ask
// is still there after a restart.
func TestSignalStopsGracefully(t *testing.T) {
	if testing.Short() {
		t.Skip("builds limend; skipped with -short")
	}
	bin := buildLimend(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "run", "limend.sock")
	args := []string{"--socket", sock, "--http-socket", filepath.Join(dir, "run", "http.sock"), "--db", filepath.Join(dir, "limen.db")}

	run := func() (*exec.Cmd, chan error, *client.Client) {
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Whatever happens to the test, no limend outlives it.
		t.Cleanup(func() { cmd.Process.Kill() })
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		c, err := client.Dial(sock)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		if _, err := c.Health.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
			t.Fatalf("limend did not come up: %v", err)
		}
		return cmd, exited, c
	}

	cmd, exited, c := run()
	// A hangup (the terminal it was started from closed) does not stop it.
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	d := c.Decide(t.Context(), &limenv1.Action{Tool: "Bash", InputJson: `{"command":"make deploy"}`})
	if d.Decision.GetAskId() == "" {
		t.Fatalf("make deploy = %v; want a queued ask", d.Verdict)
	}
	awaitErr := make(chan error, 1)
	go func() {
		_, err := c.API.Await(t.Context(), &limenv1.AwaitRequest{AskId: d.Decision.GetAskId()})
		awaitErr <- err
	}()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Fatalf("limend after SIGTERM: %v; want exit 0", err)
	}
	if err := <-awaitErr; err == nil {
		t.Fatal("Await returned a verdict while limend stopped; want an error the caller turns into ask")
	}
	c.Close()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket still there after a graceful stop (%v)", err)
	}

	cmd, exited, c = run()
	defer c.Close()
	list, err := c.API.ListPending(t.Context(), &limenv1.ListPendingRequest{})
	if err != nil || len(list.GetAsks()) != 1 {
		t.Fatalf("pending after restart = %v, %v; want the one ask", list.GetAsks(), err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := <-exited; err != nil {
		t.Fatalf("limend after SIGINT: %v; want exit 0", err)
	}
}
