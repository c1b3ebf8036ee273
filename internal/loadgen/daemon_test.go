package loadgen_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
	"github.com/limenhq/limen/internal/loadgen"
	"github.com/limenhq/limen/internal/server"
)

// TestAgainstLimend seeds a real limend with the fixture's answers and
// drives Decide and the health baseline at it over its Unix socket.
func TestAgainstLimend(t *testing.T) {
	dir := t.TempDir()
	cfg := daemon.Config{
		Socket: filepath.Join(dir, "run", "limend.sock"), DB: filepath.Join(dir, "data", "limen.db"),
		ShutdownTimeout: 2 * time.Second, LockTimeout: 200 * time.Millisecond,
		Limits: server.Limits{Rate: 1e6, Burst: 1e6},
	}
	d, err := daemon.Start(cfg, nil)
	if err != nil {
		t.Fatalf("start limend: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Stop(context.Background()); err != nil {
			t.Errorf("stop limend: %v", err)
		}
	})
	c, err := client.Dial(cfg.Socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })

	acts, err := loadgen.ReadActionsFile("", 60)
	if err != nil {
		t.Fatal(err)
	}
	var lastDone, lastTotal int
	res, err := loadgen.Seed(t.Context(), c, acts, 3, 4, func(done, total int) { lastDone, lastTotal = done, total })
	if err != nil {
		t.Fatalf("Seed: %v", err)
	}
	if res.Distinct == 0 || res.Distinct > 60 || len(res.Asked) == 0 || res.Asked[0] == 0 {
		t.Errorf("seed result %+v: want some distinct actions, asked in the first pass", res)
	}
	if res.Approved+res.Denied != sum(res.Asked) {
		t.Errorf("answered %d+%d, asked %d in all", res.Approved, res.Denied, sum(res.Asked))
	}
	if lastDone != lastTotal || lastTotal == 0 {
		t.Errorf("last progress %d/%d, want done = total", lastDone, lastTotal)
	}
	if got := sum(res.Asked[1:]); len(res.Asked) > 1 && got >= res.Asked[0]*len(res.Asked[1:]) {
		t.Errorf("asks per pass %v: seeding taught limen nothing", res.Asked)
	}

	rep, err := loadgen.Run(t.Context(), loadgen.Config{
		Concurrency: 2, Duration: 100 * time.Millisecond, Round: 50 * time.Millisecond, ServerPID: os.Getpid(),
	}, loadgen.Target{Name: "health", Call: loadgen.HealthCall(c)}, loadgen.Target{Name: "decide", Call: loadgen.DecideCall(c, acts)})
	if err != nil {
		t.Fatal(err)
	}
	h, dec := rep.Target("health"), rep.Target("decide")
	if h.Errors != 0 || h.Outcomes["serving"] != h.Calls || h.Calls == 0 {
		t.Errorf("health: %d calls, %d errors (%s), outcomes %v", h.Calls, h.Errors, h.FirstError, h.Outcomes)
	}
	if dec.Errors != 0 || dec.Calls == 0 || dec.Outcomes["allow"]+dec.Outcomes["block"] == 0 {
		t.Errorf("decide: %d calls, %d errors (%s), outcomes %v: want allows and blocks after seeding", dec.Calls, dec.Errors, dec.FirstError, dec.Outcomes)
	}
	if dec.ClientCPU <= 0 || dec.AllocsPerCall <= 0 {
		t.Errorf("decide: CPU %v and allocs %v per call, want both measured", dec.ClientCPU, dec.AllocsPerCall)
	}
}

func TestDecideFailsClosedWhenLimendIsGone(t *testing.T) {
	c, err := client.Dial(filepath.Join(t.TempDir(), "nobody.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	acts, _ := loadgen.ReadActionsFile("", 1)
	out, err := loadgen.DecideCall(c, acts)(t.Context(), 0, 0)
	if err == nil || out != "ask (failed closed)" {
		t.Errorf("DecideCall with no limend = %q, %v; want ask (failed closed) and an error", out, err)
	}
	if _, err := loadgen.HealthCall(c)(t.Context(), 0, 0); err == nil {
		t.Errorf("HealthCall with no limend: no error")
	}
	if _, err := loadgen.Seed(t.Context(), c, acts, 1, 1, nil); err == nil {
		t.Errorf("Seed with no limend: no error")
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
