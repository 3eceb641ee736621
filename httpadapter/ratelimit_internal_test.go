package httpadapter

import (
	"net/http/httptest"
	"testing"
	"time"
)

// A limiter keeps the buckets of as many keys as its bound: up to it, a
// used-up bucket stays used up; one key more pushes out the least recently
// seen, which starts again with a full bucket.
func TestLimiterKeyBound(t *testing.T) {
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	l := newLimiter(1, time.Hour, 2)
	steps := []struct {
		key  string
		want bool
	}{
		{"a", true},
		{"a", false},
		{"b", true},  // two keys: the bound
		{"a", false}, // a is still kept
		{"b", false}, // and b; a is now the least recently seen
		{"c", true},  // a third key pushes a out
		{"a", true},  // a full bucket again
		{"c", false},
	}
	for i, s := range steps {
		if got := l.allow(httptest.NewRecorder(), s.key, now); got != s.want {
			t.Errorf("step %d: key %s allowed %v, want %v", i+1, s.key, got, s.want)
		}
	}
}
