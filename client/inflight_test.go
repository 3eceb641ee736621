package client_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
)

// TestInFlightOnATestClock: two calls with one idempotency key at once,
// from a client whose waits move the server's test clock. The second is
// answered 409 request-in-flight while the first runs; its wait must not
// move the clock past the first's lease, which would let its retry take
// the key over from the request still running and do the write again. The
// first is held until the second's retry has been answered.
func TestInFlightOnATestClock(t *testing.T) {
	var fetches atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fetches.Add(1) == 1 {
			close(started)
			<-release
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>Dear {{name}},</p>"))
	}))
	t.Cleanup(slow.Close)

	var (
		mu       sync.Mutex
		conflict int
		once     sync.Once
	)
	s := newServer(t, wrapped(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rw := httptest.NewRecorder()
			next.ServeHTTP(rw, r)
			for k, v := range rw.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rw.Code)
			_, _ = w.Write(rw.Body.Bytes())
			if r.Method != "POST" || r.URL.Path == "/_test/clock/advance" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if rw.Code == http.StatusConflict {
				conflict++
			}
			// The second call's retry after its 409 has been answered:
			// let the first finish.
			if conflict > 0 && rw.Code != http.StatusConflict || conflict > 1 {
				once.Do(func() { close(release) })
			}
		})
	}))
	c := client.New(s.URL+"/v1", testKey, client.WithTestClock(), client.WithBackoff(10*time.Millisecond, time.Second))
	a, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Welcome", Type: client.AssetTemplate})
	if err != nil {
		t.Fatal(err)
	}
	in := &client.CreateVersionRequest{Content: &client.VersionContent{Source: client.ContentImport, Type: "text/html", Content: slow.URL}}
	type result struct {
		v   *client.AssetVersion
		err error
	}
	first := make(chan result)
	go func() {
		v, err := c.CreateVersion(ctx, a.ID, in, client.IdempotencyKey("one-version"))
		first <- result{v, err}
	}()
	<-started
	v2, err2 := c.CreateVersion(ctx, a.ID, in, client.IdempotencyKey("one-version"))
	r1 := <-first
	if r1.err != nil || err2 != nil {
		t.Fatalf("first: %v; second: %v", r1.err, err2)
	}
	if r1.v.ID != v2.ID {
		t.Errorf("two versions, %s and %s, from one idempotency key", r1.v.ID, v2.ID)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("the content was fetched %d times: the write was done again while it ran", n)
	}
}
