package lettershop_test

import (
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/storage"
)

type openedStore struct{ storage.Storage }

// New without a store panics saying so, where it panicked on a nil
// pointer deep inside.
func TestNewWithoutAStore(t *testing.T) {
	var failed *openedStore // as pgstore.Open returns one beside its error
	for name, store := range map[string]storage.Storage{"nil": nil, "nil pointer": failed} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, "New needs a store") {
					t.Errorf("New panicked with %v; want it to say a store is needed", msg)
				}
			}()
			lettershop.New(store)
		})
	}
}
