package lettershop

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/internal/duerun"
	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
	"github.com/lettershop/lettershop/testclock"
)

// benchRecord is a stored letter, mailed, whose next tracking step is due.
func benchRecord(tb testing.TB) (*Service, Letter) {
	s := New(memstore.New(), WithClock(clock.NewMock()))
	tb.Cleanup(func() { s.Close() })
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	l := &Letter{ID: "ltr_01kjqh0cc0abyzr1s1gch2evrn", Status: StatusQueued, CreatedAt: now, ModifiedAt: now,
		Sender:    Party{Organization: "Acme Corp", Address: Address{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}, AddressComponents: &AddressComponents{CassType: "none"}},
		Recipient: Party{Individual: &Individual{FullName: "Jane Doe", FirstName: "Jane", LastName: "Doe"}, Address: Address{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}, AddressComponents: &AddressComponents{CassType: "none"}},
		Options:   normalizeOptions(nil, fieldErrors{}),
	}
	s.life.begin(l, now)
	s.life.settle(l, now.Add(72*time.Hour))
	return s, *l
}

func BenchmarkAdvanceRecord(b *testing.B) {
	s, l := benchRecord(b)
	rec := letterRecord("acct", &l)
	now := l.dueAt
	b.Run("in place", func(b *testing.B) {
		for b.Loop() {
			r := rec
			if !s.life.advanceRecord(&r, now) {
				b.Fatal("layout not recognised")
			}
		}
	})
	b.Run("decoded", func(b *testing.B) {
		for b.Loop() {
			l, _ := letterFromRecord(rec)
			s.life.settle(l, now)
			letterRecord("acct", l)
		}
	})
}

// TestLetterDocLayout guards what the in-place run relies on: the stored
// document starts with the life document and ends with the events.
func TestLetterDocLayout(t *testing.T) {
	typ := reflect.TypeFor[letterDoc]()
	first, last := typ.Field(0), typ.Field(typ.NumField()-1)
	if first.Name != "Life" || first.Tag.Get("json") != "life" {
		t.Errorf("first field of letterDoc is %s %q, want Life \"life\"", first.Name, first.Tag.Get("json"))
	}
	if last.Name != "Events" || last.Tag.Get("json") != "events" {
		t.Errorf("last field of letterDoc is %s %q, want Events \"events\" (no omitempty)", last.Name, last.Tag.Get("json"))
	}
}

// TestAdvanceRecordMatchesDecoded checks the in-place run against decoding
// the letter, taking its steps and encoding it again: the same bytes, for
// letters of every kind, one step at a time and many at once.
func TestAdvanceRecordMatchesDecoded(t *testing.T) {
	s := New(memstore.New(), WithClock(clock.NewMock()))
	defer s.Close()
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	party := func(line string, nad string) Party {
		return Party{Address: Address{AddressLine1: "1 Main St", LastLine: line}, NonAddressData: nad, AddressComponents: &AddressComponents{CassType: "none"}}
	}
	letters := []*Letter{
		{Sender: party("Springfield, IL 62701", ""), Recipient: party("Chicago, IL 60601", "")},
		{Sender: party("New York NY 10001", ""), Recipient: party("San Francisco, CA 94103", "reRouted")},
		{Sender: party("Chicago, IL 60601", ""), Recipient: party(`Quote "City", IL 60614`, "returnedToSender"), SendDate: "2026-03-10"},
		{Sender: party("", ""), Recipient: party("Nowhere {x}", "")},
	}
	for i, l := range letters {
		l.ID = "ltr_" + strings.Repeat(string(rune('a'+i)), 26)
		l.Status, l.CreatedAt, l.ModifiedAt = StatusQueued, start, start
		l.Options = normalizeOptions(nil, fieldErrors{})
		s.life.begin(l, start)
	}
	compare := func(t *testing.T, rec storage.Letter, now time.Time) storage.Letter {
		t.Helper()
		fast := rec
		fast.Doc = storage.CloneDocument(rec.Doc)
		if !s.life.advanceRecord(&fast, now) {
			t.Fatalf("%s: typed document not advanced", rec.ID)
		}
		encoded, err := storage.EncodeDocument(rec.Doc)
		if err != nil {
			t.Fatal(err)
		}
		fastEncoded := rec
		fastEncoded.Doc = storage.Encoded(encoded)
		if !s.life.advanceRecord(&fastEncoded, now) {
			t.Fatalf("%s: layout not recognised", rec.ID)
		}
		kept := rec
		kept.Doc = letterpack.KeepDocument(rec.Doc)
		before, ok := kept.Doc.(storage.LetterStepper)
		if !ok {
			t.Fatalf("%s: kept as %T", rec.ID, kept.Doc)
		}
		if !s.life.steps.Kept(&kept, before, now) {
			t.Fatalf("%s: kept form not advanced in place", rec.ID)
		}
		if got, _ := storage.EncodeDocument(before); string(got) != string(encoded) {
			t.Fatalf("%s: the kept form advanced from changed", rec.ID)
		}
		l, err := letterFromRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		s.life.settle(l, now)
		slow := letterRecord(rec.Account, l)
		slowData, _ := storage.EncodeDocument(slow.Doc)
		fastData, _ := storage.EncodeDocument(fast.Doc)
		if diff := cmp.Diff(string(slowData), string(fastData)); diff != "" {
			t.Fatalf("%s at %v: typed document (-decoded +in place):\n%s", rec.ID, now, diff)
		}
		if diff := cmp.Diff(string(slowData), string(fastEncoded.Doc.(storage.Encoded))); diff != "" {
			t.Fatalf("%s at %v: encoded document (-decoded +in place):\n%s", rec.ID, now, diff)
		}
		if fastEncoded.Status != slow.Status || !fastEncoded.DueAt.Equal(slow.DueAt) || !fastEncoded.ModifiedAt.Equal(slow.ModifiedAt) {
			t.Fatalf("%s at %v: encoded in place %s %v %v, decoded %s %v %v", rec.ID, now,
				fastEncoded.Status, fastEncoded.DueAt, fastEncoded.ModifiedAt, slow.Status, slow.DueAt, slow.ModifiedAt)
		}
		keptData, err := storage.EncodeDocument(kept.Doc)
		if err != nil {
			t.Fatalf("%s at %v: the kept form made in place does not unpack: %v", rec.ID, now, err)
		}
		if diff := cmp.Diff(string(slowData), string(keptData)); diff != "" {
			t.Fatalf("%s at %v: kept document (-decoded +in place):\n%s", rec.ID, now, diff)
		}
		if kept.Status != slow.Status || !kept.DueAt.Equal(slow.DueAt) || !kept.ModifiedAt.Equal(slow.ModifiedAt) {
			t.Fatalf("%s at %v: kept in place %s %v %v, decoded %s %v %v", rec.ID, now,
				kept.Status, kept.DueAt, kept.ModifiedAt, slow.Status, slow.DueAt, slow.ModifiedAt)
		}
		if diff := cmp.Diff(fast.Notices, kept.Notices); diff != "" {
			t.Fatalf("%s at %v: notices (-typed +kept):\n%s", rec.ID, now, diff)
		}
		if fast.Status != slow.Status || !fast.DueAt.Equal(slow.DueAt) || !fast.ModifiedAt.Equal(slow.ModifiedAt) {
			t.Fatalf("%s at %v: in place %s %v %v, decoded %s %v %v", rec.ID, now,
				fast.Status, fast.DueAt, fast.ModifiedAt, slow.Status, slow.DueAt, slow.ModifiedAt)
		}
		return fast
	}
	for _, l := range letters {
		rec := letterRecord("acct", l)
		compare(t, rec, start.Add(30*24*time.Hour))
		steps := 0
		for !rec.DueAt.IsZero() {
			rec = compare(t, rec, rec.DueAt)
			steps++
		}
		if steps < 7 {
			t.Errorf("%s: %d steps, want at least 7", l.ID, steps)
		}
	}
}

func TestAdvanceRecordFallsBack(t *testing.T) {
	s := New(memstore.New(), WithClock(clock.NewMock()))
	defer s.Close()
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	for name, data := range map[string]string{
		"no life first":        `{"sender":{},"life":{"stage":"queued"},"events":[]}`,
		"life not an object":   `{"life":"queued","events":[]}`,
		"life not closed":      `{"life":{"stage":"queued","events":[]}`,
		"events not last":      `{"life":{"stage":"queued"},"events":[],"x":1}`,
		"nothing after life":   `{"life":{"stage":"queued"}}`,
		"life of another kind": `{"life":{"stage":7},"events":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := storage.Letter{ID: "ltr_x", Status: "queued", DueAt: now, Doc: storage.Encoded(data)}
			if s.life.advanceRecord(&r, now) {
				t.Fatalf("advanced %s", data)
			}
			if string(r.Doc.(storage.Encoded)) != data || r.Status != "queued" || !r.DueAt.Equal(now) {
				t.Errorf("changed the record: %+v", r)
			}
		})
	}
	// An empty events array takes the first event without a comma.
	r := storage.Letter{ID: "ltr_x", Status: "queued", DueAt: now, Doc: storage.Encoded(`{"life":{"stage":"queued","events":0},"sender":{},"events":[]}`)}
	if !s.life.advanceRecord(&r, now) {
		t.Fatal("not advanced")
	}
	var doc letterDoc
	if err := decodeDoc(r.Doc.(storage.Encoded), &doc); err != nil || len(doc.Events) != 1 || doc.Events[0].Status != "ready" || doc.Life.Events != 1 {
		t.Errorf("after one step: %v, %s", err, r.Doc)
	}
}

// TestRunTakesEveryBatch checks that one run moves every letter due,
// however many batches they fill: exactly one, and one letter more.
func TestRunTakesEveryBatch(t *testing.T) {
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	for _, n := range []int{duerun.Batch, duerun.Batch + 1} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			mc := clock.NewMock()
			mc.Set(start)
			s := New(st, WithClock(mc))
			t.Cleanup(func() { s.Close() })
			for i := range n {
				l := &Letter{ID: fmt.Sprintf("ltr_%026d", i), Status: StatusQueued, CreatedAt: start, ModifiedAt: start,
					Options: normalizeOptions(nil, fieldErrors{})}
				s.life.begin(l, start)
				rec := letterRecord("acct", l)
				if _, err := st.CreateLetter(ctx, rec, nil); err != nil {
					t.Fatal(err)
				}
			}
			mc.Add(postal.ProcessingDelay)
			if got, err := s.RunDue(ctx); err != nil || got != n {
				t.Fatalf("RunDue = %d, %v; want %d", got, err, n)
			}
			if got, err := s.RunDue(ctx); err != nil || got != 0 {
				t.Errorf("RunDue again = %d, %v; want 0", got, err)
			}
		})
	}
}

// A run hands out letters by the store's clocks. When another server moved
// an account's clock since this one read the clocks, the store may hand
// out a letter not yet due on this server's reading: the run writes it
// back unchanged, reads the clocks again and takes it at the account's
// time; and a run that finds nothing but such letters, even after reading
// the clocks again, ends.
func TestRunReadsTheClocksAgain(t *testing.T) {
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	ctx := context.Background()
	st := memstore.New()
	tc := testclock.New(start)
	s := New(st, WithClock(tc))
	t.Cleanup(func() { s.Close() })
	l := &Letter{ID: "ltr_" + strings.Repeat("a", 26), Status: StatusQueued, CreatedAt: start, ModifiedAt: start,
		Options: normalizeOptions(nil, fieldErrors{})}
	s.life.begin(l, start)
	rec := letterRecord("acct", l)
	if _, err := st.CreateLetter(ctx, rec, nil); err != nil {
		t.Fatal(err)
	}
	// Another server moves the account's clock a day on; this one has not
	// read it.
	if _, err := st.PutAccountClock(ctx, storage.AccountClock{Account: "acct", At: start.Add(24 * time.Hour), Anchor: start}); err != nil {
		t.Fatal(err)
	}
	if s.clocks.Apart() {
		t.Fatal("the Service read the clock already")
	}
	n, err := s.life.RunServer(ctx)
	if err != nil || n != 1 {
		t.Fatalf("runServer = %d, %v; want the letter moved, once the clocks were read again", n, err)
	}
	got, err := st.GetLetter(ctx, "acct", l.ID)
	if err != nil {
		t.Fatal(err)
	}
	// A day on: ready, and in production at 14:00 the next day.
	if got.Status != string(StatusInProduction) {
		t.Errorf("stored %s, want inProduction", got.Status)
	}

	// A store whose clocks this Service can never agree with: the run
	// writes the letter back and ends.
	other := &Letter{ID: "ltr_" + strings.Repeat("b", 26), Status: StatusQueued, CreatedAt: start, ModifiedAt: start,
		Options: normalizeOptions(nil, fieldErrors{})}
	s.life.begin(other, start)
	rec = letterRecord("acct_b", other)
	stale := &staleClocks{Store: st}
	s2 := New(stale, WithClock(tc))
	t.Cleanup(func() { s2.Close() })
	if _, err := stale.CreateLetter(ctx, rec, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutAccountClock(ctx, storage.AccountClock{Account: "acct_b", At: start.Add(24 * time.Hour), Anchor: start}); err != nil {
		t.Fatal(err)
	}
	if n, err := s2.life.RunServer(ctx); err != nil || n != 0 {
		t.Errorf("runServer on clocks it cannot read = %d, %v; want 0, and an end", n, err)
	}
	if got, _ := st.GetLetter(ctx, "acct_b", other.ID); got.Status != string(StatusQueued) || got.Revision != 3 {
		t.Errorf("stored %s at revision %d; want queued, written back once per batch (revision 3)", got.Status, got.Revision)
	}
}

// staleClocks is a store that hides every clock put: a Service over it
// never reads one.
type staleClocks struct{ *memstore.Store }

func (staleClocks) ClockStamp(context.Context) (int64, error) { return 0, nil }
