package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storev1"
)

// startWatched starts cmd with its stderr copied to the test's, and
// returns a channel closed when limend logs that it is serving, which it
// does once its sockets listen. limend runs at --log-level info for that
// line; of the rest only errors and anything that is not a log line (a
// panic) are copied.
func startWatched(t *testing.T, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	// Not cmd.StderrPipe: Wait, which the caller runs concurrently, would
	// close it under the reader. The read end sees EOF once limend exits.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	err = cmd.Start()
	w.Close() // limend has its own copy
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	serving := make(chan struct{})
	go func() {
		defer r.Close()
		sc := bufio.NewScanner(r)
		seen := false
		for sc.Scan() {
			if !seen && strings.Contains(sc.Text(), "limend is serving") {
				seen = true
				close(serving)
				continue
			}
			if line := sc.Text(); !strings.HasPrefix(line, "time=") || strings.Contains(line, " level=ERROR ") {
				fmt.Fprintln(os.Stderr, line) // what --log-level error printed, and panics
			}
		}
	}()
	return serving
}

// TestCrashKeepsEveryAcknowledgedAnswer runs the real limend binary, has
// several clients write answers as fast as they can, kills limend with
// SIGKILL at random moments, restarts it, and finally checks that every
// answer a client saw acknowledged is in the store, and that the file
// passes bbolt's consistency check.
func TestCrashKeepsEveryAcknowledgedAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds limend and runs kill cycles; skipped with -short")
	}
	dir := t.TempDir()
	bin := buildLimend(t)
	sock, db := filepath.Join(dir, "run", "limend.sock"), filepath.Join(dir, "limen.db")
	rng := rand.New(rand.NewPCG(1, 2))

	// Every Task is asked by rule, so what is written does not depend on
	// what the predictor learns along the way.
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(policy.DefaultDocument, "ask = []", `ask = ["Task"]`, 1)
	if _, err := st.SetPolicy(0, &storev1.Policy{Document: doc, Author: "test"}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	type ack struct {
		id      uint64
		approve bool
	}
	var (
		mu    sync.Mutex
		acked []ack
	)
	const cycles, writers = 12, 4
	for cycle := range cycles {
		cmd := exec.Command(bin, "--socket", sock, "--http-socket", filepath.Join(dir, "run", "http.sock"), "--db", db, "--log-level", "info", "--rate", "1e9")
		serving := startWatched(t, cmd)
		// Whatever happens to the test, no limend outlives it.
		t.Cleanup(func() { cmd.Process.Kill() })
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()

		// Dial once limend says it listens: dialing earlier finds no
		// socket and waits out the client's reconnect backoff, a tenth
		// of a second at every one of the restarts.
		select {
		case <-serving:
		case err := <-exited:
			t.Fatalf("cycle %d: limend exited before serving: %v", cycle, err)
		case <-time.After(20 * time.Second):
			t.Fatalf("cycle %d: limend did not come up after a SIGKILL", cycle)
		}
		c, err := client.Dial(sock)
		if err != nil {
			t.Fatal(err)
		}
		ready, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		if _, err := c.Health.Check(ready, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
			t.Fatalf("cycle %d: limend did not come up after a SIGKILL: %v", cycle, err)
		}
		cancel()

		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := 0; ; i++ {
					act := &limenv1.Action{Tool: "Task", InputJson: fmt.Sprintf(`{"job":"c%d-w%d-%d"}`, cycle, w, i)}
					d := c.Decide(t.Context(), act)
					if d.Err != nil {
						return // limend is gone
					}
					id := d.Decision.GetAskId()
					if id == "" {
						continue
					}
					approve := i%4 != 0
					choice := limenv1.Choice_CHOICE_DENY
					if approve {
						choice = limenv1.Choice_CHOICE_APPROVE
					}
					if _, err := c.API.Answer(t.Context(), &limenv1.AnswerRequest{AskId: id, Choice: choice}); err != nil {
						return // not acknowledged: it may or may not be stored
					}
					n, _ := store.ParseID(id)
					mu.Lock()
					acked = append(acked, ack{n, approve})
					mu.Unlock()
				}
			})
		}
		// A random moment: the kill is the point of the test, not a wait.
		<-time.After(time.Duration(30+rng.IntN(250)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-exited
		wg.Wait()
		c.Close()
	}

	st, err = store.Open(db, store.Options{})
	if err != nil {
		t.Fatalf("open the store after %d kills: %v", cycles, err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatalf("bbolt consistency check: %v", err)
	}
	if len(acked) < cycles {
		t.Fatalf("only %d answers acknowledged over %d cycles; the test did not exercise anything", len(acked), cycles)
	}
	n, err := st.AnswerCount()
	if err != nil || n < len(acked) {
		t.Fatalf("store holds %d answers (%v); %d were acknowledged", n, err, len(acked))
	}
	for _, a := range acked {
		d, err := st.Decision(a.id)
		if err != nil {
			t.Fatalf("acknowledged ask %d: %v", a.id, err)
		}
		o := d.GetOutcome()
		want := storev1.Choice_CHOICE_DENY
		if a.approve {
			want = storev1.Choice_CHOICE_APPROVE
		}
		if o.GetState() != storev1.AskState_ASK_STATE_ANSWERED || o.GetChoice() != want {
			t.Fatalf("acknowledged ask %d has outcome %v; want answered %v", a.id, o, want)
		}
	}
	t.Logf("%d kills, %d acknowledged answers, all on disk", cycles, len(acked))
}
