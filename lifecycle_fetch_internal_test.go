package lettershop

import (
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// A letter whose printing fetches content is held at ready, its production
// left due, whichever way a run advances it: its typed document, its
// serialized document in place, its kept form, or the letter decoded. One
// that fetches nothing is not.
func TestHeldBeforeProductionEveryWay(t *testing.T) {
	s := New(memstore.New(), WithClock(clock.NewMock()))
	defer s.Close()
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	production := time.Date(2026, 3, 3, 14, 0, 0, 0, time.UTC)
	newRecord := func(id string, snap contentSnapshot) storage.Letter {
		l := &Letter{ID: id, Status: StatusQueued, CreatedAt: start, ModifiedAt: start,
			Sender:    Party{Address: Address{AddressLine1: "1 Main St", LastLine: "Springfield, IL 62701"}},
			Recipient: Party{Address: Address{AddressLine1: "2 Oak Ave", LastLine: "Chicago, IL 60601"}},
			Options:   normalizeOptions(nil, fieldErrors{}), snapshot: snap}
		s.life.begin(l, start)
		rec := letterRecord("acct", l)
		return rec
	}
	url := "https://files.example.com/logo.png"
	for _, tc := range []struct {
		name string
		snap contentSnapshot
		held bool
	}{
		{"content at a URL", contentSnapshot{Hash: "https://files.example.com/t.html", Type: "text/html"}, true},
		{"an externalUrl variable", contentSnapshot{Hash: "h", Type: "text/html",
			Definitions: []VariableDefinition{{Name: "logo", Type: VariableTypeExternalURL}},
			Merge:       []Variable{{Name: "logo", Value: &url}}}, true},
		{"an externalUrl variable left empty", contentSnapshot{Hash: "h", Type: "text/html",
			Definitions: []VariableDefinition{{Name: "logo", Type: VariableTypeExternalURL}}}, false},
		{"content stored", contentSnapshot{Hash: "h", Type: "text/html"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecord("ltr_"+"abcdefghijklmnopqrstuvwxyz", tc.snap)
			if got := rec.Doc.(*letterDoc).Life.Fetch; got != tc.held {
				t.Fatalf("life.fetch = %v, want %v", got, tc.held)
			}
			now := start.Add(30 * 24 * time.Hour)
			encoded, err := storage.EncodeDocument(rec.Doc)
			if err != nil {
				t.Fatal(err)
			}
			ways := map[string]storage.Letter{}
			typed := rec
			typed.Doc = storage.CloneDocument(rec.Doc)
			kept := rec
			kept.Doc = letterpack.KeepDocument(rec.Doc)
			inPlace := rec
			inPlace.Doc = storage.Encoded(encoded)
			for name, r := range map[string]storage.Letter{"typed": typed, "kept": kept, "encoded": inPlace} {
				if !s.life.advanceRecord(&r, now) {
					t.Fatalf("%s: not advanced in place", name)
				}
				ways[name] = r
			}
			l, err := letterFromRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			s.life.settle(l, now)
			decoded := letterRecord("acct", l)
			want, _ := storage.EncodeDocument(decoded.Doc)
			for name, r := range ways {
				got, _ := storage.EncodeDocument(r.Doc)
				if diff := cmp.Diff(string(want), string(got)); diff != "" {
					t.Errorf("%s (-decoded +in place):\n%s", name, diff)
				}
				if r.Status != decoded.Status || !r.DueAt.Equal(decoded.DueAt) {
					t.Errorf("%s: %s due %v, decoded %s due %v", name, r.Status, r.DueAt, decoded.Status, decoded.DueAt)
				}
			}
			if tc.held {
				if decoded.Status != string(StatusReady) || !decoded.DueAt.Equal(production) {
					t.Errorf("held: %s due %v, want ready with production due at %v", decoded.Status, decoded.DueAt, production)
				}
			} else if decoded.Status == string(StatusReady) || !decoded.DueAt.IsZero() && !decoded.DueAt.After(now) {
				t.Errorf("not held: %s due %v, want past production, nothing due by %v", decoded.Status, decoded.DueAt, now)
			}
		})
	}
}

// A letter ready for a while is held as soon as its production falls due,
// and never before.
func TestHeldOnlyOnceProductionIsDue(t *testing.T) {
	s := New(memstore.New(), WithClock(clock.NewMock()))
	defer s.Close()
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	c := &postal.Course{ID: "ltr_x", Status: postal.Queued, Due: start.Add(postal.ProcessingDelay), Modified: start,
		Facts: postal.Facts{Stage: postal.Queued, Events: 1, Fetch: true}}
	s.life.advance(c, start.Add(time.Hour))
	production := time.Date(2026, 3, 3, 14, 0, 0, 0, time.UTC)
	if c.Status != postal.Ready || !c.Due.Equal(production) || len(c.Added) != 1 {
		t.Fatalf("an hour on: %s due %v, %d events; want ready, due at %v", c.Status, c.Due, len(c.Added), production)
	}
	s.life.advance(c, production.Add(-time.Nanosecond))
	s.life.advance(c, production.Add(72*time.Hour))
	if c.Status != postal.Ready || !c.Due.Equal(production) || len(c.Added) != 1 {
		t.Fatalf("past production: %s due %v, %d events; want held at ready", c.Status, c.Due, len(c.Added))
	}
}
