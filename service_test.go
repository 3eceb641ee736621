package lettershop_test

import (
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// New without a store panics saying so, where it panicked on a nil
// pointer deep inside.
func TestNewWithoutAStore(t *testing.T) {
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "New needs a store") {
			t.Errorf("New(nil) panicked with %v; want it to say a store is needed", msg)
		}
	}()
	lettershop.New(nil)
}
