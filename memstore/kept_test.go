package memstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// valuer is a letter document that gives its values
// (storage.LetterValuer), as the service's does.
type valuer struct {
	d  storage.LetterDoc
	ok bool
}

func (v *valuer) CloneDocument() storage.Document { c := *v; return &c }
func (v *valuer) EncodeDocument() ([]byte, error) { return []byte("valuer"), nil }
func (v *valuer) LetterValues(d *storage.LetterDoc) bool {
	d.Reset()
	d.Life, d.Sender.AddressLine1, d.HasEvents, d.Events = v.d.Life, v.d.Sender.AddressLine1, v.d.HasEvents, v.d.Events
	return v.ok
}
func (v *valuer) LetterEncoder() storage.LetterEncoder { return lineEncoder{} }

// lineEncoder encodes a letter's values as its sender's first line.
type lineEncoder struct{}

func (lineEncoder) EncodeLetter(d *storage.LetterDoc) ([]byte, error) {
	return fmt.Appendf(nil, "%s, %d events", d.Sender.AddressLine1, len(d.Events)), nil
}

// ids appends "evt_" and the number of the event.
type ids struct{}

func (ids) AppendEventID(dst []byte, i int) []byte { return fmt.Appendf(dst, "evt_%d", i) }

// The store keeps a letter document that gives its values in a form of
// its own, which reads back as those values, encodes through the
// document's encoder, and takes a lifecycle step; a document whose values
// do not fit is kept as its copy.
func TestLetterValuesKeptInTheStoresForm(t *testing.T) {
	s := memstore.New()
	at := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	doc := &valuer{ok: true, d: storage.LetterDoc{
		Life:   storage.LetterLife{Stage: "queued", Events: 1},
		Sender: storage.LetterParty{AddressLine1: "1 Main St"}, HasEvents: true,
		Events: []storage.LetterEvent{{ID: "evt_a", CreatedAt: at, ModifiedAt: at, Timestamp: at, Type: "status", Status: "queued"}},
	}}
	l := storage.Letter{ID: "ltr_1", Account: "a", Status: "queued", CreatedAt: at, ModifiedAt: at, Doc: doc}
	if _, err := s.CreateLetter(t.Context(), l, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetLetter(t.Context(), "a", "ltr_1")
	if err != nil {
		t.Fatal(err)
	}
	k, ok := got.Doc.(interface {
		storage.LetterReader
		storage.LetterStepper
	})
	if !ok {
		t.Fatalf("kept as %T, not in a form of the store's own", got.Doc)
	}
	var v storage.LetterDoc
	if err := k.ReadLetter(&v); err != nil {
		t.Fatal(err)
	}
	if v.Sender.AddressLine1 != "1 Main St" || len(v.Events) != 1 || v.Events[0].ID != "evt_a" || v.Life.Stage != "queued" {
		t.Errorf("read back %+v", v)
	}
	if enc, err := k.EncodeDocument(); err != nil || string(enc) != "1 Main St, 1 events" {
		t.Errorf("EncodeDocument = %q, %v", enc, err)
	}
	life := storage.LetterLife{Stage: "mailed", Events: 2}
	added := []storage.LetterEvent{{CreatedAt: at, ModifiedAt: at, Timestamp: at, Type: "status", Status: "mailed"}}
	stepped, ok := k.StepLetter(&life, added, ids{})
	if !ok || added[0].ID != "evt_0" {
		t.Fatalf("step: %v, id %q", ok, added[0].ID)
	}
	got.Doc = stepped
	if _, err := s.UpdateLetter(t.Context(), got, nil); err != nil {
		t.Fatal(err)
	}
	again, err := s.GetLetter(t.Context(), "a", "ltr_1")
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Doc.(storage.LetterReader).ReadLetter(&v); err != nil {
		t.Fatal(err)
	}
	if v.Life.Stage != "mailed" || len(v.Events) != 2 || v.Events[1].ID != "evt_0" {
		t.Errorf("stepped and stored, read back %+v", v)
	}

	refused := &valuer{d: doc.d}
	l.ID, l.Doc = "ltr_2", refused
	if _, err := s.CreateLetter(t.Context(), l, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetLetter(t.Context(), "a", "ltr_2"); err != nil {
		t.Fatal(err)
	} else if c, ok := got.Doc.(*valuer); !ok || c == refused {
		t.Errorf("a document whose values do not fit kept as %T (the caller's own: %v)", got.Doc, c == refused)
	}
}
