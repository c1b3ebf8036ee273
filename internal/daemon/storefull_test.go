package daemon_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/limentest"
	"github.com/limenhq/limen/policy"
	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store"
)

// readme is an action that the policy below allows by rule.
func readme() *limenv1.Action {
	return &limenv1.Action{User: "ana", Agent: "test", Session: "s1", Tool: "Read", InputJson: `{"file_path":"/home/ana/shop/README.md"}`, Cwd: "/home/ana/shop"}
}

func allowReads(t *testing.T, l *limentest.Limend) {
	t.Helper()
	l.SetPolicy(t, strings.Replace(policy.DefaultDocument, "allow = []", `allow = ["Read"]`, 1))
	if got := decide(t, l.Client, readme()); got.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Fatalf("Read with an allow rule = %v (%s); want allow", got.GetVerdict(), got.GetReason())
	}
}

// waitHealth watches limend's health until it reports want.
func waitHealth(t *testing.T, c *client.Client, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	w, err := c.Health.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		h, err := w.Recv()
		if err != nil {
			t.Fatalf("watch health for %v: %v", want, err)
		}
		if h.GetStatus() == want {
			return
		}
	}
}

// A decision log that cannot be written turns every allow into ask and
// health NOT_SERVING, and limend recovers by itself once writes work again.
// The write error is injected; TestFullDiskNeverAllows does the same on a
// real full file system.
func TestUnwritableLogNeverAllows(t *testing.T) {
	var fault atomic.Pointer[error]
	l := limentest.Start(t, func(cfg *daemon.Config) {
		cfg.LogWriteFault = func() error {
			if p := fault.Load(); p != nil {
				return *p
			}
			return nil
		}
	})
	allowReads(t, l)

	full := syscall.ENOSPC
	var err error = full
	fault.Store(&err)
	// The first allow after the disk fills goes out before its batch is
	// committed: that commit is what tells limend.
	decide(t, l.Client, readme())
	if err := l.Store().Flush(t.Context()); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Flush with the disk full = %v; want ENOSPC", err)
	}
	for _, a := range []*limenv1.Action{readme(), readme(), bash("ls")} {
		got := decide(t, l.Client, a)
		if got.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			t.Fatalf("%s with an unwritable decision log = allow; want ask", a.GetInputJson())
		}
		if a.GetTool() == "Read" && (got.GetVerdict() != limenv1.Verdict_VERDICT_ASK || got.GetDecidedBy() != limenv1.Decider_DECIDER_FAILSAFE || !strings.Contains(got.GetReason(), "cannot write its decision log")) {
			t.Errorf("Read with an unwritable decision log = %v by %v (%s); want ask by the failsafe saying the log cannot be written", got.GetVerdict(), got.GetDecidedBy(), got.GetReason())
		}
	}
	for _, svc := range []string{"", limenv1.DecisionService_ServiceDesc.ServiceName} {
		h, err := l.Client.Health.Check(t.Context(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("health of %q with an unwritable log = %v, %v; want NOT_SERVING", svc, h.GetStatus(), err)
		}
	}
	// The client's fail-closed path sees it too.
	if v := l.Client.DecideAndWait(t.Context(), readme(), client.WaitOptions{Wait: time.Millisecond}); v.Verdict == limenv1.Verdict_VERDICT_ALLOW {
		t.Errorf("DecideAndWait with an unwritable log = allow")
	}

	fault.Store(nil) // space is back: a probe finds out without any record
	waitHealth(t, l.Client, healthpb.HealthCheckResponse_SERVING)
	if got := decide(t, l.Client, readme()); got.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Errorf("Read after the log recovered = %v (%s); want allow again", got.GetVerdict(), got.GetReason())
	}
	if err := l.Store().Flush(t.Context()); err != nil {
		t.Errorf("Flush after recovery: %v", err)
	}
	if err := l.Store().LogErr(); err != nil {
		t.Errorf("LogErr after recovery: %v", err)
	}
}

// syncBuffer is a log destination the batcher and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The failure is logged once, with the count of records not written,
// however many commits fail, and the recovery once; the records held while
// it failed are written then.
func TestUnwritableLogIsLoggedOnce(t *testing.T) {
	var logs syncBuffer
	var failing atomic.Bool
	dir := t.TempDir()
	cfg := daemon.Config{
		Socket: filepath.Join(dir, "limend.sock"), DB: filepath.Join(dir, "limen.db"), LockTimeout: 200 * time.Millisecond,
		LogWriteFault: func() error {
			if failing.Load() {
				return syscall.EIO
			}
			return nil
		},
	}
	d, err := daemon.Start(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer stop(t, d)
	c, err := client.Dial(cfg.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	failing.Store(true)
	for range 3 { // blocks are logged too: three failed commits
		for range 2 {
			decide(t, c, bash("rm -rf /"))
		}
		d.Store().Flush(t.Context())
	}
	out := logs.String()
	if n := strings.Count(out, "cannot write its decision log"); n != 1 {
		t.Fatalf("the failure was logged %d times; want once:\n%s", n, out)
	}
	// The first failed commit held one or both of the first two records
	// (a slow machine may commit a batch before the Flush).
	if !strings.Contains(out, "records_unwritten=2 records_dropped=0") && !strings.Contains(out, "records_unwritten=1 records_dropped=0") {
		t.Errorf("the failure's log line does not give the records the first commit could not write:\n%s", out)
	}
	failing.Store(false)
	waitHealth(t, c, healthpb.HealthCheckResponse_SERVING)
	if out := logs.String(); !strings.Contains(out, "records_written_late=6 records_dropped=0") {
		t.Errorf("the recovery does not say the 6 records held were written late:\n%s", out)
	}
	if err := d.Store().Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	hist, err := c.API.History(t.Context(), &limenv1.HistoryRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(hist.GetDecisions()); n != 6 {
		t.Errorf("history holds %d decisions after the recovery; want the 6 made while the log failed", n)
	}
}

// fullDisk starts limend with its database on a small tmpfs mounted for
// the test (so only as root; 4 MiB, above the 1 MiB limend keeps free),
// lets it allow reads, and fills the file system; removing the returned
// file gives the space back.
func fullDisk(t *testing.T) (*limentest.Limend, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; TestUnwritableLogNeverAllows covers the same with an injected write error")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "limen-test", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); TestUnwritableLogNeverAllows covers the same with an injected write error", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	l := limentest.Start(t, func(cfg *daemon.Config) { cfg.DB = filepath.Join(mnt, "limen.db") })
	allowReads(t, l)

	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill the tmpfs: %v", err)
			}
			return l, filler
		}
	}
}

// On a real, small, full file system allows turn into asks, and come back
// when space does.
func TestFullDiskNeverAllows(t *testing.T) {
	l, filler := fullDisk(t)

	// bbolt reuses freed pages first, so some commits may still succeed;
	// appended decision records soon need new ones.
	allows := 0
	for i := 0; l.Store().LogErr() == nil; i++ {
		if i == 5000 {
			t.Fatalf("5000 decisions on a full disk and the decision log never failed (%d allows)", allows)
		}
		if decide(t, l.Client, readme()).GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			allows++
		}
		l.Store().Flush(t.Context())
	}
	if !errors.Is(l.Store().LogErr(), store.ErrLogUnwritable) {
		t.Fatalf("LogErr = %v; want ErrLogUnwritable", l.Store().LogErr())
	}
	t.Logf("the log failed after %d allows were committed", allows)
	for range 20 {
		if got := decide(t, l.Client, readme()); got.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			t.Fatalf("Read on a full disk = allow; want ask")
		}
		// Each Flush retries the records held: on a disk still full that
		// must keep failing, not let allows through between retries.
		l.Store().Flush(t.Context())
		if l.Store().LogErr() == nil {
			t.Fatal("the decision log was taken as writable again on a disk still full")
		}
	}
	if h, err := l.Client.Health.Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil || h.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health on a full disk = %v, %v; want NOT_SERVING", h.GetStatus(), err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitHealth(t, l.Client, healthpb.HealthCheckResponse_SERVING)
	if got := decide(t, l.Client, readme()); got.GetVerdict() != limenv1.Verdict_VERDICT_ALLOW {
		t.Errorf("Read once space is back = %v (%s); want allow", got.GetVerdict(), got.GetReason())
	}
	if err := l.Store().Flush(t.Context()); err != nil {
		t.Errorf("Flush once space is back: %v", err)
	}
	if err := l.Store().Check(); err != nil {
		t.Errorf("the database after the full disk: %v", err)
	}
}

// The reproduction: 300 decisions in a row on a full disk, the way
// hooks send them (nobody waits for the log). Whatever was allowed, before
// limend noticed, is recorded once space is back: no allow goes unrecorded.
func TestFullDiskRecordsEveryAllow(t *testing.T) {
	l, filler := fullDisk(t)
	var allowed []string
	for range 300 {
		if d := decide(t, l.Client, readme()); d.GetVerdict() == limenv1.Verdict_VERDICT_ALLOW {
			allowed = append(allowed, d.GetDecisionId())
		}
	}
	// Limend checks the free space when a batch starts, so it asks from
	// about the first record on; a loaded machine may let a few more out
	// before the batcher runs.
	t.Logf("%d of 300 decisions on a full disk were allow", len(allowed))
	if len(allowed) >= 150 {
		t.Errorf("%d of 300 decisions on a full disk were allow; want limend to notice at the first batch", len(allowed))
	}
	if l.Store().LogErr() == nil {
		l.Store().Flush(t.Context())
	}
	if l.Store().LogErr() == nil {
		t.Fatal("300 decisions on a full disk and the decision log never failed")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitHealth(t, l.Client, healthpb.HealthCheckResponse_SERVING)
	if err := l.Store().Flush(t.Context()); err != nil {
		t.Fatalf("Flush once space is back: %v", err)
	}
	for _, id := range allowed {
		n, err := store.ParseID(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Store().Decision(n); err != nil {
			t.Errorf("allowed decision %s is not in the log once space is back: %v", id, err)
		}
	}
}
