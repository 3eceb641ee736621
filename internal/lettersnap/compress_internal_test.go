package lettersnap

import (
	"bytes"
	"testing"
)

// A stored snapshot inflates to at most maxInflated bytes: exactly that
// many are read back, one more is refused rather than read on.
func TestInflateBound(t *testing.T) {
	for _, c := range []struct {
		size int
		ok   bool
	}{{maxInflated, true}, {maxInflated + 1, false}} {
		data := bytes.Repeat([]byte{'a'}, c.size)
		z, err := deflate(nil, data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := inflate(z)
		if c.ok && (err != nil || !bytes.Equal(got, data)) {
			t.Errorf("%d bytes: %d read back, %v", c.size, len(got), err)
		}
		if !c.ok && err == nil {
			t.Errorf("%d bytes inflated without an error", c.size)
		}
	}
}
