package lettershoptest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/lettershoptest"
	"github.com/lettershop/lettershop/lettershoptest/pgtest"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/snapshot"
	"github.com/lettershop/lettershop/storage"
)

// fixture builds, in a new account of srv, three published templates,
// ten letters of the first in various statuses and a webhook, and returns
// the account and the letters' ids, oldest first.
func fixture(t testing.TB, srv *lettershoptest.Server) (*lettershoptest.Account, []string) {
	t.Helper()
	acct := srv.NewAccount()
	svc := srv.Service()
	var ids []string
	for i := range 3 {
		ids = append(ids, sendWelcome(t, svc, acct.ID, fmt.Sprint("Guest", i)))
	}
	assets := acct.Letters()[0].Content.AssetID
	for i := range 7 {
		name := fmt.Sprint("Person", i)
		l, err := svc.CreateLetter(t.Context(), acct.ID, lettershop.CreateLetterInput{
			Sender:    &lettershop.PartyInput{Organization: "Acme", Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
			Recipient: &lettershop.PartyInput{Organization: name, Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
			Content:   &lettershop.LetterContent{Type: lettershop.LetterContentAsset, AssetID: assets},
			UseType:   lettershop.UseTransactional, Variables: []lettershop.Variable{{Name: "name", Value: &name}},
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	acct.Force(ids[0], lettershoptest.Status(client.StatusMailed))
	acct.Force(ids[1], lettershoptest.Event(client.EventDelivered))
	acct.Force(ids[2], lettershoptest.Status(client.StatusReady))
	acct.Force(ids[3], lettershoptest.Status(client.StatusCanceled))
	if _, err := svc.CreateWebhook(t.Context(), acct.ID, lettershop.CreateWebhookInput{URL: "http://127.0.0.1:9/hooks", Secret: acct.WebhookSecret}); err != nil {
		t.Fatal(err)
	}
	return acct, ids
}

// One snapshot, restored into 100 accounts at once: each gets every
// record under ids of its own, with its letters where they stood, and its
// letters go on from there on its own clock.
func TestSnapshotRestoredInParallel(t *testing.T) {
	srv := lettershoptest.New(t)
	src, ids := fixture(t, srv)
	src.Advance(time.Hour)
	snap := src.Snapshot()
	want := src.Letters()
	seen := make(chan string, 100*len(ids))
	t.Run("restore", func(t *testing.T) {
		for i := range 100 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				acct := srv.NewAccount()
				m := acct.Restore(snap)
				if !acct.Now().Equal(src.Now()) {
					t.Errorf("clock %s, want the snapshot's %s", acct.Now(), src.Now())
				}
				got := acct.Letters()
				if len(got) != len(want) {
					t.Fatalf("%d letters, want %d", len(got), len(want))
				}
				for j, l := range got {
					if l.ID != m[want[j].ID] || l.ID == want[j].ID || l.Status != want[j].Status || len(l.Events) != len(want[j].Events) {
						t.Errorf("letter %d: %s %s with %d events, want %s's copy, %s with %d", j, l.ID, l.Status, len(l.Events), want[j].ID, want[j].Status, len(want[j].Events))
					}
					if l.Content.AssetID != m[want[j].Content.AssetID] {
						t.Errorf("letter %s names asset %s, want its copy %s", l.ID, l.Content.AssetID, m[want[j].Content.AssetID])
					}
					for k, e := range l.Events {
						if e.ID != m[want[j].Events[k].ID] {
							t.Errorf("event %s of %s, want the copy of %s", e.ID, l.ID, want[j].Events[k].ID)
						}
					}
					seen <- l.ID
				}
				// The queued copy goes on, on this account's clock.
				queued := m[ids[9]]
				acct.WaitForStatus(queued, client.StatusMailed, 7*24*time.Hour)
				if !strings.Contains(acct.PDFText(queued), "Dear Person6") {
					t.Errorf("the restored letter does not render its variables")
				}
			})
		}
	})
	close(seen)
	unique := map[string]bool{}
	for id := range seen {
		if unique[id] {
			t.Fatalf("id %s restored twice", id)
		}
		unique[id] = true
	}
	if got := src.Letters(); len(got) != len(want) || got[0].Status != want[0].Status {
		t.Errorf("the source account changed: %d letters", len(got))
	}
}

// A restore into an account with records, or whose clock is past the
// snapshot's, fails and writes nothing.
func TestRestoreRefused(t *testing.T) {
	ft := &fakeTB{TB: t}
	srv := lettershoptest.New(ft)
	src, _ := fixture(t, srv)
	snap := src.Snapshot()
	busy := srv.NewAccount()
	sendWelcome(t, srv.Service(), busy.ID, "Jane")
	if msg := fails(t, ft, func() { busy.Restore(snap) }); !strings.Contains(msg, "new account") {
		t.Errorf("failure %q", msg)
	}
	late := srv.NewAccount()
	late.Advance(time.Hour)
	if msg := fails(t, ft, func() { late.Restore(snap) }); !strings.Contains(msg, "never goes back") {
		t.Errorf("failure %q", msg)
	}
	if n := len(late.Letters()); n != 0 {
		t.Errorf("a refused restore wrote %d letters", n)
	}
	// A new account of a server whose clock started past the snapshot's
	// (a fixture taken in an earlier run): the failure says to start it
	// earlier.
	ft2 := &fakeTB{TB: t}
	later := lettershoptest.New(ft2, lettershoptest.WithStart(snap.Clock.Now.Add(time.Hour))).NewAccount()
	if msg := fails(t, ft2, func() { later.Restore(snap) }); !strings.Contains(msg, "WithStart") {
		t.Errorf("failure %q does not say to start the clock no later than the snapshot's", msg)
	}
	// Ids kept, into the store that holds them: refused whole, the
	// account's clock where it was.
	taken := srv.NewAccount()
	before := taken.Now()
	src.Advance(time.Hour)
	if _, err := srv.Service().RestoreAccount(t.Context(), taken.ID, src.Snapshot(), lettershop.RestoreOptions{KeepIDs: true}); lettershop.ErrorCode(err) != lettershop.CodeConflict {
		t.Errorf("restore of taken ids: %v, want a conflict", err)
	}
	if n := len(taken.Letters()); n != 0 || !taken.Now().Equal(before) {
		t.Errorf("a refused restore wrote %d letters and moved the clock from %s to %s", n, before, taken.Now())
	}
	// A clock past the last time a clock may show: refused naming it, with
	// nothing written; at the last time itself, taken.
	far := src.Snapshot()
	far.Clock.Now = lettershop.LastClockTime.Add(time.Millisecond)
	farAcct := srv.NewAccount()
	if _, err := srv.Service().RestoreAccount(t.Context(), farAcct.ID, far, lettershop.RestoreOptions{}); lettershop.ErrorCode(err) != lettershop.CodeInvalid || !strings.Contains(err.Error(), "clock.now") {
		t.Errorf("restore past the last clock time: %v, want invalid naming clock.now", err)
	}
	if n := len(farAcct.Letters()); n != 0 {
		t.Errorf("a restore refused for its clock wrote %d letters", n)
	}
	far.Clock.Now = lettershop.LastClockTime
	if _, err := srv.Service().RestoreAccount(t.Context(), farAcct.ID, far, lettershop.RestoreOptions{}); err != nil {
		t.Errorf("restore at the last clock time: %v", err)
	}
	b, _ := json.Marshal(snap)
	var bad snapshot.Snapshot
	if err := json.Unmarshal([]byte(strings.Replace(string(b), snapshot.Format, "other/1", 1)), &bad); err != nil {
		t.Fatal(err)
	}
	if msg := fails(t, ft, func() { srv.NewAccount().Restore(&bad) }); !strings.Contains(msg, "format") {
		t.Errorf("failure %q", msg)
	}
}

// A fixture file seeds a new server with the snapshot's ids, in the
// account of the key it was taken with.
func TestWithFixture(t *testing.T) {
	srv := lettershoptest.New(t)
	src := srv.AccountWithKey("sk_test_fixture_welcome")
	id := sendWelcome(t, srv.Service(), src.ID, "Jane")
	b, err := json.Marshal(src.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	seeded := lettershoptest.New(t, lettershoptest.WithFixture(path))
	acct := seeded.AccountWithKey("sk_test_fixture_welcome")
	if got := acct.Letter(id); got.Status != client.StatusQueued {
		t.Errorf("seeded letter %s is %s", id, got.Status)
	}
	if n := len(seeded.NewAccount().Letters()); n != 0 {
		t.Errorf("another account has %d letters", n)
	}
}

// BenchmarkRestore restores a fixture of three templates, ten letters in
// various statuses and a webhook into a new account; the baseline builds
// the same through the Service's operations, as a test without snapshots
// does. "each" restores into a store that is no storage.Restorer, one
// write per record, as a third-party store would. With
// LETTERSHOP_TEST_POSTGRES set, the same on PostgreSQL.
//
//	go test -run XXX -bench Restore -benchtime 200x ./lettershoptest
func BenchmarkRestore(b *testing.B) {
	type store struct {
		name string
		opt  lettershoptest.Option
	}
	stores := []store{{"memstore", nil}, {"memstore-each", lettershoptest.WithStore(func(testing.TB) storage.Storage {
		return oneByOne{memstore.New()}
	})}}
	if dsn := os.Getenv("LETTERSHOP_TEST_POSTGRES"); dsn != "" {
		stores = append(stores, store{"pgstore", pgtest.WithPostgres(dsn)}, store{"pgstore-each", lettershoptest.WithStore(func(t testing.TB) storage.Storage {
			return oneByOne{pgtest.Open(t, dsn)}
		})})
	}
	for _, st := range stores {
		var opts []lettershoptest.Option
		if st.opt != nil {
			opts = append(opts, st.opt)
		}
		srv := lettershoptest.New(b, opts...)
		src, _ := fixture(b, srv)
		snap := src.Snapshot()
		b.Run(st.name+"/restore", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				srv.NewAccount().Restore(snap)
			}
		})
		if st.name == "memstore" || st.name == "pgstore" {
			b.Run(st.name+"/build", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					fixture(b, srv)
				}
			})
		}
	}
}

// oneByOne is a store without the Restorer's one step: a restore writes
// into it record by record.
type oneByOne struct{ storage.Storage }

// TestResetThenRestore: one account of a fixed key, reset and given the
// fixture before each of several tests in turn, starts each with the
// fixture alone: nothing a test before made, faulted or sent is left, and
// other accounts keep theirs; reset by Reset and over HTTP in turn. With
// LETTERSHOP_TEST_POSTGRES set, the same on PostgreSQL.
func TestResetThenRestore(t *testing.T) {
	stores := map[string][]lettershoptest.Option{"memstore": nil}
	if dsn := os.Getenv("LETTERSHOP_TEST_POSTGRES"); dsn != "" {
		stores["pgstore"] = []lettershoptest.Option{pgtest.WithPostgres(dsn)}
	}
	for name, opts := range stores {
		t.Run(name, func(t *testing.T) {
			srv := lettershoptest.New(t, opts...)
			src, fixtureIDs := fixture(t, srv)
			snap := src.Snapshot()
			acct := srv.AccountWithKey("sk_test_fixed")
			var made []string
			for i := range 3 {
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					acct := acct.For(t)
					if i%2 == 0 {
						acct.Reset()
					} else if err := acct.Client().Test.ResetAccount(t.Context()); err != nil { // DELETE /_test/account
						t.Fatal(err)
					}
					if got := acct.Requests(); len(got) != 0 {
						t.Errorf("journal after the reset: %d entries, want none", len(got))
					}
					if got, err := acct.Client().Test.Faults(t.Context()); err != nil || len(got) != 0 {
						t.Errorf("faults after the reset: %v, %v; want none", got, err)
					}
					for _, id := range made {
						if _, err := acct.Client().GetLetter(t.Context(), id); err == nil {
							t.Errorf("letter %s of the test before is found", id)
						}
					}
					ids := acct.Restore(snap)
					if got := len(acct.Letters()); got != len(fixtureIDs) {
						t.Fatalf("%d letters after the restore, want the fixture's %d", got, len(fixtureIDs))
					}
					// What this test leaves for the next to find.
					acct.Fault(client.Fault{Path: "/nothing/*", Status: 503})
					acct.Force(ids[fixtureIDs[5]], lettershoptest.Status(client.StatusMailed))
					if _, err := acct.Client().GetLetter(t.Context(), ids[fixtureIDs[5]]); err != nil {
						t.Fatal(err)
					}
					if len(acct.Requests()) == 0 {
						t.Fatal("the request is in no journal: the test no longer tests that a reset empties it")
					}
					made = append(made, ids[fixtureIDs[5]], ids[fixtureIDs[6]])
				})
			}
			if got := len(src.Letters()); got != len(fixtureIDs) {
				t.Errorf("the fixture's account holds %d letters, want %d", got, len(fixtureIDs))
			}
		})
	}
}

// TestResetKeepsTheClock: a reset leaves the clock where it stands, frozen
// as it was; a snapshot older than the clock is then refused, as it would
// be without the reset, since a clock never goes back.
func TestResetKeepsTheClock(t *testing.T) {
	srv := lettershoptest.New(t)
	src, _ := fixture(t, srv)
	snap := src.Snapshot()
	acct := srv.NewAccount()
	acct.Freeze()
	acct.Advance(time.Hour)
	before := acct.Now()
	acct.Reset()
	if c := srv.Service().AccountClock(acct.ID); !c.Now.Equal(before) || !c.Frozen {
		t.Errorf("clock after the reset %+v, want %v, frozen", c, before)
	}
	_, err := srv.Service().RestoreAccount(t.Context(), acct.ID, snap, lettershop.RestoreOptions{})
	if e := (*lettershop.Error)(nil); !errors.As(err, &e) || e.Code != lettershop.CodeConflict {
		t.Errorf("restore of a snapshot older than the clock: %v, want a conflict", err)
	}
}

// WithSnapshots starts each server from a snapshot in memory, ids kept,
// as WithFixture does from a file: the servers share no records, and one
// restore fails the test when the same account is given twice.
func TestWithSnapshots(t *testing.T) {
	srv := lettershoptest.New(t)
	src := srv.AccountWithKey("sk_test_fixture_welcome")
	id := sendWelcome(t, srv.Service(), src.ID, "Jane")
	snap := src.Snapshot()
	var first *lettershoptest.Account
	for i := range 2 {
		seeded := lettershoptest.New(t, lettershoptest.WithSnapshots(snap))
		acct := seeded.AccountWithKey("sk_test_fixture_welcome")
		if got := acct.Letter(id); got.Status != client.StatusQueued {
			t.Errorf("server %d: seeded letter %s is %s", i, id, got.Status)
		}
		if i == 0 {
			acct.Force(id, lettershoptest.Status(client.StatusMailed))
			first = acct
			continue
		}
		if got := acct.Letter(id); got.Status != client.StatusQueued {
			t.Errorf("a move in one server's copy reached another's: %s", got.Status)
		}
		if got := first.Letter(id); got.Status != client.StatusMailed {
			t.Errorf("the first server's copy is %s", got.Status)
		}
	}
	ft := &fakeTB{TB: t}
	msg := fails(t, ft, func() { lettershoptest.New(ft, lettershoptest.WithSnapshots(snap, snap)) })
	if !strings.Contains(msg, "WithSnapshots, account "+src.ID) {
		t.Errorf("failure %q", msg)
	}
}

// BenchmarkSeed is a server per test started from the fixture of
// BenchmarkRestore (three templates, ten letters, a webhook) with its ids:
// from a file (WithFixture, read and checked by each New) and from the
// snapshot in memory (WithSnapshots, checked once), alternating within
// each op; NewService, so that the socket's cost does not hide theirs.
//
//	go test ./lettershoptest -run '^$' -bench Seed -benchmem -count 3
func BenchmarkSeed(b *testing.B) {
	srv := lettershoptest.New(b)
	src, _ := fixture(b, srv)
	snap := src.Snapshot()
	snap.Account = "acct_seed"
	raw, err := json.Marshal(snap)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "fixture.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var fromFile, fromSnap time.Duration
	tb := &benchTB{TB: b}
	for b.Loop() {
		t0 := time.Now()
		lettershoptest.NewService(tb, lettershoptest.WithFixture(path))
		tb.end()
		t1 := time.Now()
		lettershoptest.NewService(tb, lettershoptest.WithSnapshots(snap))
		tb.end()
		fromFile += t1.Sub(t0)
		fromSnap += time.Since(t1)
	}
	b.ReportMetric(float64(fromFile.Microseconds())/float64(b.N), "file-µs/op")
	b.ReportMetric(float64(fromSnap.Microseconds())/float64(b.N), "snapshots-µs/op")
}
