package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// rawDB opens a bare bbolt file, for tests that set up what an older or
// newer limen would have left.
func rawDB(t *testing.T, path string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestMigrationsAreOrdered(t *testing.T) {
	for i, m := range migrations {
		if m.version != uint64(i+1) {
			t.Errorf("migrations[%d] has version %d, want %d", i, m.version, i+1)
		}
	}
}

func TestMigration1CreatesBuckets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limen.db")
	closeStore(t, openStore(t, path, Options{}))

	db := rawDB(t, path)
	defer db.Close()
	if err := db.View(func(tx *bolt.Tx) error {
		if v := readSchemaVersion(tx); v != schemaVersion() {
			t.Errorf("schema version = %d, want %d", v, schemaVersion())
		}
		for _, name := range [][]byte{bucketMeta, bucketDecisions, bucketPending, bucketAnswers, bucketPolicies} {
			if tx.Bucket(name) == nil {
				t.Errorf("bucket %s missing", name)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestMigrationIsIdempotentOnReopen(t *testing.T) {
	s := openStore(t, "", Options{})
	id := addAsk(t, s, "ana")
	s = reopen(t, s) // runs migrate again on a current file
	if _, err := s.Decision(id); err != nil {
		t.Errorf("reopen lost data: %v", err)
	}
}

func TestOpenRefusesFutureSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limen.db")
	db := rawDB(t, path)
	if err := db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		return meta.Put(keySchemaVersion, u64(schemaVersion()+1))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(path, Options{})
	if err == nil {
		s.Close()
		t.Fatal("Open of a file from a newer schema succeeded")
	}
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("Open = %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), "upgrade limen") {
		t.Errorf("error %q gives no hint", err)
	}

	// Refusing must leave the file as it was.
	db = rawDB(t, path)
	defer db.Close()
	if err := db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketDecisions) != nil {
			t.Error("refused Open still created buckets")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
