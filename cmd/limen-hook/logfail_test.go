package main

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/limenhq/limen/client"
	"github.com/limenhq/limen/internal/daemon"
)

// With limend's decision log failing (a full disk), the hook prints ask for
// a call the policy allows, with the reason.
func TestUnwritableLogMeansAsk(t *testing.T) {
	var full atomic.Bool
	dir := t.TempDir()
	d, err := daemon.Start(daemon.Config{
		Socket: filepath.Join(dir, "g.sock"), HTTPSocket: filepath.Join(dir, "h.sock"), DB: filepath.Join(dir, "limen.db"),
		ShutdownTimeout: 2 * time.Second, LockTimeout: 200 * time.Millisecond,
		LogWriteFault: func() error {
			if full.Load() {
				return syscall.ENOSPC
			}
			return nil
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(d.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		d.Stop(context.Background()) // reports the records the full disk lost
	})
	l := limend{http: filepath.Join(dir, "h.sock"), c: c}
	l.rules(t, []string{"Read"}, nil)
	if out, _ := claude(t, golden(t, "read.json"), "--socket", l.http); out.Specific.Decision != "allow" {
		t.Fatalf("before the disk fills: %s %q; want allow", out.Specific.Decision, out.Specific.Reason)
	}
	full.Store(true)
	d.Store().Flush(t.Context()) // the commit of that allow's record fails
	out, _ := claude(t, golden(t, "read.json"), "--socket", l.http)
	if out.Specific.Decision != "ask" || !strings.Contains(out.Specific.Reason, "cannot write its decision log") {
		t.Errorf("with the decision log failing: %s %q; want ask saying why", out.Specific.Decision, out.Specific.Reason)
	}
}
