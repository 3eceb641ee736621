package lettershoptest_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/lettershoptest"
	"github.com/lettershop/lettershop/lettershoptest/pgtest"
)

func TestServerServesTheAPI(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	req, _ := http.NewRequest("GET", srv.URL+"/v1/letters", nil)
	req.Header.Set("X-Api-Key", acct.APIKey)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/letters: %d", resp.StatusCode)
	}
	if resp.Header.Get("P-RateLimit-Limit") != "" {
		t.Error("a test server limits the rate without WithRateLimit")
	}
	if got := srv.Now(); !got.Equal(lettershoptest.DefaultStart) {
		t.Errorf("clock starts at %s, want %s", got, lettershoptest.DefaultStart)
	}
}

func TestAccountsAreApart(t *testing.T) {
	srv := lettershoptest.New(t)
	a, b := srv.NewAccount(), srv.NewAccount()
	if a.APIKey == b.APIKey || a.ID == b.ID {
		t.Fatalf("two accounts share a key or id: %+v %+v", a, b)
	}
	id := sendWelcome(t, srv.Service(), a.ID, "Jane")
	if got := a.Letters(); len(got) != 1 || got[0].ID != id {
		t.Errorf("a's letters: %v", got)
	}
	if got := b.Letters(); len(got) != 0 {
		t.Errorf("b sees %d letters of a", len(got))
	}
}

func TestForceAndWait(t *testing.T) {
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	if l := acct.Force(id, lettershoptest.Status(client.StatusMailed)); l.Status != client.StatusMailed {
		t.Errorf("forced to mailed, is %s", l.Status)
	}
	if l := acct.Force(id, lettershoptest.Event(client.EventDelivered)); l.Status != client.StatusMailed {
		t.Errorf("after delivered, status %s", l.Status)
	}

	other := sendWelcome(t, svc.Service, acct.ID, "John")
	start := acct.Now()
	l := acct.WaitForStatus(other, client.StatusMailed, 14*24*time.Hour)
	if !acct.Now().After(start) || l.Status == client.StatusQueued {
		t.Errorf("waited to %s: status %s, clock %s", acct.Now(), l.Status, start)
	}
}

func TestWaitForStatusFailsPastItsTime(t *testing.T) {
	ft := &fakeTB{TB: t}
	svc := lettershoptest.NewService(ft)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	func() {
		defer func() { _ = recover() }()
		acct.WaitForStatus(id, client.StatusMailed, time.Minute)
	}()
	if !ft.failed {
		t.Error("WaitForStatus did not fail when the letter was not mailed within a minute")
	}
	if got, want := acct.Now(), lettershoptest.DefaultStart.Add(time.Minute); !got.Equal(want) {
		t.Errorf("clock at %s after waiting a minute, want %s", got, want)
	}
}

func TestPDFText(t *testing.T) {
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	text := acct.PDFText(id)
	for _, want := range []string{"Dear Jane", "Welcome aboard", "Chicago"} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF text lacks %q:\n%s", want, text)
		}
	}
}

func TestClockMovesForwardOnly(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	acct.Advance(time.Hour)
	if got, want := acct.Now(), lettershoptest.DefaultStart.Add(time.Hour); !got.Equal(want) {
		t.Errorf("after an hour: %s, want %s", got, want)
	}
	at := lettershoptest.DefaultStart.Add(48 * time.Hour)
	acct.Set(at)
	if !acct.Now().Equal(at) {
		t.Errorf("after Set: %s, want %s", acct.Now(), at)
	}
	// The account's clock is its own: the server's, and another account's,
	// stand where they were.
	if other := srv.NewAccount(); !srv.Now().Equal(lettershoptest.DefaultStart) || !other.Now().Equal(lettershoptest.DefaultStart) {
		t.Errorf("server clock %s, another account's %s; want both at the start", srv.Now(), other.Now())
	}
}

// Server.Advance moves every account's clock but a frozen one's.
func TestServerAdvanceAndFreeze(t *testing.T) {
	srv := lettershoptest.New(t)
	ahead, frozen, plain := srv.NewAccount(), srv.NewAccount(), srv.NewAccount()
	ahead.Advance(24 * time.Hour)
	frozen.Freeze()
	srv.Advance(time.Hour)
	start := lettershoptest.DefaultStart
	for _, c := range []struct {
		name string
		acct *lettershoptest.Account
		want time.Time
	}{
		{"ahead", ahead, start.Add(25 * time.Hour)},
		{"frozen", frozen, start},
		{"plain", plain, start.Add(time.Hour)},
	} {
		if got := c.acct.Now(); !got.Equal(c.want) {
			t.Errorf("%s account reads %s, want %s", c.name, got, c.want)
		}
	}
	frozen.Advance(30 * time.Minute)
	frozen.Unfreeze()
	srv.Advance(time.Hour)
	if got, want := frozen.Now(), start.Add(90*time.Minute); !got.Equal(want) {
		t.Errorf("unfrozen account reads %s, want %s", got, want)
	}
}

// With WithSharedClock an account's Advance moves every account.
func TestSharedClock(t *testing.T) {
	srv := lettershoptest.New(t, lettershoptest.WithSharedClock())
	a, b := srv.NewAccount(), srv.NewAccount()
	a.Advance(time.Hour)
	want := lettershoptest.DefaultStart.Add(time.Hour)
	if !b.Now().Equal(want) || !srv.Now().Equal(want) {
		t.Errorf("after one account's advance on a shared clock: other %s, server %s; want %s", b.Now(), srv.Now(), want)
	}
	// Over HTTP too: b's advance moves a.
	req, _ := http.NewRequest("POST", srv.URL+"/_test/clock/advance", strings.NewReader(`{"duration":"1h"}`))
	req.Header.Set("X-Api-Key", b.APIKey)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := want.Add(time.Hour); resp.StatusCode != http.StatusOK || !a.Now().Equal(want) {
		t.Errorf("advance over HTTP: %d, the other account reads %s; want 200 and %s", resp.StatusCode, a.Now(), want)
	}
}

func TestWithStart(t *testing.T) {
	at := time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)
	svc := lettershoptest.NewService(t, lettershoptest.WithStart(at))
	if !svc.Now().Equal(at) {
		t.Errorf("clock at %s, want %s", svc.Now(), at)
	}
}

func TestPostgres(t *testing.T) {
	dsn := os.Getenv("LETTERSHOP_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("LETTERSHOP_TEST_POSTGRES is not set")
	}
	srv := lettershoptest.New(t, pgtest.WithPostgres(dsn))
	acct := srv.NewAccount()
	id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
	if got := acct.Letters(); len(got) != 1 || got[0].ID != id {
		t.Errorf("letters in PostgreSQL: %v", got)
	}

	// Account clocks hold in PostgreSQL too: one account's move takes its
	// letters only, and a move of the server's clock passes over a frozen
	// account's.
	ahead, frozen := srv.NewAccount(), srv.NewAccount()
	aheadID := sendWelcome(t, srv.Service(), ahead.ID, "Ann")
	frozenID := sendWelcome(t, srv.Service(), frozen.ID, "Bob")
	frozen.Freeze()
	ahead.Advance(10 * 24 * time.Hour)
	if got := ahead.Letter(aheadID).Status; got != client.StatusMailed {
		t.Errorf("ten days on its account's clock, the letter is %s, want mailed", got)
	}
	if got := acct.Letter(id).Status; got != client.StatusQueued {
		t.Errorf("another account's letter moved to %s", got)
	}
	srv.Advance(10 * 24 * time.Hour)
	if got := acct.Letter(id).Status; got != client.StatusMailed {
		t.Errorf("ten days on the server's clock, the letter is %s, want mailed", got)
	}
	if got := frozen.Letter(frozenID).Status; got != client.StatusQueued {
		t.Errorf("the frozen account's letter moved to %s", got)
	}
}

// fakeTB records a failure instead of ending the test.
type fakeTB struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}

// fails runs f, which is to fail ft, and returns the failure's message.
func fails(t *testing.T, ft *fakeTB, f func()) string {
	t.Helper()
	func() {
		defer func() { _ = recover() }()
		f()
	}()
	if !ft.failed {
		t.Fatal("it did not fail the test")
	}
	ft.failed = false
	return ft.msg
}

// The rate limit's window runs on each account's clock: one account moving
// its clock on refills its own bucket, not another's.
func TestWithRateLimit(t *testing.T) {
	srv := lettershoptest.New(t, lettershoptest.WithRateLimit(2, time.Minute))
	acct, other := srv.NewAccount(), srv.NewAccount()
	get := func(a *lettershoptest.Account) int {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/letters", nil)
		req.Header.Set("X-Api-Key", a.APIKey)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, a := range []*lettershoptest.Account{acct, other} {
		if got := []int{get(a), get(a), get(a)}; got[0] != http.StatusOK || got[2] != http.StatusTooManyRequests {
			t.Errorf("statuses %v, want the third refused", got)
		}
	}
	if reqs := acct.Requests(); len(reqs) != 3 || reqs[2].Status != http.StatusTooManyRequests {
		t.Errorf("journal %+v", reqs)
	}
	acct.Advance(time.Minute) // the bucket refills on the account's clock
	if got := get(acct); got != http.StatusOK {
		t.Errorf("a minute on the account's clock later: %d, want 200", got)
	}
	if got := get(other); got != http.StatusTooManyRequests {
		t.Errorf("another account, whose clock stood still: %d, want 429", got)
	}
}

// With a rate limit, accounts never use up each other's: every test's
// requests come from one address, and only each key's limit holds, on its
// account's clock.
func TestRateLimitPerAccountOnly(t *testing.T) {
	srv := lettershoptest.New(t, lettershoptest.WithRateLimit(2, time.Minute))
	get := func(key, path string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if key != "" {
			req.Header.Set("X-Api-Key", key)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 30 {
		acct := srv.NewAccount()
		if got := []int{get(acct.APIKey, "/letters"), get(acct.APIKey, "/letters")}; got[0] != http.StatusOK || got[1] != http.StatusOK {
			t.Fatalf("account %d: statuses %v, want its two requests served", i, got)
		}
	}
	acct := srv.NewAccount()
	id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
	link, err := srv.Service().DownloadURL(t.Context(), acct.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if got := get("", link); got != http.StatusOK {
			t.Fatalf("download %d: %d, want 200", i+1, got)
		}
	}
}

// Failed authentications are not throttled: a test that checks how its
// client takes a wrong key may send it as often as it likes, and the other
// tests' keys, from the same address, go on.
func TestWrongKeysAreNotThrottled(t *testing.T) {
	srv := lettershoptest.New(t)
	get := func(key string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/letters", nil)
		req.Header.Set("X-Api-Key", key)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 2 * httpadapter.DefaultAuthFailures {
		if got := get("sk_live_wrong"); got != http.StatusUnauthorized {
			t.Fatalf("wrong key %d: %d, want 401", i+1, got)
		}
	}
	if got := get(srv.NewAccount().APIKey); got != http.StatusOK {
		t.Errorf("a new account after the wrong keys: %d, want 200", got)
	}
}

func TestWaitForStatusFailsOnACanceledLetter(t *testing.T) {
	ft := &fakeTB{TB: t}
	svc := lettershoptest.NewService(ft)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	if _, err := svc.CancelLetter(t.Context(), acct.ID, id); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() { _ = recover() }()
		acct.WaitForStatus(id, client.StatusMailed, 30*24*time.Hour)
	}()
	if !ft.failed || !acct.Now().Equal(lettershoptest.DefaultStart) {
		t.Errorf("failed %v, clock %s: want an immediate failure", ft.failed, acct.Now())
	}
}

// Moves of the shared clock from many goroutines all count, and the clock
// never goes back: each one's Advance sees it further on than the last.
func TestSharedClockMovesFromManyGoroutines(t *testing.T) {
	srv := lettershoptest.New(t, lettershoptest.WithSharedClock())
	// A ticker on the clock makes each move stop at its ticks on the way:
	// moves that did not take turns would start from a time another move
	// had since passed, and undo it.
	tick := srv.Clock().Ticker(10 * time.Minute)
	defer tick.Stop()
	const workers, moves = 4, 10
	var wg sync.WaitGroup
	backwards := make(chan string, workers)
	for range workers {
		acct := srv.NewAccount()
		wg.Go(func() {
			last := acct.Now()
			for range moves {
				acct.Advance(time.Hour)
				now := acct.Now()
				if now.Before(last) {
					backwards <- fmt.Sprintf("the clock went back from %s to %s", last, now)
					return
				}
				last = now
			}
		})
	}
	wg.Wait()
	close(backwards)
	for msg := range backwards {
		t.Error(msg)
	}
	if got, want := srv.Now(), lettershoptest.DefaultStart.Add(workers*moves*time.Hour); !got.Equal(want) {
		t.Errorf("clock at %s after %d moves of an hour, want %s", got, workers*moves, want)
	}
}
