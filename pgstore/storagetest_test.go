package pgstore_test

import (
	"sync"
	"testing"

	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/storage/storagetest"
)

// TestStorage runs the conformance suite, each subtest on a schema of its
// own. As no two subtests share anything, they run in parallel: making and
// dropping the schemas is most of their time.
func TestStorage(t *testing.T) {
	t.Parallel()
	testDSN(t)
	var parallel sync.Map // *testing.T already made parallel
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		if _, seen := parallel.LoadOrStore(t, true); !seen {
			t.Parallel()
		}
		return openStore(t, newSchema(t))
	})
}
