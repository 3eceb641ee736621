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
	{"ClaimIdempotency judges expiry at now for its own key and account only", testClaimOwnAccountTime},
	{"ClaimIdempotency does not take over a completed record", testClaimDoneKeepsLease},
	{"PurgeIdempotency removes the expired records, only those, and counts them", testPurge},
	{"scopes are independent", testScopes},
	{"idempotency records are copied in and out", testIdempotencyCopies},
	{"RenewIdempotency extends a live lease held by the token, and nothing else", testRenew},
	{"TrimIdempotency keeps an account's newest outcomes, removing failures first", testTrim},
	{"TrimIdempotency keeps an account's outcomes within a bound in bytes, removing failures first", testTrimBytes},
	{"TrimIdempotency removes outcomes of one CreatedAt in the order they were completed", testTrimCompletionOrder},
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
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("201 created"), Size: 11}))
	got, won := f.probe(t, "s", "k", at(time.Second))
	if won {
		t.Fatal("claim won over a completed record")
	}
	want := r
	want.Done, want.Token = true, ""
	want.Result = storage.Encoded("201 created")
	want.Size = 11
	diff(t, "completed record", want, got)
}

func testCompleteWrongToken(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	err := f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-2", Result: storage.Encoded("lost")})
	wantErr(t, "CompleteIdempotency with another token", err, storage.ErrClaimLost)
	f.wantInFlight(t, "s", "k", "tok-1", t0)
	must(t, "CompleteIdempotency with the token", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("ok")}))
	f.wantDone(t, "s", "k", "ok", t0)
}

func testCompleteNotInFlight(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	c := storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("first")}
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, c))
	c.Result = storage.Encoded("second")
	err := f.s.CompleteIdempotency(f.ctx, c)
	wantErr(t, "CompleteIdempotency of a completed claim", err, storage.ErrClaimLost)
	f.wantDone(t, "s", "k", "first", t0)

	err = f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "unknown", Token: "tok-1"})
	wantErr(t, "CompleteIdempotency of an unknown key", err, storage.ErrClaimLost)
}

func testRelease(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	must(t, "ReleaseIdempotency", f.s.ReleaseIdempotency(f.ctx, scopeAccount("s"), "s", "k", "tok-1"))
	f.mustClaim(t, claimRecord("s", "k", "tok-2", at(time.Second)), at(time.Second))
	err := f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1"})
	wantErr(t, "CompleteIdempotency of a released claim", err, storage.ErrClaimLost)
	f.wantInFlight(t, "s", "k", "tok-2", at(time.Second))
}

func testReleaseNotHeld(t *testing.T, f *fixture) {
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	must(t, "ReleaseIdempotency with another token", f.s.ReleaseIdempotency(f.ctx, scopeAccount("s"), "s", "k", "tok-2"))
	f.wantInFlight(t, "s", "k", "tok-1", t0)

	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("ok")}))
	must(t, "ReleaseIdempotency of a completed record", f.s.ReleaseIdempotency(f.ctx, scopeAccount("s"), "s", "k", "tok-1"))
	f.wantDone(t, "s", "k", "ok", t0)

	must(t, "ReleaseIdempotency of an unknown key", f.s.ReleaseIdempotency(f.ctx, scopeAccount("s"), "s", "unknown", "tok-1"))
}

func testClaimExpired(t *testing.T, f *fixture) {
	for _, done := range []bool{true, false} {
		key := fmt.Sprintf("k-done-%v", done)
		r := claimRecord("s", key, "tok-1", t0)
		r.LeaseExpiresAt = r.ExpiresAt.Add(time.Hour) // only ExpiresAt matters here
		f.mustClaim(t, r, t0)
		if done {
			must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: key, Token: "tok-1", Result: storage.Encoded("ok")}))
		}
		justBefore := r.ExpiresAt.Add(-us)
		got, won := f.claim(t, claimRecord("s", key, "tok-2", justBefore), justBefore)
		if won || got.Done != done || !done && got.Token != "tok-1" {
			t.Errorf("%s: claim a microsecond before ExpiresAt: won %v, token %q, done %v; want lost to tok-1's record", key, won, got.Token, got.Done)
		}
		next := claimRecord("s", key, "tok-3", r.ExpiresAt)
		got, won = f.claim(t, next, r.ExpiresAt)
		if !won {
			t.Errorf("%s: claim at ExpiresAt lost to %+v", key, got)
		}
		diff(t, key+": record after the expired one", next, got)
	}
}

// testClaimOwnAccountTime: accounts keep time on clocks of their own, so a
// claim made at one account's time (a month ahead) leaves other accounts'
// records alone, though they have expired by that time.
func testClaimOwnAccountTime(t *testing.T, f *fixture) {
	b := claimRecord("s", "k-b", "tok-b", t0)
	b.Account = acctB
	f.mustClaim(t, b, t0)
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: acctB, Scope: "s", Key: "k-b", Token: "tok-b", Result: storage.Encoded("ok")}))
	ahead := at(30 * 24 * time.Hour)
	for i := range 40 {
		a := claimRecord("s", fmt.Sprintf("k-a-%d", i), "tok-a", ahead)
		a.Account = acctA
		f.mustClaim(t, a, ahead)
	}
	again := claimRecord("s", "k-b", "tok-b2", at(time.Hour))
	again.Account = acctB
	got, won := f.claim(t, again, at(time.Hour))
	if won || !got.Done || resultOf(t, got.Result) != "ok" {
		t.Errorf("claim at acctB's time after acctA's claims a month ahead: won %v, token %q, done %v; want acctB's record kept",
			won, got.Token, got.Done)
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

	err := f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("late")})
	wantErr(t, "CompleteIdempotency by the claim taken over", err, storage.ErrClaimLost)
	must(t, "CompleteIdempotency by the new claim", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-3", Result: storage.Encoded("ok")}))
	f.wantDone(t, "s", "k", "ok", r.LeaseExpiresAt)
}

func testClaimDoneKeepsLease(t *testing.T, f *fixture) {
	r := claimRecord("s", "k", "tok-1", t0)
	f.mustClaim(t, r, t0)
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("ok")}))
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
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "gone-before", Token: "tok-gone-before", Result: storage.Encoded("ok")}))

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
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s1"), Scope: "s1", Key: "k", Token: "tok-1", Result: storage.Encoded("one")}))
	err := f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s2"), Scope: "s2", Key: "k", Token: "tok-1", Result: storage.Encoded("one")})
	wantErr(t, "CompleteIdempotency with a token of another scope", err, storage.ErrClaimLost)
	f.wantDone(t, "s1", "k", "one", t0)
	f.wantInFlight(t, "s2", "k", "tok-2", t0)
}

func testIdempotencyCopies(t *testing.T, f *fixture) {
	r := claimRecord("s", "k", "tok-1", t0)
	f.mustClaim(t, r, t0)
	result := storage.Encoded("ok")
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: result}))
	scribbleBytes(result)
	got, _ := f.probe(t, "s", "k", t0)
	if b, ok := got.Result.(storage.Encoded); ok {
		scribbleBytes(b)
	}
	f.wantDone(t, "s", "k", "ok", t0)
}

func testRenew(t *testing.T, f *fixture) {
	r := claimRecord("s", "k", "tok-1", t0)
	f.mustClaim(t, r, t0)
	later := r.LeaseExpiresAt.Add(time.Minute)
	must(t, "RenewIdempotency", f.s.RenewIdempotency(f.ctx, scopeAccount("s"), "s", "k", "tok-1", r.LeaseExpiresAt.Add(-us), later))
	// Past the first lease, the renewed one holds.
	f.wantInFlight(t, "s", "k", "tok-1", r.LeaseExpiresAt)
	wantErr(t, "RenewIdempotency with another token", f.s.RenewIdempotency(f.ctx, scopeAccount("s"), "s", "k", "tok-2", t0, later), storage.ErrClaimLost)
	wantErr(t, "RenewIdempotency of an unknown key", f.s.RenewIdempotency(f.ctx, scopeAccount("s"), "s", "nope", "tok-1", t0, later), storage.ErrClaimLost)
	wantErr(t, "RenewIdempotency when the lease has ended", f.s.RenewIdempotency(f.ctx, scopeAccount("s"), "s", "k", "tok-1", later, later.Add(time.Minute)), storage.ErrClaimLost)
	// The lease ended: a claim takes over.
	next := claimRecord("s", "k", "tok-3", later)
	if got, won := f.claim(t, next, later); !won {
		t.Fatalf("claim after the renewed lease ended lost to %+v", got)
	}
	must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-3", Result: storage.Encoded("ok")}))
	wantErr(t, "RenewIdempotency of a completed claim", f.s.RenewIdempotency(f.ctx, scopeAccount("s"), "s", "k", "tok-3", later, later.Add(time.Minute)), storage.ErrClaimLost)
}

func testTrim(t *testing.T, f *fixture) {
	// Account a: successes s0..s2 and failures f0..f2, made a second apart
	// in the order s0 f0 s1 f1 s2 f2, and one claim still in flight.
	f.putTrimmed(t)
	a := scopeAccount("scope-a")
	inFlight := claimRecord("scope-a", "running", "tok-running", at(time.Minute))
	f.mustClaim(t, inFlight, inFlight.CreatedAt)
	now := at(2 * time.Minute)

	removed, err := f.s.TrimIdempotency(f.ctx, a, 6, 1<<20)
	must(t, "TrimIdempotency to 6", err)
	if removed != 0 {
		t.Errorf("TrimIdempotency to as many as there are removed %d", removed)
	}
	removed, err = f.s.TrimIdempotency(f.ctx, a, 4, 1<<20)
	must(t, "TrimIdempotency to 4", err)
	if removed != 2 {
		t.Errorf("TrimIdempotency to 4 removed %d, want 2", removed)
	}
	for _, gone := range []string{"f0", "f1"} {
		if got, won := f.probe(t, "scope-a", gone, now); !won {
			t.Errorf("%s kept after the trim: %+v", gone, got)
		}
	}
	for _, kept := range []string{"s0", "s1", "s2", "f2"} {
		f.wantDone(t, "scope-a", kept, kept, now)
	}
	// The probes above added no completed records; trim to 1: f2, s0 and s1 go.
	removed, err = f.s.TrimIdempotency(f.ctx, a, 1, 1<<20)
	must(t, "TrimIdempotency to 1", err)
	if removed != 3 {
		t.Errorf("TrimIdempotency to 1 removed %d, want 3", removed)
	}
	f.wantDone(t, "scope-a", "s2", "s2", now)
	f.wantInFlight(t, "scope-a", "running", "tok-running", inFlight.CreatedAt)
	f.wantDone(t, "scope-b", "other", "other", now)
	if removed, err := f.s.TrimIdempotency(f.ctx, "nobody", 0, 0); err != nil || removed != 0 {
		t.Errorf("TrimIdempotency of an account without records: %d, %v", removed, err)
	}
}

// testTrimCompletionOrder: outcomes claimed at one instant (a clock that
// stands still) are the older the earlier they were completed, whatever
// their keys and however completed (on their own or with a write), so the
// outcome a request has just stored is the last to go: a trim right after
// it must not free its key for the retry that follows.
func testTrimCompletionOrder(t *testing.T, f *fixture) {
	a := scopeAccount("s")
	for _, key := range []string{"a", "m", "z", "b"} {
		f.mustClaim(t, claimRecord("s", key, "tok-"+key, t0), t0)
	}
	complete := func(key string) {
		t.Helper()
		must(t, "CompleteIdempotency "+key, f.s.CompleteIdempotency(f.ctx,
			storage.Completion{Account: a, Scope: "s", Key: key, Token: "tok-" + key, Result: storage.Encoded(key)}))
	}
	// Completed in an order that is neither the keys' nor its reverse.
	complete("m")
	w := prepareCreateLetter(t, f)
	must(t, "CreateLetter completing z", w.write(&storage.Completion{Account: a, Scope: "s", Key: "z", Token: "tok-z", Result: storage.Encoded("z")}))
	complete("a")
	complete("b")
	now := t0.Add(time.Second)
	for i, gone := range []string{"m", "z", "a"} {
		removed, err := f.s.TrimIdempotency(f.ctx, a, 3-i, 1<<20)
		must(t, "TrimIdempotency", err)
		if removed != 1 {
			t.Fatalf("TrimIdempotency to %d removed %d, want 1", 3-i, removed)
		}
		if got, won := f.probe(t, "s", gone, now); !won {
			t.Errorf("trim to %d: %s, completed before the others kept, is kept: %+v", 3-i, gone, got)
		}
	}
	f.wantDone(t, "s", "b", "b", now)
}

// putTrimmed stores, in scope-a, the successes s0..s2 and failures f0..f2,
// made a second apart in the order s0 f0 s1 f1 s2 f2, of sizes 100, 1,
// 101, 2, 102 and 3 bytes (6 + 303 = 309 in all); and in scope-b, of
// another account, a failure of 1,000 bytes.
func (f *fixture) putTrimmed(t *testing.T) {
	t.Helper()
	n := 0
	put := func(scope, key string, failed bool, size int64) {
		t.Helper()
		r := claimRecord(scope, key, "tok-"+key, at(time.Duration(n)*time.Second))
		n++
		f.mustClaim(t, r, r.CreatedAt)
		must(t, "CompleteIdempotency "+key, f.s.CompleteIdempotency(f.ctx,
			storage.Completion{Account: r.Account, Scope: r.Scope, Key: key, Token: r.Token, Result: storage.Encoded(key), Size: size, Failed: failed}))
	}
	for i := range 3 {
		put("scope-a", fmt.Sprintf("s%d", i), false, int64(100+i))
		put("scope-a", fmt.Sprintf("f%d", i), true, int64(1+i))
	}
	put("scope-b", "other", true, 1000)
}

// testTrimBytes: the bound in bytes removes in the order the bound in
// number does, failures first, until the sizes kept add up to no more
// than it; at the sum exactly, nothing goes.
func testTrimBytes(t *testing.T, f *fixture) {
	f.putTrimmed(t)
	a := scopeAccount("scope-a")
	now := at(time.Minute)
	for _, tc := range []struct {
		keepBytes int64
		removed   int
		gone      []string
	}{
		{309, 0, nil},
		{308, 1, []string{"f0"}},     // f0 (1 byte) goes: 308 kept
		{306, 1, []string{"f1"}},     // f1 (2): 306
		{305, 1, []string{"f2"}},     // f2 (3): 303
		{303, 0, nil},                // the successes' 303 bytes, exactly
		{302, 1, []string{"s0"}},     // then the oldest success
		{0, 2, []string{"s1", "s2"}}, // and the rest
	} {
		removed, err := f.s.TrimIdempotency(f.ctx, a, 100, tc.keepBytes)
		must(t, fmt.Sprintf("TrimIdempotency to %d bytes", tc.keepBytes), err)
		if removed != tc.removed {
			t.Errorf("TrimIdempotency to %d bytes removed %d, want %d", tc.keepBytes, removed, tc.removed)
		}
		for _, gone := range tc.gone {
			if got, won := f.probe(t, "scope-a", gone, now); !won {
				t.Errorf("%d bytes: %s kept: %+v", tc.keepBytes, gone, got)
			}
			// The probe's claim is in flight, and counts for nothing.
		}
	}
	f.wantDone(t, "scope-b", "other", "other", now)
}
