package lettershop_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

func TestIdempotentReplay(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	ctx := lettershop.WithIdempotencyKey(e.ctx, "key-1")
	first, err := e.svc.CreateLetter(ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Hour)
	again, err := e.svc.CreateLetter(ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || !again.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("replay made another letter: %s then %s", first.ID, again.ID)
	}
	if n := countLetters(t, e, acct); n != 1 {
		t.Errorf("%d letters stored, want 1", n)
	}
	// The same key in another account is another request.
	o, _ := e.publishedTemplate(t, "acct_other")
	other, err := e.svc.CreateLetter(ctx, "acct_other", letterInput(o.ID))
	if err != nil || other.ID == first.ID {
		t.Errorf("same key, another account: %v, %s", err, other.ID)
	}
	// The same key with another request is refused.
	in := letterInput(a.ID)
	in.Description = "different"
	_, err = e.svc.CreateLetter(ctx, acct, in)
	wantCode(t, err, lettershop.CodeIdempotencyMismatch)
	// It names the key, and what to do instead.
	if msg := err.Error(); !strings.Contains(msg, `"key-1"`) || !strings.Contains(msg, "a new key") {
		t.Errorf("mismatch says %q", msg)
	}
	_, err = e.svc.CancelLetter(ctx, acct, first.ID)
	wantCode(t, err, lettershop.CodeIdempotencyMismatch)
}

func TestIdempotentErrorReplay(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "not yet published"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := lettershop.WithIdempotencyKey(e.ctx, "key-err")
	_, err = e.svc.CreateLetter(ctx, acct, letterInput(a.ID))
	wantFields(t, err, "content.assetId")
	// Now the request would succeed, but the stored outcome is replayed.
	if _, err := e.svc.CreateVersion(e.ctx, acct, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Content: testTemplate}, VariableDefinitions: testDefinitions, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.CreateLetter(ctx, acct, letterInput(a.ID))
	wantFields(t, err, "content.assetId")
	if n := countLetters(t, e, acct); n != 0 {
		t.Errorf("%d letters stored", n)
	}
	// Without the key it succeeds.
	if _, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID)); err != nil {
		t.Errorf("without the key: %v", err)
	}
}

func TestIdempotentConcurrentDuplicates(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	ctx := lettershop.WithIdempotencyKey(e.ctx, "key-32")
	var wg sync.WaitGroup
	ids := make([]string, 32)
	errs := make([]error, 32)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := e.svc.CreateLetter(ctx, acct, letterInput(a.ID))
			if err == nil {
				ids[i] = l.ID
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	winner := ""
	for i, err := range errs {
		switch {
		case err == nil:
			if winner != "" && ids[i] != winner {
				t.Errorf("two letters: %s and %s", winner, ids[i])
			}
			winner = ids[i]
		case lettershop.ErrorCode(err) != lettershop.CodeInFlight:
			t.Errorf("duplicate %d: %v", i, err)
		}
	}
	if winner == "" {
		t.Fatal("no request succeeded")
	}
	if n := countLetters(t, e, acct); n != 1 {
		t.Errorf("%d letters stored, want 1", n)
	}
}

func TestIdempotencyExpiry(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	ctx := lettershop.WithIdempotencyKey(e.ctx, "key-day")
	first, err := e.svc.CreateLetter(ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(lettershop.IdempotencyRetention - time.Millisecond)
	again, err := e.svc.CreateLetter(ctx, acct, letterInput(a.ID))
	if err != nil || again.ID != first.ID {
		t.Fatalf("just before 24 hours: %v, %s vs %s", err, again.ID, first.ID)
	}
	e.clock.Add(time.Millisecond)
	fresh, err := e.svc.CreateLetter(ctx, acct, letterInput(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ID == first.ID {
		t.Error("after 24 hours the key still replays")
	}
	// A different request under the expired key is no longer a mismatch.
	e.clock.Add(lettershop.IdempotencyRetention)
	in := letterInput(a.ID)
	in.Description = "other"
	if _, err := e.svc.CreateLetter(ctx, acct, in); err != nil {
		t.Errorf("reusing an expired key: %v", err)
	}
}

func TestIdempotencyKeyLength(t *testing.T) {
	e := newEnv(t)
	_, err := e.svc.CreateAsset(lettershop.WithIdempotencyKey(e.ctx, "k\x00"), acct, lettershop.CreateAssetInput{Name: "a"})
	wantFields(t, err, "Idempotency-Key")
	for _, n := range []int{1, 255, 256} {
		ctx := lettershop.WithIdempotencyKey(e.ctx, strings.Repeat("k", n))
		_, err := e.svc.CreateAsset(ctx, acct, lettershop.CreateAssetInput{Name: "a"})
		if n <= 255 && err != nil {
			t.Errorf("key of %d: %v", n, err)
		}
		if n > 255 {
			wantFields(t, err, "Idempotency-Key")
		}
	}
}

// encodeString is an Encode for the low-level API: values as text, errors
// the caller caused kept as "error: ...".
func encodeString(v any, err error) (lettershop.Outcome, bool) {
	if err != nil {
		if lettershop.ErrorCode(err) == lettershop.CodeInternal {
			return nil, false
		}
		return lettershop.BytesOutcome("error: " + err.Error()), true
	}
	s, _ := v.(string)
	return lettershop.BytesOutcome(s), true
}

// text is the bytes of an outcome.
func text(r lettershop.IdempotentResult) string {
	if r.Outcome == nil {
		return ""
	}
	b, _ := r.Outcome.EncodeDocument()
	return string(b)
}

func TestIdempotentInFlight(t *testing.T) {
	e := newEnv(t)
	req := lettershop.IdempotentRequest{Scope: "k1", Key: "slow", Fingerprint: "f", Encode: encodeString}
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan lettershop.IdempotentResult)
	go func() {
		res, err := e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) {
			close(started)
			<-release
			return "first", nil
		})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-started
	_, err := e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	wantCode(t, err, lettershop.CodeInFlight)
	// A different request under the key is a mismatch even while in flight.
	_, err = e.svc.Idempotent(e.ctx, lettershop.IdempotentRequest{Scope: "k1", Key: "slow", Fingerprint: "g", Encode: encodeString},
		func(context.Context) (any, error) { return "third", nil })
	wantCode(t, err, lettershop.CodeIdempotencyMismatch)
	close(release)
	if res := <-done; text(res) != "first" || res.Replayed {
		t.Errorf("first: %+v", res)
	}
	res, err := e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	if err != nil || text(res) != "first" || !res.Replayed {
		t.Errorf("replay: %q %v %v", text(res), res.Replayed, err)
	}
}

func TestIdempotentNotKeptFreesTheKey(t *testing.T) {
	e := newEnv(t)
	req := lettershop.IdempotentRequest{Scope: "s", Key: "k", Fingerprint: "f", Encode: encodeString}
	boom := errors.New("database down")
	_, err := e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("want the operation's error, got %v", err)
	}
	runs := 0
	res, err := e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { runs++; return "ok", nil })
	if err != nil || runs != 1 || text(res) != "ok" || res.Replayed {
		t.Errorf("retry after a failure not kept: runs %d, %q, %v", runs, text(res), err)
	}
	// A client error is kept and replayed.
	req.Key = "k2"
	_, _ = e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) {
		return nil, &lettershop.Error{Code: lettershop.CodeConflict, Message: "no"}
	})
	res, err = e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { runs++; return "ok", nil })
	if err != nil || text(res) != "error: no" || !res.Replayed || runs != 1 {
		t.Errorf("kept error: %q %v %v runs %d", text(res), res.Replayed, err, runs)
	}
}

// noRenewals is a store reached by a server that has stopped renewing its
// leases, as a server that died mid-request has.
type noRenewals struct{ storage.Storage }

func (noRenewals) RenewIdempotency(context.Context, string, string, string, string, time.Time, time.Time) error {
	return errors.New("this server is gone")
}

// TestIdempotencyLeaseTakeover: a request that holds its key past the lease
// (its server died, say, and renews it no more) is taken over by a retry;
// when the first one finally writes, its write is refused, so only one
// letter exists.
func TestIdempotencyLeaseTakeover(t *testing.T) {
	e := newEnv(t, lettershop.WithIdempotencyLease(time.Minute))
	dying := lettershop.New(noRenewals{e.store}, lettershop.WithClock(e.clock),
		lettershop.WithTokenKey([]byte("test token key")), lettershop.WithIdempotencyLease(time.Minute))
	t.Cleanup(func() { dying.Close() })
	a, _ := e.publishedTemplate(t, acct)
	in := letterInput(a.ID)
	fp := "create"
	req := lettershop.IdempotentRequest{Scope: "s", Key: "k", Fingerprint: fp, Encode: encodeString}
	started, release := make(chan struct{}), make(chan struct{})
	firstErr := make(chan error)
	go func() {
		_, err := dying.Idempotent(e.ctx, req, func(ctx context.Context) (any, error) {
			close(started)
			<-release
			l, err := dying.CreateLetter(ctx, acct, in)
			if err != nil {
				return nil, err
			}
			return l.ID, nil
		})
		firstErr <- err
	}()
	<-started
	e.clock.Add(time.Minute)
	res, err := e.svc.Idempotent(e.ctx, req, func(ctx context.Context) (any, error) {
		l, err := e.svc.CreateLetter(ctx, acct, in)
		if err != nil {
			return nil, err
		}
		return l.ID, nil
	})
	if err != nil || res.Replayed {
		t.Fatalf("takeover: %v %+v", err, res)
	}
	close(release)
	if err := <-firstErr; err == nil {
		t.Error("the request whose claim was taken over still succeeded")
	}
	if n := countLetters(t, e, acct); n != 1 {
		t.Errorf("%d letters, want 1", n)
	}
}

// renewals passes renewals on to the store and reports each one.
type renewals struct {
	storage.Storage
	done chan error
}

func (r renewals) RenewIdempotency(ctx context.Context, account, scope, key, token string, now, until time.Time) error {
	err := r.Storage.RenewIdempotency(ctx, account, scope, key, token, now, until)
	r.done <- err
	return err
}

// TestIdempotencyLeaseRenewed: a request still running renews its lease, so
// it keeps its key however long it runs; a retry meanwhile is in flight,
// told to come back when the lease would end.
func TestIdempotencyLeaseRenewed(t *testing.T) {
	e := newEnv(t)
	rn := renewals{Storage: e.store, done: make(chan error, 1)}
	svc := lettershop.New(rn, lettershop.WithClock(e.clock), lettershop.WithIdempotencyLease(30*time.Second))
	t.Cleanup(func() { svc.Close() })
	req := lettershop.IdempotentRequest{Scope: "s", Key: "long", Fingerprint: "f", Encode: encodeString}
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := svc.Idempotent(e.ctx, req, func(context.Context) (any, error) {
			close(started)
			<-release
			return "first", nil
		})
		done <- err
	}()
	<-started
	// Six renewals, one every 10 s: a minute, twice the lease.
	for range 6 {
		e.clock.Add(10 * time.Second)
		if err := <-rn.done; err != nil {
			t.Fatalf("renewal: %v", err)
		}
	}
	_, err := svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	wantCode(t, err, lettershop.CodeInFlight)
	var le *lettershop.Error
	if !errors.As(err, &le) || le.RetryAfter != 30*time.Second {
		t.Errorf("in flight: RetryAfter %v, want the 30 s left of the lease renewed just now", le.RetryAfter)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first: %v", err)
	}
	res, err := svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	if err != nil || text(res) != "first" || !res.Replayed {
		t.Errorf("replay: %q %v %v", text(res), res.Replayed, err)
	}
}

// TestIdempotencyDefaultLeaseIsShort: by default a claim nobody renews is
// free again after 10 s, not a minute.
func TestIdempotencyDefaultLeaseIsShort(t *testing.T) {
	e := newEnv(t)
	dying := lettershop.New(noRenewals{e.store}, lettershop.WithClock(e.clock))
	t.Cleanup(func() { dying.Close() })
	req := lettershop.IdempotentRequest{Scope: "s", Key: "k", Fingerprint: "f", Encode: encodeString}
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = dying.Idempotent(e.ctx, req, func(context.Context) (any, error) {
			close(started)
			<-release
			return "first", nil
		})
	}()
	<-started
	e.clock.Add(lettershop.DefaultIdempotencyLease - time.Millisecond)
	_, err := e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	wantCode(t, err, lettershop.CodeInFlight)
	var le *lettershop.Error
	if !errors.As(err, &le) || le.RetryAfter != time.Second {
		t.Errorf("in flight a millisecond before the lease ends: RetryAfter %v, want 1 s", le.RetryAfter)
	}
	e.clock.Add(time.Millisecond)
	res, err := e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	if err != nil || text(res) != "second" {
		t.Errorf("after the lease: %q %v", text(res), err)
	}
	close(release)
	<-done
}

// TestIdempotencyCap: an account keeps at most the cap of stored outcomes;
// over it the oldest failures go first, then the oldest successes, and a
// key whose outcome went runs again.
func TestIdempotencyCap(t *testing.T) {
	e := newEnv(t, lettershop.WithIdempotencyCap(3))
	runs := map[string]int{}
	send := func(account, key string, fail bool) lettershop.IdempotentResult {
		t.Helper()
		res, err := e.svc.Idempotent(e.ctx, lettershop.IdempotentRequest{
			Scope: "s-" + account, Account: account, Key: key, Fingerprint: "f", Encode: encodeString,
		}, func(context.Context) (any, error) {
			runs[account+"/"+key]++
			if fail {
				return nil, &lettershop.Error{Code: lettershop.CodeInvalid, Message: "bad " + key}
			}
			return "ok " + key, nil
		})
		if err != nil {
			t.Fatalf("%s/%s: %v", account, key, err)
		}
		e.clock.Add(time.Second)
		return res
	}
	send("a", "s1", false)
	send("a", "f1", true)
	send("a", "s2", false)
	send("b", "f1", true) // another account's outcome counts for it alone
	// At the cap: everything is replayed.
	for _, k := range []string{"s1", "f1", "s2"} {
		if res := send("a", k, strings.HasPrefix(k, "f")); !res.Replayed {
			t.Errorf("%s at the cap: not replayed", k)
		}
	}
	// One over: the failure goes, though older successes are there.
	send("a", "s3", false)
	for _, k := range []string{"s1", "s2", "s3"} {
		if res := send("a", k, false); !res.Replayed || runs["a/"+k] != 1 {
			t.Errorf("%s: replayed %v, runs %d; want kept", k, res.Replayed, runs["a/"+k])
		}
	}
	if res := send("a", "f1", true); res.Replayed || runs["a/f1"] != 2 {
		t.Errorf("f1 over the cap: replayed %v, runs %d; want it gone and run again", res.Replayed, runs["a/f1"])
	}
	// Stored again, f1 is the one failure over the cap of successes, so it
	// goes again at once, and the successes stay.
	if res := send("a", "f1", true); res.Replayed || runs["a/f1"] != 3 {
		t.Errorf("f1 again: replayed %v, runs %d; want it gone and run again", res.Replayed, runs["a/f1"])
	}
	if res := send("a", "s1", false); !res.Replayed || runs["a/s1"] != 1 {
		t.Errorf("s1: replayed %v, runs %d; want kept", res.Replayed, runs["a/s1"])
	}
	// A fourth success: the oldest success, s1, goes.
	send("a", "s4", false)
	if res := send("a", "s1", false); res.Replayed || runs["a/s1"] != 2 {
		t.Errorf("s1 after a fourth success: replayed %v, runs %d; want it gone", res.Replayed, runs["a/s1"])
	}
	if res := send("b", "f1", true); !res.Replayed {
		t.Error("account b's outcome went with a's")
	}
}

// TestIdempotencyCapOnAStoppedClock: on a clock that stands still every
// outcome is made at one instant; over the cap the first stored goes, not
// the one whose key sorts first, so a retry right after a request replays
// it instead of running it again.
func TestIdempotencyCapOnAStoppedClock(t *testing.T) {
	e := newEnv(t, lettershop.WithIdempotencyCap(3))
	runs := map[string]int{}
	send := func(key string) lettershop.IdempotentResult {
		t.Helper()
		res, err := e.svc.Idempotent(e.ctx, lettershop.IdempotentRequest{
			Scope: "s", Account: acct, Key: key, Fingerprint: "f", Encode: encodeString,
		}, func(context.Context) (any, error) {
			runs[key]++
			return "ok " + key, nil
		})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return res
	}
	for _, k := range []string{"m", "x", "y", "a"} {
		send(k)
		if res := send(k); !res.Replayed || runs[k] != 1 {
			t.Fatalf("%s retried at once: replayed %v, runs %d; want its outcome replayed", k, res.Replayed, runs[k])
		}
	}
	if res := send("m"); res.Replayed || runs["m"] != 2 {
		t.Errorf("m, the first stored, over the cap: replayed %v, runs %d; want it gone", res.Replayed, runs["m"])
	}
}

// TestIdempotencyCapTrimsEverySixteenth: the cap is enforced once every
// cap/16 outcomes an account stores, so it holds at most that many more in
// between.
func TestIdempotencyCapTrimsEverySixteenth(t *testing.T) {
	e := newEnv(t, lettershop.WithIdempotencyCap(32)) // trimmed every 2 outcomes
	runs := map[string]int{}
	send := func(account string, i int) lettershop.IdempotentResult {
		t.Helper()
		key := fmt.Sprintf("k%02d", i)
		res, err := e.svc.Idempotent(e.ctx, lettershop.IdempotentRequest{
			Scope: "s-" + account, Account: account, Key: key, Fingerprint: "f", Encode: encodeString,
		}, func(context.Context) (any, error) {
			runs[account+key]++
			return nil, &lettershop.Error{Code: lettershop.CodeInvalid, Message: "bad"}
		})
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Second)
		return res
	}
	for i := range 33 {
		send("a", i)
	}
	for i := range 34 {
		send("b", i)
	}
	// a: 33 stored, the last not a trim's turn: all kept.
	if res := send("a", 0); !res.Replayed {
		t.Error("a's oldest outcome went before its trim was due")
	}
	// b: the 34th trimmed it to 32, the two oldest gone. (A resend of a
	// gone one stores it anew, so the third oldest is asked before k01.)
	for _, c := range []struct {
		i    int
		want bool
	}{{0, false}, {2, true}, {1, false}} {
		if res := send("b", c.i); res.Replayed != c.want {
			t.Errorf("b's outcome %d: replayed %v, want %v", c.i, res.Replayed, c.want)
		}
	}
}

// claimLostStore is a store whose asset writes find the request's
// idempotency claim taken over by another request while it ran.
type claimLostStore struct{ storage.Storage }

func (claimLostStore) WriteAsset(context.Context, storage.AssetWrite) (storage.Asset, error) {
	return storage.Asset{}, fmt.Errorf("write: %w", storage.ErrClaimLost)
}

// A write that finds its claim taken over is a request in flight (409),
// as the completion that finds it is, and not an internal error.
func TestWriteFindingItsClaimLost(t *testing.T) {
	svc := lettershop.New(claimLostStore{memstore.New()})
	defer svc.Close()
	ctx := lettershop.WithIdempotencyKey(context.Background(), "key-lost")
	_, err := svc.CreateAsset(ctx, acct, lettershop.CreateAssetInput{Name: "a", Type: lettershop.AssetTemplate})
	if code := lettershop.ErrorCode(err); code != lettershop.CodeInFlight {
		t.Errorf("CreateAsset whose write lost its claim: %v (code %q), want %q", err, code, lettershop.CodeInFlight)
	}
}
