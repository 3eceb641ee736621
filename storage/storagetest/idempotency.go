package storagetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

var idempotencyTests = []test{
	{"ClaimIdempotency has exactly one winner among concurrent claimants", testClaimOneWinner},
	{"ClaimIdempotency returns the stored record to a loser", testClaimLoser},
	{"CompleteIdempotency stores the result on the claim", testComplete},
	{"CompleteIdempotency with another token is ErrClaimLost", testCompleteWrongToken},
	{"CompleteIdempotency of a completed or unknown claim is ErrClaimLost", testCompleteNotInFlight},
	{"ReleaseIdempotency frees the key", testRelease},
	{"ReleaseIdempotency without the claim's token changes nothing", testReleaseNotHeld},
	{"ClaimIdempotency replaces a record whose ExpiresAt is not after now", testClaimExpired},
	{"ClaimIdempotency takes over a claim whose lease is not after now", testClaimTakeover},
	{"ClaimIdempotency does not take over a completed record", testClaimDoneKeepsLease},
	{"PurgeIdempotency removes the expired records, only those, and counts them", testPurge},
	{"scopes are independent", testScopes},
	{"idempotency records are copied in and out", testIdempotencyCopies},
}

func testClaimOneWinner(t *testing.T, f *fixture) {
	const claimants = 32
	type result struct {
		token string
		got   storage.IdempotencyRecord
		won   bool
	}
	results := make([]result, claimants)
	var wg sync.WaitGroup
	for i := range claimants {
		wg.Go(func() {
			token := fmt.Sprintf("tok-%02d", i)
			got, won, err := f.s.ClaimIdempotency(f.ctx, claimRecord("s", "k", token, t0), t0)
			if err != nil {
				t.Errorf("ClaimIdempotency %s: %v", token, err)
			}
			results[i] = result{token, got, won}
		})
	}
	wg.Wait()
	winner := ""
	for _, r := range results {
		if r.won {
			if winner != "" {
				t.Fatalf("both %s and %s won the claim", winner, r.token)
			}
			winner = r.token
		}
	}
	if winner == "" {
		t.Fatal("no claimant won")
	}
	for _, r := range results {
		if r.got.Token != winner {
			t.Errorf("claimant %s (won %v) got the record of %q, want %q", r.token, r.won, r.got.Token, winner)
		}
	}
	f.wantInFlight(t, "s", "k", winner, t0)
}

func testClaimLoser(t *testing.T, f *fixture) {
	first := claimRecord("s", "k", "tok-1", t0)
	got, won := f.claim(t, first, t0)
	if !won {
		t.Fatal("first claim lost")
	}
	diff(t, "record returned to the winner", first, got)

	second := claimRecord("s", "k", "tok-2", at(time.Second))
	got, won = f.claim(t, second, at(time.Second))
	if won {
		t.Fatal("second claim won over a live one")
	}
	diff(t, "record returned to the loser", first, got)
}

func testComplete(t *testing.T, f *fixture) {
	r := claimRecord("s", "k", "tok-1", t0)
	f.mustClaim(t, r, t0)
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-1", Result: []byte("201 created")}))
	got, won := f.probe(t, "s", "k", at(time.Second))
	if won {
		t.Fatal("claim won over a completed record")
	}
	want := r
	want.Done = true
	want.Result = []byte("201 created")
	diff(t, "completed record", want, got)
}

func testCompleteWrongToken(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	err := f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-2", Result: []byte("lost")})
	wantErr(t, "CompleteIdempotency with another token", err, storage.ErrClaimLost)
	f.wantInFlight(t, "s", "k", "tok-1", t0)
	must(t, "CompleteIdempotency with the token", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-1", Result: []byte("ok")}))
	f.wantDone(t, "s", "k", "ok", t0)
}

func testCompleteNotInFlight(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	c := storage.Completion{Scope: "s", Key: "k", Token: "tok-1", Result: []byte("first")}
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, c))
	c.Result = []byte("second")
	err := f.s.CompleteIdempotency(f.ctx, c)
	wantErr(t, "CompleteIdempotency of a completed claim", err, storage.ErrClaimLost)
	f.wantDone(t, "s", "k", "first", t0)

	err = f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "unknown", Token: "tok-1"})
	wantErr(t, "CompleteIdempotency of an unknown key", err, storage.ErrClaimLost)
}

func testRelease(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	must(t, "ReleaseIdempotency", f.s.ReleaseIdempotency(f.ctx, "s", "k", "tok-1"))
	f.mustClaim(t, claimRecord("s", "k", "tok-2", at(time.Second)), at(time.Second))
	err := f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-1"})
	wantErr(t, "CompleteIdempotency of a released claim", err, storage.ErrClaimLost)
	f.wantInFlight(t, "s", "k", "tok-2", at(time.Second))
}

func testReleaseNotHeld(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	must(t, "ReleaseIdempotency with another token", f.s.ReleaseIdempotency(f.ctx, "s", "k", "tok-2"))
	f.wantInFlight(t, "s", "k", "tok-1", t0)

	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-1", Result: []byte("ok")}))
	must(t, "ReleaseIdempotency of a completed record", f.s.ReleaseIdempotency(f.ctx, "s", "k", "tok-1"))
	f.wantDone(t, "s", "k", "ok", t0)

	must(t, "ReleaseIdempotency of an unknown key", f.s.ReleaseIdempotency(f.ctx, "s", "unknown", "tok-1"))
}

func testClaimExpired(t *testing.T, f *fixture) {
	for _, done := range []bool{true, false} {
		key := fmt.Sprintf("k-done-%v", done)
		r := claimRecord("s", key, "tok-1", t0)
		r.LeaseExpiresAt = r.ExpiresAt.Add(time.Hour) // only ExpiresAt matters here
		f.mustClaim(t, r, t0)
		if done {
			must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: key, Token: "tok-1", Result: []byte("ok")}))
		}
		justBefore := r.ExpiresAt.Add(-us)
		got, won := f.claim(t, claimRecord("s", key, "tok-2", justBefore), justBefore)
		if won || got.Token != "tok-1" {
			t.Errorf("%s: claim a microsecond before ExpiresAt: won %v, token %q; want lost to tok-1", key, won, got.Token)
		}
		next := claimRecord("s", key, "tok-3", r.ExpiresAt)
		got, won = f.claim(t, next, r.ExpiresAt)
		if !won {
			t.Errorf("%s: claim at ExpiresAt lost to %+v", key, got)
		}
		diff(t, key+": record after the expired one", next, got)
	}
}

func testClaimTakeover(t *testing.T, f *fixture) {
	r := claimRecord("s", "k", "tok-1", t0)
	f.mustClaim(t, r, t0)
	justBefore := r.LeaseExpiresAt.Add(-us)
	got, won := f.claim(t, claimRecord("s", "k", "tok-2", justBefore), justBefore)
	if won || got.Token != "tok-1" {
		t.Errorf("claim a microsecond before the lease ends: won %v, token %q; want lost to tok-1", won, got.Token)
	}
	next := claimRecord("s", "k", "tok-3", r.LeaseExpiresAt)
	got, won = f.claim(t, next, r.LeaseExpiresAt)
	if !won {
		t.Fatalf("claim when the lease ends lost to %+v", got)
	}
	diff(t, "record taken over", next, got)

	err := f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-1", Result: []byte("late")})
	wantErr(t, "CompleteIdempotency by the claim taken over", err, storage.ErrClaimLost)
	must(t, "CompleteIdempotency by the new claim", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-3", Result: []byte("ok")}))
	f.wantDone(t, "s", "k", "ok", r.LeaseExpiresAt)
}

func testClaimDoneKeepsLease(t *testing.T, f *fixture) {
	r := claimRecord("s", "k", "tok-1", t0)
	f.mustClaim(t, r, t0)
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-1", Result: []byte("ok")}))
	later := r.LeaseExpiresAt.Add(time.Hour)
	f.wantDone(t, "s", "k", "ok", later)
}

func testPurge(t *testing.T, f *fixture) {
	now := at(48 * time.Hour)
	expiries := map[string]time.Time{
		"gone-before": now.Add(-time.Hour),
		"gone-at":     now,
		"kept-after":  now.Add(us),
		"kept-later":  now.Add(24 * time.Hour),
	}
	for key, exp := range expiries {
		r := claimRecord("s", key, "tok-"+key, t0)
		r.ExpiresAt = exp
		r.LeaseExpiresAt = exp
		f.mustClaim(t, r, t0)
	}
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "gone-before", Token: "tok-gone-before", Result: []byte("ok")}))

	n, err := f.s.PurgeIdempotency(f.ctx, now)
	must(t, "PurgeIdempotency", err)
	if n != 2 {
		t.Errorf("PurgeIdempotency removed %d records, want 2", n)
	}
	n, err = f.s.PurgeIdempotency(f.ctx, now)
	must(t, "PurgeIdempotency again", err)
	if n != 0 {
		t.Errorf("PurgeIdempotency again removed %d records, want 0", n)
	}
	// Probed at t0, when every record was live: the purged ones are gone,
	// the others are there.
	for key := range expiries {
		got, won := f.probe(t, "s", key, t0)
		if purged := expiries[key].Compare(now) <= 0; won != purged {
			t.Errorf("record %s: purged %v, want %v (found %+v)", key, won, purged, got)
		}
	}
}

func testScopes(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s1", "k", "tok-1", t0), t0)
	f.mustClaim(t, claimRecord("s2", "k", "tok-2", t0), t0)
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s1", Key: "k", Token: "tok-1", Result: []byte("one")}))
	err := f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s2", Key: "k", Token: "tok-1", Result: []byte("one")})
	wantErr(t, "CompleteIdempotency with a token of another scope", err, storage.ErrClaimLost)
	f.wantDone(t, "s1", "k", "one", t0)
	f.wantInFlight(t, "s2", "k", "tok-2", t0)
}

func testIdempotencyCopies(t *testing.T, f *fixture) {
	r := claimRecord("s", "k", "tok-1", t0)
	f.mustClaim(t, r, t0)
	result := []byte("ok")
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Scope: "s", Key: "k", Token: "tok-1", Result: result}))
	scribbleBytes(result)
	got, _ := f.probe(t, "s", "k", t0)
	scribbleBytes(got.Result)
	f.wantDone(t, "s", "k", "ok", t0)
}
