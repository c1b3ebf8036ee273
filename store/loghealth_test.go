package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// While the log fails, the newest records are kept and written at
// recovery; older ones beyond the limit are dropped and counted, and
// OnLogHealth hears of the failure once and of the recovery once.
func TestFailingLogKeepsTheNewestRecords(t *testing.T) {
	var failing atomic.Bool
	var heard []LogHealth // the batcher calls it; read after Flush returns
	s := openStore(t, "", Options{
		MaxBatch:      2,         // keeps maxHeldBatches*2 = 8 records
		FlushInterval: time.Hour, // batches end when full or flushed, not by the clock
		WriteFault: func() error {
			if failing.Load() {
				return syscall.ENOSPC
			}
			return nil
		},
		OnLogHealth: func(h LogHealth) { heard = append(heard, h) },
	})
	failing.Store(true)
	var ids []uint64
	for range 10 {
		for range 2 {
			id := newID(t, s)
			ids = append(ids, id)
			s.LogDecision(decision(id, "ana", storev1.Verdict_VERDICT_ALLOW))
		}
		if err := s.Flush(t.Context()); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("Flush on a full disk = %v; want ENOSPC", err)
		}
		if err := s.LogErr(); !errors.Is(err, ErrLogUnwritable) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("LogErr = %v; want ErrLogUnwritable and the cause", err)
		}
	}
	if len(heard) != 1 || heard[0].Err == nil || heard[0].Unwritten != 2 || heard[0].Dropped != 0 {
		t.Fatalf("OnLogHealth heard %+v; want one failure with 2 records unwritten", heard)
	}
	failing.Store(false)
	if err := s.Flush(t.Context()); err != nil { // retries what it holds
		t.Fatalf("Flush once writes work: %v", err)
	}
	if err := s.LogErr(); err != nil {
		t.Errorf("LogErr after recovery = %v", err)
	}
	if len(heard) != 2 || heard[1].Err != nil || heard[1].Unwritten != 8 || heard[1].Dropped != 12 {
		t.Fatalf("OnLogHealth heard %+v; want then a recovery with 8 written late and 12 dropped", heard)
	}
	for i, id := range ids {
		_, err := s.Decision(id)
		if kept := i >= len(ids)-8; kept != (err == nil) {
			t.Errorf("decision %d (the %dth): %v; want it kept: %v", id, i, err, kept)
		}
	}
}

// Below Options.MinFreeSpace the log counts as failing from the start of
// a batch, though its commits may still succeed (bbolt's free pages); a
// negative limit turns the check off.
func TestLowSpaceCountsAsFailing(t *testing.T) {
	for _, c := range []struct {
		min     int64
		failing bool
	}{{1 << 62, true}, {-1, false}, {0, false}} { // 0: the default, 1 MiB
		s := openStore(t, "", Options{MinFreeSpace: c.min})
		id := newID(t, s)
		s.LogDecision(decision(id, "ana", storev1.Verdict_VERDICT_ALLOW))
		if err := s.Flush(t.Context()); err != nil {
			t.Fatalf("MinFreeSpace %d: Flush = %v; the commit itself works", c.min, err)
		}
		if _, err := s.Decision(id); err != nil {
			t.Errorf("MinFreeSpace %d: the record was not written: %v", c.min, err)
		}
		err := s.LogErr()
		if got := errors.Is(err, ErrLowSpace) && errors.Is(err, ErrLogUnwritable); got != c.failing {
			t.Errorf("MinFreeSpace %d: LogErr = %v; want failing with ErrLowSpace: %v", c.min, err, c.failing)
		}
		if c.failing && !strings.Contains(err.Error(), "KiB left where") {
			t.Errorf("LogErr = %q; want it to say how much is left", err)
		}
	}
}

// On a real full file system (a tmpfs mounted for the test, as root) with
// the free-space check off, bbolt's commits fail with ENOSPC: the store
// says so, holds the records, and writes them once space is back.
func TestRealFullDiskCommit(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; TestFailingLogKeepsTheNewestRecords injects the write error instead")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "limen-store-test", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	var heard []LogHealth
	s := openStore(t, filepath.Join(mnt, "limen.db"), Options{MinFreeSpace: -1, OnLogHealth: func(h LogHealth) { heard = append(heard, h) }})
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for chunk := make([]byte, 4096); ; {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	var ids []uint64
	for i := 0; s.LogErr() == nil; i++ {
		if i == 5000 {
			t.Fatal("5000 records on a full disk and no commit failed")
		}
		id := newID(t, s)
		ids = append(ids, id)
		s.LogDecision(decision(id, "ana", storev1.Verdict_VERDICT_ALLOW))
		s.Flush(t.Context())
	}
	if err := s.LogErr(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("LogErr = %v; want ENOSPC from the commit", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatalf("Flush once space is back: %v", err)
	}
	if err := s.LogErr(); err != nil {
		t.Fatalf("LogErr once space is back: %v", err)
	}
	for _, id := range ids {
		if _, err := s.Decision(id); err != nil {
			t.Errorf("decision %d is not on disk once space is back: %v", id, err)
		}
	}
	if len(heard) != 2 || heard[0].Err == nil || heard[1].Err != nil || heard[1].Unwritten < 1 {
		t.Errorf("OnLogHealth heard %+v; want a failure, then a recovery that wrote the held records", heard)
	}
}

// Flush reports records still unwritten even when it brings none of its
// own, and stops reporting them once a retry has written them.
func TestFlushReportsHeldRecords(t *testing.T) {
	var failing atomic.Bool
	s := openStore(t, "", Options{WriteFault: func() error {
		if failing.Load() {
			return syscall.EIO
		}
		return nil
	}})
	failing.Store(true)
	s.LogDecision(decision(newID(t, s), "ana", storev1.Verdict_VERDICT_ALLOW))
	for i := range 3 { // the first brings the record, the others nothing
		if err := s.Flush(t.Context()); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "write 1 decision records") {
			t.Fatalf("Flush %d with a record unwritten = %v; want the write error", i, err)
		}
	}
	failing.Store(false)
	for i := range 2 {
		if err := s.Flush(t.Context()); err != nil {
			t.Fatalf("Flush %d once writes work = %v", i, err)
		}
	}
}
