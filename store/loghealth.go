package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrLogUnwritable is LogErr's error: the last commit of the decision log
// failed, or the file system it is on is full, so records may not reach
// the disk. It clears by itself at the next commit that succeeds with
// room to spare.
var ErrLogUnwritable = errors.New("decision log cannot be written")

// ErrLowSpace is the cause LogErr gives when the database's file system
// has less than Options.MinFreeSpace left: the next commits are about to
// fail, and the allows they would record must not go out first.
var ErrLowSpace = errors.New("the file system is full")

// LogHealth is what Options.OnLogHealth hears when the decision log
// starts failing (Err set) or recovers (Err nil).
type LogHealth struct {
	// Err wraps ErrLogUnwritable and the cause; nil once a commit worked.
	Err error
	// Unwritten is how many records are not on disk: kept in memory and
	// retried while the log fails (lost if limend stops before it
	// recovers), or, at recovery, how many were written late.
	Unwritten int
	// Dropped is how many records were lost for good, beyond what a
	// failing log keeps for its retries, since it started failing.
	Dropped int
}

// logHealth is whether the decision log can be written. The batcher sets
// write and reports changes; space is set by whoever checks the free space
// (the batcher after each commit, and LogErr at most every
// spaceCheckEvery).
type logHealth struct {
	write     atomic.Pointer[error] // the last commit's failure, with the counts
	space     atomic.Pointer[error] // the last free-space check's finding
	lastCheck atomic.Int64          // UnixNano of the last free-space check
	reported  bool                  // failing, as last told to OnLogHealth (batcher only)
	dropped   int                   // records lost since the log started failing (batcher only)
}

// spaceCheckEvery bounds how often LogErr looks at the free space: a
// statfs per millisecond at most.
const spaceCheckEvery = int64(time.Millisecond)

// LogErr returns nil while the decision log is being written, and an error
// wrapping ErrLogUnwritable (with the cause, such as a full disk, and the
// number of records not written) from a failed commit, or a check that
// found the file system full, until a commit succeeds with room to spare.
// A decision that cannot be recorded must not allow: the server turns an
// allow into ask while this is not nil, so it is on every Decide's path:
// it costs a clock read and two atomic loads, and a statfs at most once
// per spaceCheckEvery, so that on a disk that fills up the allows stop
// within a millisecond, not at the failed commit a batch later.
func (s *Store) LogErr() error {
	s.maybeCheckSpace()
	if p := s.health.write.Load(); p != nil {
		return *p
	}
	if p := s.health.space.Load(); p != nil {
		return *p
	}
	return nil
}

// commitFailed records (batcher only) a commit that failed with cause:
// unwritten records are held for a retry, lost ones were dropped.
func (s *Store) commitFailed(cause error, unwritten, lost int) {
	s.health.dropped += lost
	err := fmt.Errorf("%w (%d records not written, %d dropped): %w", ErrLogUnwritable, unwritten, s.health.dropped, cause)
	s.health.write.Store(&err)
	s.report(unwritten)
}

// commitWorked records (batcher only) a commit of written records that
// succeeded, and looks at the free space again.
func (s *Store) commitWorked(written int) {
	s.health.write.Store(nil)
	s.setSpace(s.checkSpace())
	s.report(written)
}

// setSpace publishes a free-space check's finding.
func (s *Store) setSpace(err error) {
	s.health.lastCheck.Store(time.Now().UnixNano())
	if err == nil {
		s.health.space.Store(nil)
		return
	}
	err = fmt.Errorf("%w: %w", ErrLogUnwritable, err)
	s.health.space.Store(&err)
}

// maybeCheckSpace checks the free space if nobody did for spaceCheckEvery.
func (s *Store) maybeCheckSpace() {
	now := time.Now().UnixNano()
	last := s.health.lastCheck.Load()
	if now-last < spaceCheckEvery || !s.health.lastCheck.CompareAndSwap(last, now) {
		return
	}
	s.setSpace(s.checkSpace())
}

// report tells Options.OnLogHealth (batcher only) when the log starts or
// stops failing; n is the records unwritten (failing) or written late
// (recovered).
func (s *Store) report(n int) {
	err := s.LogErr()
	if failing := err != nil; failing == s.health.reported {
		return
	}
	s.health.reported = err != nil
	dropped := s.health.dropped
	if err == nil {
		s.health.dropped = 0
	}
	if s.opts.OnLogHealth != nil {
		s.opts.OnLogHealth(LogHealth{Err: err, Unwritten: n, Dropped: dropped})
	}
}

// checkSpace is ErrLowSpace, with what is left, when the file system of
// the database has less than Options.MinFreeSpace available (one statfs).
// bbolt may still have free pages inside the file; limen asks anyway: a
// full disk needs a person.
func (s *Store) checkSpace() error {
	if s.opts.MinFreeSpace < 0 {
		return nil
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(s.path), &st); err != nil {
		return nil // cannot tell: the commits still say
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if free >= s.opts.MinFreeSpace {
		return nil
	}
	return fmt.Errorf("%w: %s KiB left where %s is, below the %s KiB limen keeps free", ErrLowSpace,
		strconv.FormatInt(free>>10, 10), s.path, strconv.FormatInt(s.opts.MinFreeSpace>>10, 10))
}

// probeLog tries one small real write while the log is failing and holds
// no records to retry with (every allow is then ask, and an ask is written
// by AddPending, not the batcher): it rewrites meta/id_reserved with the
// value it holds, which dirties a page and so needs the disk space a batch
// needs, and changes nothing.
func (s *Store) probeLog() error {
	if err := s.writeFault(); err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		v := meta.Get(keyIDReserved)
		if v == nil {
			v = u64(0) // a new file: NextID has not reserved yet
			return meta.Put(keyIDReserved, v)
		}
		return meta.Put(keyIDReserved, append([]byte(nil), v...))
	})
}

// writeFault is Options.WriteFault's error, if a test set one.
func (s *Store) writeFault() error {
	if s.opts.WriteFault == nil {
		return nil
	}
	return s.opts.WriteFault()
}
