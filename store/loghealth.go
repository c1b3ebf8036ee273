package store

import (
	"errors"
	"fmt"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// ErrLogUnwritable is LogErr's error: the last commit of the decision log
// failed, so records are being dropped. It clears by itself at the next
// commit that succeeds.
var ErrLogUnwritable = errors.New("decision log cannot be written")

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

// logHealth is the batcher's view of whether the decision log can be
// written. The batcher alone changes it; LogErr reads it on every Decide.
type logHealth struct {
	err     atomic.Pointer[error] // nil: the last commit succeeded
	dropped int                   // records lost since the log started failing (batcher only)
}

// LogErr returns nil while the decision log is being written, and an error
// wrapping ErrLogUnwritable (with the cause, such as a full disk, and the
// number of records not written) from a failed commit until the next one
// that succeeds. A decision that cannot be recorded must not allow: the
// server turns an allow into ask while this is not nil. It costs one
// atomic load.
func (s *Store) LogErr() error {
	if p := s.health.err.Load(); p != nil {
		return *p
	}
	return nil
}

// logFailed records a failed commit: unwritten records are kept for the
// retry, lost ones were dropped. The first failure after a healthy spell
// is reported to Options.OnLogHealth.
func (s *Store) logFailed(unwritten, lost int, cause error) {
	first := s.health.err.Load() == nil
	s.health.dropped += lost
	err := fmt.Errorf("%w (%d records not written, %d dropped): %w", ErrLogUnwritable, unwritten, s.health.dropped, cause)
	s.health.err.Store(&err)
	if first && s.opts.OnLogHealth != nil {
		s.opts.OnLogHealth(LogHealth{Err: err, Unwritten: unwritten, Dropped: s.health.dropped})
	}
}

// logWritten records a commit that succeeded, with written records in it;
// if the log had been failing, the recovery is reported to
// Options.OnLogHealth.
func (s *Store) logWritten(written int) {
	if s.health.err.Load() == nil {
		return
	}
	dropped := s.health.dropped
	s.health.err.Store(nil)
	s.health.dropped = 0
	if s.opts.OnLogHealth != nil {
		s.opts.OnLogHealth(LogHealth{Unwritten: written, Dropped: dropped})
	}
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
