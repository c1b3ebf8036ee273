package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Bucket and key names of the schema drawn in doc.go.
var (
	bucketMeta      = []byte("meta")
	bucketDecisions = []byte("decisions")
	bucketPending   = []byte("pending")
	bucketAnswers   = []byte("answers")
	bucketPolicies  = []byte("policies")

	keySchemaVersion = []byte("schema_version")
	keyIDReserved    = []byte("id_reserved")
	// keyOutcomesThrough is the seq of the last answer whose outcome is
	// on its decision record, and of every answer before it (outcomes.go).
	keyOutcomesThrough = []byte("outcomes_through")
)

// ErrSchemaTooNew is returned by Open for a database written by a newer limen
// whose schema this build does not know. Opening it anyway could corrupt it.
var ErrSchemaTooNew = errors.New("database schema is newer than this build of limen understands (upgrade limen)")

// migration moves the schema from version-1 to version. Migrations run in
// order, all in the transaction that opens the store, so a crash mid-way
// leaves the old schema intact.
type migration struct {
	version uint64
	name    string
	apply   func(tx *bolt.Tx) error
}

// migrations is the ordered history of the schema. Append only: never edit or
// reorder an entry that has shipped. Each one has a test in schema_test.go.
var migrations = []migration{
	{version: 1, name: "create buckets", apply: migrateCreateBuckets},
	{version: 2, name: "answer outcomes written behind", apply: migrateOutcomesThrough},
}

// schemaVersion is the version this build writes.
func schemaVersion() uint64 { return migrations[len(migrations)-1].version }

func migrateCreateBuckets(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketMeta, bucketDecisions, bucketPending, bucketAnswers, bucketPolicies} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

// readSchemaVersion returns 0 for a database no migration has touched.
func readSchemaVersion(tx *bolt.Tx) uint64 {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0
	}
	v := meta.Get(keySchemaVersion)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// migrate brings the schema up to date inside tx.
func migrate(tx *bolt.Tx) error {
	current := readSchemaVersion(tx)
	if current > schemaVersion() {
		return fmt.Errorf("schema version %d, this build knows up to %d: %w", current, schemaVersion(), ErrSchemaTooNew)
	}
	for _, m := range migrations {
		if m.version <= current {
			continue
		}
		if err := m.apply(tx); err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
		}
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return fmt.Errorf("migration %d (%s): meta bucket missing", m.version, m.name)
		}
		if err := meta.Put(keySchemaVersion, u64(m.version)); err != nil {
			return fmt.Errorf("migration %d (%s): write schema version: %w", m.version, m.name, err)
		}
		current = m.version
	}
	return nil
}

// u64 encodes v big-endian, so bbolt's byte order is numeric order.
func u64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}
