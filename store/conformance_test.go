package store_test

import (
	"path/filepath"
	"testing"

	"github.com/limenhq/limen/store"
	"github.com/limenhq/limen/store/storetest"
)

// TestConformance runs the suite every store.Backend must pass on the
// bbolt file.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Open {
		path := filepath.Join(t.TempDir(), "limen.db")
		return func() (store.Backend, error) { return store.Open(path, store.Options{}) }
	})
}
