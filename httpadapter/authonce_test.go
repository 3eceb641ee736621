package httpadapter_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/lettershop/lettershop/httpadapter"
)

// countingAuth counts the keys it is asked to check.
type countingAuth struct {
	httpadapter.SandboxAuthenticator
	calls atomic.Int64
}

func (a *countingAuth) Authenticate(ctx context.Context, key string) (httpadapter.Principal, error) {
	a.calls.Add(1)
	return a.SandboxAuthenticator.Authenticate(ctx, key)
}

// With the test routes on, the faults and the journal need the account of
// a request before the route runs; the key is still checked once only.
func TestTestControlsAuthenticateOnce(t *testing.T) {
	auth := &countingAuth{}
	ts := newTestServer(t, withAdapter(httpadapter.WithAuthenticator(auth)))
	ts.get(t, "/v1/letters")
	if n := auth.calls.Load(); n != 1 {
		t.Errorf("one request checked its key %d times, want 1", n)
	}
}
