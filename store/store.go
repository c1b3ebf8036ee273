package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Sentinel errors. Match them with errors.Is; the returned errors wrap them
// with the operation and the ids involved.
var (
	// ErrLocked means another process holds the database file open.
	ErrLocked = errors.New("database is in use by another process")
	// ErrNotFound means no record has the requested id or version.
	ErrNotFound = errors.New("not found")
	// ErrResolved means the ask was already answered or expired.
	ErrResolved = errors.New("ask already resolved (answered or expired)")
	// ErrVersionConflict means SetPolicy's expected version is not the
	// version stored; someone else changed the policy first.
	ErrVersionConflict = errors.New("policy version conflict")
	// ErrClosed means the store has been closed.
	ErrClosed = errors.New("store is closed")
)

// lockedError carries the path and the hint; errors.Is(err, ErrLocked) holds.
type lockedError struct{ path string }

func (e *lockedError) Error() string {
	return "database " + e.path + " is in use by another process (is limend already running?)"
}

func (e *lockedError) Is(target error) bool { return target == ErrLocked }

// Options tune Open. The zero value is ready to use.
type Options struct {
	// LockTimeout bounds the wait for bbolt's file lock; if another process
	// still holds it, Open fails with ErrLocked. Default 1s.
	LockTimeout time.Duration
	// FlushInterval is the longest a LogDecision record waits before the
	// batcher commits it. Default 50ms.
	FlushInterval time.Duration
	// MaxBatch is the most records the batcher commits in one transaction.
	// Default 512.
	MaxBatch int
	// NoSync skips fsync on every commit. It is for benchmarks only: with it
	// an acknowledged answer can be lost.
	NoSync bool
	// OnLogHealth, if set, is called by the batcher when the decision log
	// starts failing and when it recovers (see LogHealth). It runs on the
	// batcher's goroutine and must not call back into the store.
	OnLogHealth func(LogHealth)
	// MinFreeSpace is the space (bytes) the database's file system must
	// have available when a batch of decision records starts; below it
	// LogErr reports ErrLowSpace, so allows stop before commits fail.
	// Default 1 MiB; negative turns the check off.
	MinFreeSpace int64
	// WriteFault, if set, is asked before every commit of the decision log
	// (and every probe of a failing one); an error fails that commit as a
	// full disk would. It is for tests of what a store that cannot be
	// written does.
	WriteFault func() error
}

func (o Options) withDefaults() Options {
	if o.LockTimeout <= 0 {
		o.LockTimeout = time.Second
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = 50 * time.Millisecond
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 512
	}
	if o.MinFreeSpace == 0 {
		o.MinFreeSpace = 1 << 20
	}
	return o
}

// idBlock is how many ids one synchronous write of meta/id_reserved covers.
const idBlock = 4096

// Store is limen's durable state. Its methods are safe for concurrent use.
type Store struct {
	db   *bolt.DB
	path string
	opts Options

	// next is the next id to hand out; ids below reserved are covered by
	// meta/id_reserved on disk. reserveMu serialises the disk write.
	next      atomic.Uint64
	reserved  atomic.Uint64
	reserveMu sync.Mutex
	// background tracks reservations running ahead; Close waits for them.
	background sync.WaitGroup

	// logMu guards closed against records handed to the batcher after
	// Close: LogDecision and Flush hold it for reading, Close for writing
	// before it closes log.
	logMu       sync.RWMutex
	closed      bool
	log         *logQueue
	batcherDone chan struct{}
	batcherErr  error // set by the batcher before batcherDone closes
	health      logHealth

	// answerMu serialises Answer and Expire with handing the outcome to
	// memory, so that a second answer, or an expiry, of the same ask finds
	// the first answer's outcome there (notPending).
	answerMu sync.Mutex
	outcomes pendingOutcomes
	// mark is meta/outcomes_through and what lies beyond it; only the
	// batcher uses it once the store is open.
	mark outcomeMark

	closeOnce sync.Once
	closeErr  error
}

// Open opens the store at path, creating the file (mode 0600) and its parent
// directory (0700) if missing, and migrates the schema. If another process
// holds the file, Open fails with ErrLocked after Options.LockTimeout.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		// bbolt would make a new database of it, over the lost history.
		return nil, fmt.Errorf("open store: %w", &emptyError{path: path})
	}
	var db *bolt.DB
	err := guardCorrupt(path, func() (err error) {
		db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.LockTimeout, NoSync: opts.NoSync})
		return err
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open store: %w", &lockedError{path: path})
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, asCorrupt(path, err))
	}
	if err := guardCorrupt(path, func() error { return verify(db, path) }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s := &Store{
		db:          db,
		path:        path,
		opts:        opts,
		log:         newLogQueue(opts.MaxBatch),
		batcherDone: make(chan struct{}),
	}
	if err := guardCorrupt(path, s.init); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	go s.runBatcher()
	return s, nil
}

// init migrates the schema and restores the id counter in one transaction.
func (s *Store) init() error {
	tx, err := s.db.Begin(true)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := migrate(tx); err != nil {
		return err
	}
	through, err := applyAnswerOutcomes(tx)
	if err != nil {
		return fmt.Errorf("apply the outcomes of the last answers: %w", err)
	}
	s.mark = outcomeMark{through: through}
	next := uint64(1) // 0 is never an id: it means "unset" in queries
	if v := tx.Bucket(bucketMeta).Get(keyIDReserved); len(v) == 8 {
		next = max(next, binary.BigEndian.Uint64(v))
	}
	// Belt and braces: never hand out an id that already has a record.
	if k, _ := tx.Bucket(bucketDecisions).Cursor().Last(); len(k) == 8 {
		next = max(next, binary.BigEndian.Uint64(k)+1)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.next.Store(next)
	s.reserved.Store(next) // nothing reserved yet: the first NextID reserves a block
	return nil
}

// Close flushes the decision log, stops the batcher and closes the file.
// Records handed to LogDecision after Close are dropped.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.logMu.Lock()
		s.closed = true
		s.log.close()
		s.logMu.Unlock()
		<-s.batcherDone
		s.background.Wait()
		var errs []error
		if s.batcherErr != nil {
			errs = append(errs, fmt.Errorf("close store: flush decision log: %w", s.batcherErr))
		}
		if err := s.releaseIDs(); err != nil {
			errs = append(errs, fmt.Errorf("close store: %w", err))
		}
		if err := s.db.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close store: %w", err))
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// Path returns the path of the database file.
func (s *Store) Path() string { return s.path }

// Check runs bbolt's consistency check and returns the first problem found.
// It runs in a write transaction, which bbolt documents as safe alongside
// other writers, and commits nothing.
func (s *Store) Check() error {
	tx, err := s.db.Begin(true)
	if err != nil {
		return fmt.Errorf("check store: %w", err)
	}
	defer tx.Rollback()
	var first error
	for err := range tx.Check() { // drain: the checker goroutine sends until done
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return fmt.Errorf("check store: %w", first)
	}
	return nil
}

// NextID returns a new id for a decision (an ask's id is its decision's id).
// Ids increase and are never reused, even across a crash: a block of ids is
// recorded on disk before any id in it is handed out. Halfway through a
// block the next one is reserved in the background, so NextID normally
// costs two atomic operations and waits for the disk only when ids are
// drawn faster than one fsync per idBlock/2 ids (or on the first call).
func (s *Store) NextID() (uint64, error) {
	id := s.next.Add(1) - 1
	if r := s.reserved.Load(); id < r {
		if id == r-idBlock/2 { // exactly one caller per block sees this id
			s.reserveAhead()
		}
		return id, nil
	}
	if err := s.reserve(id); err != nil {
		return 0, fmt.Errorf("next id: %w", err)
	}
	return id, nil
}

// reserveAhead reserves the next block in the background. A failure is
// not reported: the NextID that reaches the end of the block retries
// synchronously and returns the error.
func (s *Store) reserveAhead() {
	s.logMu.RLock()
	defer s.logMu.RUnlock()
	if s.closed {
		return
	}
	s.background.Go(func() { _ = s.reserve(s.reserved.Load()) })
}

// reserve records on disk that every id up to need (inclusive) may be
// handed out, plus a block beyond it.
func (s *Store) reserve(need uint64) error {
	s.reserveMu.Lock()
	defer s.reserveMu.Unlock()
	if need < s.reserved.Load() {
		return nil // a concurrent caller already reserved past need
	}
	limit := need + idBlock
	if err := s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyIDReserved, u64(limit))
	}); err != nil {
		return fmt.Errorf("reserve ids: %w", err)
	}
	s.reserved.Store(limit)
	return nil
}

// releaseIDs gives back the unused rest of the reserved block on a clean
// close, so that ids go on from where they stopped instead of jumping a
// block at every restart. (After a crash they still jump: that is what
// keeps them unique.) A NextID racing with it reserves again under the same
// lock, so no id can be handed out twice.
func (s *Store) releaseIDs() error {
	s.reserveMu.Lock()
	defer s.reserveMu.Unlock()
	next := s.next.Load()
	if next >= s.reserved.Load() {
		return nil // nothing reserved beyond what was handed out
	}
	if err := s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyIDReserved, u64(next))
	}); err != nil {
		return fmt.Errorf("release unused ids: %w", err)
	}
	s.reserved.Store(next)
	return nil
}

// FormatID formats an id as the API shows it: a decimal number.
func FormatID(id uint64) string { return strconv.FormatUint(id, 10) }

// ParseID parses an id as FormatID prints it.
func ParseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse id %q: ids are decimal numbers as printed by `limenctl pending`", s)
	}
	return id, nil
}
