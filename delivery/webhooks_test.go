package delivery_test

import (
	"testing"
	"time"

	"github.com/lettershop/lettershop/delivery"
)

// The backoff grows fourfold from a minute and stops at 12 hours; an
// attempt count below 1 is taken as the first.
func TestRetryDelay(t *testing.T) {
	want := []time.Duration{time.Minute, 4 * time.Minute, 16 * time.Minute, 64 * time.Minute, 256 * time.Minute, 12 * time.Hour, 12 * time.Hour}
	for i, w := range want {
		if got := delivery.RetryDelay(i + 1); got != w {
			t.Errorf("RetryDelay(%d) = %v, want %v", i+1, got, w)
		}
	}
	for _, n := range []int{0, -1} {
		if got := delivery.RetryDelay(n); got != time.Minute {
			t.Errorf("RetryDelay(%d) = %v, want a minute", n, got)
		}
	}
	if got := delivery.RetryDelay(1000); got != 12*time.Hour {
		t.Errorf("RetryDelay(1000) = %v, want 12h", got)
	}
}
