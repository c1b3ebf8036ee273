package store

import (
	"errors"
	"sync/atomic"
	"syscall"
	"testing"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
)

// While the log fails, the newest records are kept and written at
// recovery; older ones beyond the limit are dropped and counted, and
// OnLogHealth hears of the failure once and of the recovery once.
func TestFailingLogKeepsTheNewestRecords(t *testing.T) {
	var failing atomic.Bool
	var heard []LogHealth // the batcher calls it; read after Flush returns
	s := openStore(t, "", Options{
		MaxBatch: 2, // keeps maxHeldBatches*2 = 8 records
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
			s.LogDecision(decision(id, "ana", limenv1.Verdict_VERDICT_ALLOW))
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
