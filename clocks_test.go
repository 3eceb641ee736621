package lettershop_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
)

const (
	acctAhead = "acct_ahead"
	acctStill = "acct_still"
)

// createLetterIn makes a letter in account from a fresh template.
func (e *env) createLetterIn(t testing.TB, account string) *lettershop.Letter {
	t.Helper()
	a, _ := e.publishedTemplate(t, account)
	l, err := e.svc.CreateLetter(e.ctx, account, letterInput(a.ID))
	if err != nil {
		t.Fatalf("CreateLetter in %s: %v", account, err)
	}
	return l
}

func (e *env) letterIn(t testing.TB, account, id string) *lettershop.Letter {
	t.Helper()
	l, err := e.svc.GetLetter(e.ctx, account, id)
	if err != nil {
		t.Fatalf("GetLetter: %v", err)
	}
	return l
}

// An account's clock moves its letters, and only its: another account's
// letters, and the Service's clock, stay where they were.
func TestAccountClockMovesOnlyItsAccount(t *testing.T) {
	e := newEnv(t)
	ahead := e.createLetterIn(t, acctAhead)
	still := e.createLetterIn(t, acctStill)

	c, err := e.svc.AdvanceAccountClock(e.ctx, acctAhead, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if want := testStart.Add(30 * 24 * time.Hour); !c.Now.Equal(want) || c.Frozen {
		t.Errorf("clock %+v, want %v, not frozen", c, want)
	}
	if got := e.letterIn(t, acctAhead, ahead.ID); got.Status != lettershop.StatusMailed || got.Events[len(got.Events)-1].Status != "delivered" {
		t.Errorf("a month on, the letter is %s, last event %+v", got.Status, got.Events[len(got.Events)-1])
	}
	// RunDue and reads of the other account, at the Service's time, leave
	// it queued.
	if _, err := e.svc.RunDue(e.ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.letterIn(t, acctStill, still.ID); got.Status != lettershop.StatusQueued || len(got.Events) != 1 {
		t.Errorf("the other account's letter is %s with %d events", got.Status, len(got.Events))
	}
	if !e.svc.Now().Equal(testStart) || !e.svc.AccountNow(acctStill).Equal(testStart) {
		t.Errorf("Service clock %v, other account %v; want both at the start", e.svc.Now(), e.svc.AccountNow(acctStill))
	}

	// What the account makes now is dated by its clock, and sorts after
	// what it made before.
	later := e.createLetterIn(t, acctAhead)
	if !later.CreatedAt.Equal(c.Now) || later.Events[0].Timestamp != c.Now {
		t.Errorf("letter made a month on: createdAt %v, first event %v; want %v", later.CreatedAt, later.Events[0].Timestamp, c.Now)
	}
	page, err := e.svc.ListLetters(e.ctx, acctAhead, lettershop.ListLettersInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].ID != later.ID {
		t.Errorf("list, newest first: %v", ids(page.Items))
	}

	// The Service's clock moving moves both, the one ahead keeping its lead.
	e.clock.Add(time.Hour)
	if got, want := e.svc.AccountNow(acctAhead), testStart.Add(30*24*time.Hour+time.Hour); !got.Equal(want) {
		t.Errorf("account ahead reads %v after the Service's clock moved an hour, want %v", got, want)
	}
}

func ids(ls []*lettershop.Letter) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return out
}

// A frozen clock stays where it is when the Service's clock moves, and so
// do its letters, which even a run of everything due passes over; it moves
// when told. Unfrozen, it follows the Service's clock from where it stands.
func TestFrozenAccountClock(t *testing.T) {
	e := newEnv(t)
	frozen := e.createLetterIn(t, acctAhead)
	other := e.createLetterIn(t, acctStill)
	if c, err := e.svc.FreezeAccountClock(e.ctx, acctAhead, true); err != nil || !c.Frozen || !c.Now.Equal(testStart) {
		t.Fatalf("FreezeAccountClock: %+v, %v", c, err)
	}
	e.clock.Add(10 * 24 * time.Hour)
	if _, err := e.svc.RunDue(e.ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.letterIn(t, acctAhead, frozen.ID); got.Status != lettershop.StatusQueued {
		t.Errorf("the frozen account's letter moved to %s", got.Status)
	}
	if got := e.letterIn(t, acctStill, other.ID); got.Status != lettershop.StatusMailed {
		t.Errorf("the other account's letter is %s ten days on, want mailed", got.Status)
	}
	if c := e.svc.AccountClock(acctAhead); !c.Now.Equal(testStart) || !c.Frozen {
		t.Errorf("frozen clock reads %+v", c)
	}
	c, err := e.svc.AdvanceAccountClock(e.ctx, acctAhead, 2*time.Hour)
	if err != nil || !c.Now.Equal(testStart.Add(2*time.Hour)) || !c.Frozen {
		t.Fatalf("advance of a frozen clock: %+v, %v", c, err)
	}
	if got := e.letterIn(t, acctAhead, frozen.ID); got.Status != lettershop.StatusReady {
		t.Errorf("the frozen account's letter is %s two hours on, want ready", got.Status)
	}
	if c, err := e.svc.FreezeAccountClock(e.ctx, acctAhead, false); err != nil || c.Frozen || !c.Now.Equal(testStart.Add(2*time.Hour)) {
		t.Fatalf("unfreeze: %+v, %v; want it where it stood", c, err)
	}
	e.clock.Add(time.Hour)
	if got, want := e.svc.AccountNow(acctAhead), testStart.Add(3*time.Hour); !got.Equal(want) {
		t.Errorf("unfrozen clock reads %v after the Service's moved an hour, want %v", got, want)
	}
	// Behind the Service's clock, its letters are still passed over by runs
	// at the Service's time.
	if _, err := e.svc.RunDue(e.ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.letterIn(t, acctAhead, frozen.ID); got.Status != lettershop.StatusReady {
		t.Errorf("the letter of an account behind the Service's clock moved to %s", got.Status)
	}
}

func TestAccountClockRefusals(t *testing.T) {
	e := newEnv(t)
	_, err := e.svc.AdvanceAccountClock(e.ctx, acctAhead, -time.Second)
	wantFields(t, err, "duration")
	_, err = e.svc.SetAccountClock(e.ctx, acctAhead, testStart.Add(-time.Millisecond))
	wantFields(t, err, "now")
	_, err = e.svc.SetAccountClock(e.ctx, acctAhead, lettershop.LastClockTime.Add(time.Millisecond))
	wantFields(t, err, "now")
	if c, err := e.svc.SetAccountClock(e.ctx, acctAhead, lettershop.LastClockTime); err != nil || !c.Now.Equal(lettershop.LastClockTime) {
		t.Fatalf("set to the last time: %+v, %v", c, err)
	}
	_, err = e.svc.AdvanceAccountClock(e.ctx, acctAhead, time.Millisecond)
	wantFields(t, err, "duration")
	if c, err := e.svc.SetAccountClock(e.ctx, acctStill, testStart); err != nil || !c.Now.Equal(testStart) {
		t.Errorf("set to the time it is: %+v, %v", c, err)
	}
	_, err = e.svc.AdvanceAccountClock(e.ctx, "", time.Second)
	wantFields(t, err, "account")

	real := lettershop.New(memstore.New())
	t.Cleanup(func() { real.Close() })
	_, err = real.AdvanceAccountClock(e.ctx, acctAhead, time.Hour)
	wantCode(t, err, lettershop.CodeConflict)
	_, err = real.FreezeAccountClock(e.ctx, acctAhead, true)
	wantCode(t, err, lettershop.CodeConflict)
}

// Idempotency keys expire on their account's clock, and a claim at one
// account's time leaves other accounts' keys alone.
func TestIdempotencyOnAccountClock(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acctAhead)
	b, _ := e.publishedTemplate(t, acctStill)
	create := func(account, assetID, name string) (*lettershop.Letter, error) {
		in := letterInput(assetID)
		in.Variables = vars("name", name)
		return e.svc.CreateLetter(lettershop.WithIdempotencyKey(e.ctx, "key-1"), account, in)
	}
	first, err := create(acctAhead, a.ID, "Jane")
	if err != nil {
		t.Fatal(err)
	}
	fromB, err := create(acctStill, b.ID, "Jane")
	if err != nil {
		t.Fatal(err)
	}
	// 23 hours on the account's clock: the key still holds.
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acctAhead, 23*time.Hour); err != nil {
		t.Fatal(err)
	}
	_, err = create(acctAhead, a.ID, "John")
	wantCode(t, err, lettershop.CodeIdempotencyMismatch)
	// 24 hours: it has expired in that account only.
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acctAhead, time.Hour); err != nil {
		t.Fatal(err)
	}
	second, err := create(acctAhead, a.ID, "John")
	if err != nil || second.ID == first.ID {
		t.Fatalf("after 24 hours the key made %v, %v; want a new letter", second, err)
	}
	replay, err := create(acctStill, b.ID, "Jane")
	if err != nil || replay.ID != fromB.ID {
		t.Errorf("the other account's key: %v, %v; want the replay of %s", replay, err, fromB.ID)
	}
	_, err = create(acctStill, b.ID, "John")
	wantCode(t, err, lettershop.CodeIdempotencyMismatch)
}

// Download links expire on their account's clock.
func TestDownloadLinkOnAccountClock(t *testing.T) {
	e := newEnv(t)
	l := e.createLetterIn(t, acctAhead)
	u, err := e.svc.DownloadURL(e.ctx, acctAhead, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	lk := parseLink(t, u)
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acctAhead, lettershop.DefaultDownloadTTL-time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature); err != nil {
		t.Fatalf("just before expiry on the account's clock: %v", err)
	}
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acctAhead, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.OpenDownload(e.ctx, lk.file, lk.expires, lk.signature)
	wantCode(t, err, lettershop.CodeForbidden)
}

// Accounts moving their clocks side by side never see each other's time:
// each one's letters follow its own clock, however the moves interleave.
func TestAccountClocksInParallel(t *testing.T) {
	e := newEnv(t)
	const accounts = 20
	var wg sync.WaitGroup
	errs := make(chan error, accounts)
	for i := range accounts {
		wg.Go(func() {
			account := fmt.Sprintf("acct_par_%02d", i)
			if err := parallelAccount(e.ctx, e.svc, account, time.Duration(i)*time.Hour); err != nil {
				errs <- fmt.Errorf("%s: %w", account, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// parallelAccount makes a letter in account, moves its clock by lead and
// then a day at a time, and checks its letter moves with that clock only.
func parallelAccount(ctx context.Context, svc *lettershop.Service, account string, lead time.Duration) error {
	a, err := svc.CreateAsset(ctx, account, lettershop.CreateAssetInput{Name: "T", Type: lettershop.AssetTemplate})
	if err != nil {
		return err
	}
	if _, err := svc.CreateVersion(ctx, account, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: testTemplate}, VariableDefinitions: testDefinitions, Publish: true,
	}); err != nil {
		return err
	}
	if _, err := svc.AdvanceAccountClock(ctx, account, lead); err != nil {
		return err
	}
	l, err := svc.CreateLetter(ctx, account, letterInput(a.ID))
	if err != nil {
		return err
	}
	if !l.CreatedAt.Equal(testStart.Add(lead)) {
		return fmt.Errorf("created at %v, want %v", l.CreatedAt, testStart.Add(lead))
	}
	for day := 1; day <= 12; day++ {
		c, err := svc.AdvanceAccountClock(ctx, account, 24*time.Hour)
		if err != nil {
			return err
		}
		if want := testStart.Add(lead + time.Duration(day)*24*time.Hour); !c.Now.Equal(want) {
			return fmt.Errorf("day %d: clock %v, want %v", day, c.Now, want)
		}
		got, err := svc.GetLetter(ctx, account, l.ID)
		if err != nil {
			return err
		}
		for _, ev := range got.Events {
			if ev.Timestamp.After(c.Now) {
				return fmt.Errorf("day %d: event %s at %v, after the account's time %v", day, ev.Status, ev.Timestamp, c.Now)
			}
		}
	}
	got, err := svc.GetLetter(ctx, account, l.ID)
	if err != nil {
		return err
	}
	if last := got.Events[len(got.Events)-1]; !strings.EqualFold(string(last.Status), "delivered") {
		return fmt.Errorf("12 days on, the last event is %s", last.Status)
	}
	return nil
}

// A Service on a mock clock no test moved apart reads the mock for every
// account: the clocks cost a lookup only once some account has one.
func TestAccountClockDefaultsToService(t *testing.T) {
	mc := clock.NewMock()
	mc.Set(testStart)
	e := newEnvOn(t, memstore.New(), mc)
	if got := e.svc.AccountClock("anyone"); !got.Now.Equal(testStart) || got.Frozen {
		t.Errorf("clock of an account nobody moved: %+v", got)
	}
	mc.Add(time.Minute)
	if got := e.svc.AccountNow("anyone"); !got.Equal(testStart.Add(time.Minute)) {
		t.Errorf("it reads %v after the Service's clock moved, want %v", got, testStart.Add(time.Minute))
	}
}

// The Service's clock moves forward only, through AdvanceClock and
// SetClock, and every account with it: one ahead keeps its lead, a frozen
// one stays; letters that fell due have run when the move returns.
func TestServiceClockMoves(t *testing.T) {
	e := newEnv(t)
	l := e.createLetterIn(t, acctStill)
	if _, err := e.svc.AdvanceAccountClock(e.ctx, acctAhead, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.FreezeAccountClock(e.ctx, "acct_frozen", true); err != nil {
		t.Fatal(err)
	}
	now, err := e.svc.AdvanceClock(e.ctx, 72*time.Hour)
	if want := testStart.Add(72 * time.Hour); err != nil || !now.Equal(want) || !e.clock.Now().Equal(want) {
		t.Fatalf("AdvanceClock: %v, %v; the clock reads %v; want %v", now, err, e.clock.Now(), want)
	}
	if got, err := e.store.GetLetter(e.ctx, acctStill, l.ID); err != nil || got.Status == string(lettershop.StatusQueued) {
		t.Errorf("stored letter %s, %v: what fell due has not run", got.Status, err)
	}
	for account, want := range map[string]time.Time{
		acctAhead:     testStart.Add(73 * time.Hour),
		"acct_frozen": testStart,
		"acct_other":  testStart.Add(72 * time.Hour),
	} {
		if got := e.svc.AccountNow(account); !got.Equal(want) {
			t.Errorf("%s reads %v, want %v", account, got, want)
		}
	}
	at := testStart.Add(96 * time.Hour)
	if now, err := e.svc.SetClock(e.ctx, at); err != nil || !now.Equal(at) {
		t.Errorf("SetClock: %v, %v; want %v", now, err, at)
	}
	if now, err := e.svc.SetClock(e.ctx, at); err != nil || !now.Equal(at) {
		t.Errorf("SetClock to the time it is: %v, %v", now, err)
	}

	_, err = e.svc.AdvanceClock(e.ctx, -time.Second)
	wantFields(t, err, "duration")
	_, err = e.svc.AdvanceClock(e.ctx, lettershop.LastClockTime.Sub(at)+time.Millisecond)
	wantFields(t, err, "duration")
	_, err = e.svc.SetClock(e.ctx, at.Add(-time.Millisecond))
	wantFields(t, err, "now")
	_, err = e.svc.SetClock(e.ctx, lettershop.LastClockTime.Add(time.Millisecond))
	wantFields(t, err, "now")
	if !e.clock.Now().Equal(at) {
		t.Errorf("refused moves moved the clock to %v", e.clock.Now())
	}

	real := lettershop.New(memstore.New())
	t.Cleanup(func() { real.Close() })
	_, err = real.AdvanceClock(e.ctx, time.Hour)
	wantCode(t, err, lettershop.CodeConflict)
	_, err = real.SetClock(e.ctx, time.Now().Add(time.Hour))
	wantCode(t, err, lettershop.CodeConflict)
}

// Two Services on one store are two servers on one database: an account's
// clock moved, set, frozen or unfrozen through either is the clock both
// read, from the other's next call on; moves made through both at once
// all count. Each reads the clock against its own clock: with their clocks
// apart, an account keeps the same lead on each, and a frozen one the same
// instant.
func TestAccountClocksSharedByServers(t *testing.T) {
	st := memstore.New()
	mcA, mcB := clock.NewMock(), clock.NewMock()
	mcA.Set(testStart)
	mcB.Set(testStart)
	a, b := newEnvOn(t, st, mcA), newEnvOn(t, st, mcB)
	ctx := context.Background()
	l := a.createLetterIn(t, acct)

	// readsOn checks the account's clock on srv at its next call.
	readsOn := func(srv *env, name string, want time.Time, frozen bool) {
		t.Helper()
		got := srv.letterIn(t, acct, l.ID) // a call: it reads the clocks first
		c := srv.svc.AccountClock(acct)
		if !c.Now.Equal(want) || c.Frozen != frozen {
			t.Errorf("%s reads the account's clock at %v (frozen %v), want %v (frozen %v)", name, c.Now, c.Frozen, want, frozen)
		}
		if got.Status == lettershop.StatusQueued && want.After(testStart.Add(time.Hour)) {
			t.Errorf("%s: the letter is still queued at %v", name, want)
		}
	}

	if _, err := a.svc.AdvanceAccountClock(ctx, acct, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	readsOn(b, "B after A's advance", testStart.Add(72*time.Hour), false)
	made, err := b.svc.CreateLetter(ctx, acct, letterInput(l.Content.AssetID))
	if err != nil {
		t.Fatal(err)
	}
	if want := testStart.Add(72 * time.Hour); !made.CreatedAt.Equal(want) {
		t.Errorf("a letter made through B is dated %v, want the account's %v", made.CreatedAt, want)
	}

	if _, err := b.svc.FreezeAccountClock(ctx, acct, true); err != nil {
		t.Fatal(err)
	}
	mcA.Add(24 * time.Hour)
	mcB.Add(24 * time.Hour)
	readsOn(a, "A after B froze it and both servers' clocks moved", testStart.Add(72*time.Hour), true)
	if _, err := a.svc.SetAccountClock(ctx, acct, testStart.Add(100*time.Hour)); err != nil {
		t.Fatal(err)
	}
	readsOn(b, "B after A set it", testStart.Add(100*time.Hour), true)
	if _, err := b.svc.FreezeAccountClock(ctx, acct, false); err != nil {
		t.Fatal(err)
	}
	mcA.Add(time.Hour)
	mcB.Add(time.Hour)
	readsOn(a, "A after B unfroze it and both moved an hour", testStart.Add(101*time.Hour), false)
	readsOn(b, "B after it unfroze it and both moved an hour", testStart.Add(101*time.Hour), false)

	// Moves from both servers at once: each is made on the clock as the
	// store holds it, so none is lost.
	var wg sync.WaitGroup
	for i := range 20 {
		srv := a
		if i%2 == 1 {
			srv = b
		}
		wg.Go(func() {
			if _, err := srv.svc.AdvanceAccountClock(ctx, acct, time.Minute); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	readsOn(a, "A after 20 moves of a minute", testStart.Add(101*time.Hour+20*time.Minute), false)
	readsOn(b, "B after 20 moves of a minute", testStart.Add(101*time.Hour+20*time.Minute), false)

	// B's own clock an hour ahead of A's: the account keeps its lead on
	// each, so B reads it an hour later; frozen, both read one instant.
	mcB.Add(time.Hour)
	readsOn(b, "B, its clock an hour ahead of A's", testStart.Add(102*time.Hour+20*time.Minute), false)
	readsOn(a, "A", testStart.Add(101*time.Hour+20*time.Minute), false)
	if _, err := a.svc.FreezeAccountClock(ctx, acct, true); err != nil {
		t.Fatal(err)
	}
	readsOn(b, "B, frozen through A", testStart.Add(101*time.Hour+20*time.Minute), true)
}
