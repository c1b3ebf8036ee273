package store

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// goodFile writes a store of a few thousand decisions, some asks and an
// answer, closes it and returns its path and how far its pages reach (the
// file may be longer: bbolt grows it ahead).
func goodFile(t *testing.T) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "limen.db")
	s := openStore(t, path, Options{})
	for range 3000 {
		s.LogDecision(decision(newID(t, s), "ana", storev1.Verdict_VERDICT_ALLOW))
	}
	id := addAsk(t, s, "ana")
	addAsk(t, s, "ana")
	if _, err := s.Answer(id, answerRecord(id, storev1.Choice_CHOICE_APPROVE)); err != nil {
		t.Fatal(err)
	}
	var used int64
	if err := s.db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	closeStore(t, s)
	return path, used
}

// A damaged file is refused by Open with ErrCorrupt and the fix, never a
// panic or a fault, and is left as it was; an empty one is refused with
// ErrEmpty, not made into a new database.
func TestOpenRefusesDamagedFiles(t *testing.T) {
	scribble := func(t *testing.T, path string, off, n int64) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		junk := make([]byte, n)
		rand.Read(junk)
		if _, err := f.WriteAt(junk, off); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, path string, size int64)
		want   error
		says   string
	}{
		{"empty", func(t *testing.T, p string, _ int64) { os.Truncate(p, 0) }, ErrEmpty, "is empty (0 bytes)"},
		{"cut in half", func(t *testing.T, p string, size int64) { os.Truncate(p, size/2) }, ErrCorrupt, "corrupt or truncated"},
		{"cut to a few pages", func(t *testing.T, p string, _ int64) { os.Truncate(p, 5*4096) }, ErrCorrupt, "corrupt or truncated"},
		{"cut inside the meta pages", func(t *testing.T, p string, _ int64) { os.Truncate(p, 3000) }, ErrCorrupt, "corrupt or truncated"},
		{"last page cut short", func(t *testing.T, p string, used int64) { os.Truncate(p, used-100) }, ErrCorrupt, "corrupt or truncated"},
		{"garbage in the data pages", func(t *testing.T, p string, size int64) { scribble(t, p, 8*4096, size/2-8*4096) }, ErrCorrupt, "corrupt or truncated"},
		{"garbage in both meta pages", func(t *testing.T, p string, _ int64) { scribble(t, p, 0, 2*4096) }, ErrCorrupt, "corrupt or truncated"},
		{"not a database at all", func(t *testing.T, p string, _ int64) {
			os.WriteFile(p, bytes.Repeat([]byte("limen "), 4000), 0o600)
		}, ErrCorrupt, "corrupt or truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, size := goodFile(t)
			c.damage(t, path, size)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(path, Options{})
			if err == nil {
				s.Close()
				t.Fatalf("Open of a damaged file succeeded; want %v", c.want)
			}
			if !errors.Is(err, c.want) {
				t.Errorf("Open = %v; want %v", err, c.want)
			}
			for _, w := range []string{c.says, path, "Fix: ", "mv " + path} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if after, err := os.ReadFile(path); err != nil || !bytes.Equal(before, after) {
				t.Errorf("the refused file was changed (%d bytes before, %d after, %v)", len(before), len(after), err)
			}
		})
	}
}
