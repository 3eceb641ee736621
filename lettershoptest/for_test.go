package lettershoptest_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lettershop/lettershop/lettershoptest"
)

// recorder is a testing.TB that keeps what a helper failed with, and
// stops the goroutine as Fatalf does.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failures []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	runtime.Goexit()
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// run calls f on a goroutine of its own, as a test runs, and waits.
func (r *recorder) run(f func()) {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	<-done
}

// TestForFailsTheTestGiven: an account's helpers fail the test given to
// For, not the one the server was made for, so a parallel subtest that
// fails does not fail (and stop) its parent from its own goroutine.
func TestForFailsTheTestGiven(t *testing.T) {
	srv := lettershoptest.New(t)
	made := srv.NewAccount()
	sub := &recorder{TB: t}
	acct := made.For(sub)
	if acct.APIKey != made.APIKey || acct.ID != made.ID || acct.WebhookSecret != made.WebhookSecret {
		t.Fatalf("For changed the account: %+v, was %+v", acct, made)
	}
	sub.run(func() { acct.Letter("ltr_01m82xk8wrekcvnp6xnr97efe0") })
	if len(sub.failures) != 1 || !strings.Contains(sub.failures[0], "not found") {
		t.Errorf("the subtest's failures: %q, want the letter not found", sub.failures)
	}
	if t.Failed() {
		t.Error("the server's test failed too")
	}
	// The same account, either way: what one makes, the other sees.
	made.Advance(3600e9)
	if !acct.Now().Equal(made.Now()) {
		t.Errorf("the clock read %v through For, %v without", acct.Now(), made.Now())
	}
}

// TestForReceiverStopsWithTheTestGiven: a Receiver made through For stops
// when that test ends, not when the server's does.
func TestForReceiverStopsWithTheTestGiven(t *testing.T) {
	srv := lettershoptest.New(t)
	sub := &recorder{TB: t}
	rcv := srv.NewAccount().For(sub).NewReceiver()
	if len(sub.cleanups) == 0 {
		t.Fatal("the receiver registered no cleanup with the test given to For")
	}
	resp, err := http.Post(rcv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("the receiver does not listen while its test runs: %v", err)
	}
	resp.Body.Close()
	for i := len(sub.cleanups) - 1; i >= 0; i-- {
		sub.cleanups[i]()
	}
	if resp, err := http.Post(rcv.URL, "application/json", strings.NewReader("{}")); err == nil {
		resp.Body.Close()
		t.Error("the receiver still listens after its test ended")
	}
}

// TestForInParallelSubtests is the pattern docs/testing.md shows: one
// server, an account per parallel subtest, each reporting to its own.
func TestForInParallelSubtests(t *testing.T) {
	srv := lettershoptest.New(t)
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			acct := srv.NewAccount().For(t)
			id := sendWelcome(t, srv.Service(), acct.ID, fmt.Sprint("Jane", i))
			if got := acct.Letter(id); got.ID != id {
				t.Errorf("letter %s, want %s", got.ID, id)
			}
		})
	}
}
