package store

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrCorrupt means the database file is damaged or truncated: Open refuses
// it rather than decide from, or write over, a broken history.
var ErrCorrupt = errors.New("database is corrupt")

// ErrEmpty means the database file exists but holds nothing (0 bytes).
// bbolt would initialise it as a new database; Open refuses instead, so
// that lost history is not silently replaced by a fresh start.
var ErrEmpty = errors.New("database file is empty")

type corruptError struct {
	path, cause string
}

func (e *corruptError) Error() string {
	return "the database is corrupt or truncated (" + e.cause + "); limend does not start on it, so that no decision is made from a damaged history and nothing is written over it. " +
		"Fix: move it aside (`mv " + e.path + " " + e.path + ".corrupt`) and start limend again for a new, empty database, or restore it from a backup; " +
		"`bbolt check " + e.path + "` (go.etcd.io/bbolt/cmd/bbolt) tells more"
}

func (e *corruptError) Is(target error) bool { return target == ErrCorrupt }

type emptyError struct{ path string }

func (e *emptyError) Error() string {
	return "database " + e.path + " is empty (0 bytes): the history it held is lost (something truncated it, or limend was stopped while creating it), and limend does not start over on it silently. " +
		"Fix: restore it from a backup, or move it aside (`mv " + e.path + " " + e.path + ".empty`) to start with a new database"
}

func (e *emptyError) Is(target error) bool { return target == ErrEmpty }

// guardCorrupt runs fn, which reads the file through bbolt, and turns the
// panics bbolt raises on damaged pages, and the faults of reading pages a
// truncated file no longer has (SIGBUS/SIGSEGV on the memory map, which
// SetPanicOnFault makes panics in this goroutine), into ErrCorrupt.
func guardCorrupt(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			cause := "bbolt: " + strings.TrimSpace(fmt.Sprint(v))
			if f, ok := v.(interface{ Addr() uintptr }); ok && f.Addr() != 0 {
				cause = "a page it points to is not in the file: reading it faulted"
			}
			err = &corruptError{path: path, cause: cause}
		}
	}()
	return fn()
}

// asCorrupt words bbolt's own refusals of a damaged file as ErrCorrupt.
func asCorrupt(path string, err error) error {
	if errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) || errors.Is(err, berrors.ErrVersionMismatch) ||
		strings.Contains(err.Error(), "file size too small") {
		return &corruptError{path: path, cause: "bbolt: " + err.Error()}
	}
	return err
}

// verifySink keeps verify's reads from being optimised away: it is
// written, never read.
//
//lint:ignore U1000 written so that the compiler keeps the reads
var verifySink byte

// verify reads the whole file once before anything relies on it: that its
// pages fit in the file (a truncated file would fault later, anywhere) and
// that every bucket, key and value can be reached. It must run under
// guardCorrupt. On a file of a million decision records it costs about as
// much as replaying the answers, which limend's start does anyway.
func verify(db *bolt.DB, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return db.View(func(tx *bolt.Tx) error {
		if tx.Size() > fi.Size() {
			return &corruptError{path: path, cause: "the file is " + strconv.FormatInt(fi.Size(), 10) + " bytes, but its pages reach " + strconv.FormatInt(tx.Size(), 10)}
		}
		var sink byte
		var walk func(b *bolt.Bucket)
		walk = func(b *bolt.Bucket) {
			c := b.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if v == nil {
					if sub := b.Bucket(k); sub != nil {
						walk(sub)
					}
					continue
				}
				if len(v) > 0 { // touch both ends: a value may span pages
					sink ^= v[0] ^ v[len(v)-1]
				}
			}
		}
		err := tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			walk(b)
			return nil
		})
		verifySink = sink
		return err
	})
}
