package letterpack_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/storage"
)

// valuer is a letter document that gives its values: a service's, as
// storage.LetterValuer asks.
type valuer struct {
	storage.Encoded
	d  storage.LetterDoc
	ok bool
}

func (v *valuer) LetterValues(d *storage.LetterDoc) bool {
	d.Reset()
	*d = v.d
	return v.ok
}

func (v *valuer) LetterEncoder() storage.LetterEncoder { return encoder{} }

// encoder encodes values as fmt prints them.
type encoder struct{}

func (encoder) EncodeLetter(d *storage.LetterDoc) ([]byte, error) {
	return []byte(fmt.Sprintf("%v", *d)), nil
}

// content is what a kept letter's shared part holds of a document.
func content(d storage.LetterDoc) storage.LetterDoc {
	d.Content = storage.LetterContentRef{Type: "asset", AssetID: "ast_1", VersionID: "ver_1"}
	d.Snapshot.Hash, d.Snapshot.Type = "abc", "html"
	return d
}

func kept(t *testing.T, d storage.LetterDoc) *letterpack.Kept {
	t.Helper()
	k, ok := letterpack.Keep(&valuer{d: d, ok: true})
	if !ok {
		t.Fatal("not kept")
	}
	return k
}

var valuesEqual = cmpopts.EquateEmpty()

// A kept letter reads back the values it was made from, encodes them with
// the document's encoder, and is its own copy; a document whose values
// do not fit is copied instead.
func TestKeptReadsBackAsMade(t *testing.T) {
	for name, d := range map[string]storage.LetterDoc{
		"every field":   content(filled(false)),
		"empty not nil": content(filled(true)),
		"zero":          {},
		"before 1970":   {HasEvents: true, Events: []storage.LetterEvent{{CreatedAt: time.Date(1901, 1, 1, 0, 0, 0, 5, time.UTC)}}},
	} {
		t.Run(name, func(t *testing.T) {
			k := kept(t, d)
			var got storage.LetterDoc
			got.Events = make([]storage.LetterEvent, 0, 1) // storage to reuse
			if err := k.ReadLetter(&got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(d, got, valuesEqual); diff != "" {
				t.Errorf("read back (-made +read):\n%s", diff)
			}
			want, _ := encoder{}.EncodeLetter(&got)
			if enc, err := k.EncodeDocument(); err != nil || string(enc) != string(want) {
				t.Errorf("EncodeDocument = %s, %v; want %s", enc, err, want)
			}
			if k.CloneDocument() != storage.Document(k) || k.KeepDocument() != storage.Document(k) {
				t.Error("a kept letter is not its own copy")
			}
			if letterpack.KeepDocument(k) != storage.Document(k) {
				t.Error("a kept letter kept again is not itself")
			}
		})
	}
	var local storage.LetterDoc
	local.HasEvents = true
	local.Events = []storage.LetterEvent{{CreatedAt: time.Date(2026, 3, 2, 0, 0, 0, 0, time.FixedZone("X", 3600))}}
	for name, v := range map[string]*valuer{
		"values refused":   {d: filled(false)},
		"time outside UTC": {d: local, ok: true},
	} {
		if _, ok := letterpack.Keep(v); ok {
			t.Errorf("%s: kept", name)
		}
		if got := letterpack.KeepDocument(v); got == storage.Document(v) {
			t.Errorf("%s: KeepDocument returned the document itself, not a copy", name)
		} else if _, ok := got.(storage.Encoded); !ok {
			t.Errorf("%s: KeepDocument returned %T, want the document's copy", name, got)
		}
	}
}

// keeper is a document with a kept form of its own: a keptForm of a copy
// of its bytes.
type keeper struct{ storage.Encoded }

// keptForm is what a keeper keeps.
type keptForm struct{ storage.Encoded }

func (k keeper) KeepDocument() storage.Document {
	return keptForm{append(storage.Encoded{}, k.Encoded...)}
}

// A document given up (OwnDocument) is kept in the form KeepDocument keeps
// one lent in, a letter packed or a Keeper's own; one with no such form
// is kept as it is, where KeepDocument copies it.
func TestOwnDocument(t *testing.T) {
	letter := &valuer{Encoded: storage.Encoded("{}"), d: content(filled(false)), ok: true}
	for name, keep := range map[string]func(storage.Document) storage.Document{
		"KeepDocument": letterpack.KeepDocument, "OwnDocument": letterpack.OwnDocument,
	} {
		if _, ok := keep(letter).(*letterpack.Kept); !ok {
			t.Errorf("%s of a letter: %T, want it packed", name, keep(letter))
		}
		if got, ok := keep(keeper{storage.Encoded("kept")}).(keptForm); !ok || string(got.Encoded) != "kept" {
			t.Errorf("%s of a Keeper: %#v, want its kept form", name, got)
		}
		if got := keep(nil); got != nil {
			t.Errorf("%s of nil: %#v", name, got)
		}
	}
	refused := &valuer{Encoded: storage.Encoded("refused"), d: filled(false)}
	if got := letterpack.OwnDocument(refused); got != storage.Document(refused) {
		t.Errorf("OwnDocument of a letter that does not fit: %#v, not the document itself", got)
	}
	if got, ok := letterpack.KeepDocument(refused).(storage.Encoded); !ok || &got[0] == &refused.Encoded[0] {
		t.Errorf("KeepDocument of a letter that does not fit: %#v, want a copy", got)
	}
	plain := storage.Encoded("plain")
	if got, ok := letterpack.OwnDocument(plain).(storage.Encoded); !ok || &got[0] != &plain[0] {
		t.Errorf("OwnDocument of a plain document: %#v, not the document itself", got)
	}
	if got, ok := letterpack.KeepDocument(plain).(storage.Encoded); !ok || string(got) != "plain" || &got[0] == &plain[0] {
		t.Errorf("KeepDocument of a plain document: %#v, want a copy", got)
	}
}

// A kept letter is a string and a handle on what letters of one asset
// version share: 24 bytes a letter, however large the letter.
func TestKeptHeader(t *testing.T) {
	if n := unsafe.Sizeof(letterpack.Kept{}); n != 24 {
		t.Errorf("a kept letter's header is %d bytes, want 24", n)
	}
	a, b := kept(t, content(filled(false))), kept(t, content(filled(false)))
	if letterpack.Data(a) == "" || letterpack.Definitions(a) == "" {
		t.Fatal("nothing packed")
	}
	if unsafe.StringData(letterpack.Definitions(a)) != unsafe.StringData(letterpack.Definitions(b)) {
		t.Error("letters of one version do not share their definitions")
	}
}

func TestKeptTruncatedIsAnError(t *testing.T) {
	k := kept(t, content(filled(false)))
	for n := range len(letterpack.Data(k)) {
		var d storage.LetterDoc
		if err := letterpack.Cut(k, n).ReadLetter(&d); err == nil {
			t.Fatalf("reading the first %d of %d bytes: no error", n, len(letterpack.Data(k)))
		}
	}
}

// The part letters of one asset version share is checked as the letter's
// own part is: cut short or with bytes left over, it is an error.
func TestKeptSharedPartChecked(t *testing.T) {
	k := kept(t, content(filled(false)))
	defs := letterpack.Definitions(k)
	for n := range len(defs) + 1 {
		cut := defs[:n]
		if n == len(defs) {
			cut = defs + "x"
		}
		var d storage.LetterDoc
		if err := letterpack.WithDefinitions(k, cut).ReadLetter(&d); err == nil {
			t.Errorf("reading definitions %q (packed %q): no error", cut, defs)
		}
	}
}

// ids appends "id-" and the event's number.
type ids struct{ base int }

func (s ids) AppendEventID(dst []byte, i int) []byte {
	return strconv.AppendInt(append(dst, "id-"...), int64(s.base+i), 10)
}

// A step makes a new kept letter with the new life and the events added
// after the others, their ids appended in place; the old one is as it was.
func TestKeptStep(t *testing.T) {
	d := content(filled(false))
	k := kept(t, d)
	var life storage.LetterLife
	if !k.LetterLife(&life) || life != d.Life {
		t.Fatalf("LetterLife = %+v, want %+v", life, d.Life)
	}
	at := time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)
	newLife := storage.LetterLife{Stage: "delivered", Events: 9, Outcome: "delivered", From: d.Life.To}
	added := []storage.LetterEvent{
		{CreatedAt: at, ModifiedAt: at, Timestamp: at, Type: "status", Status: "mailed", Description: "Letter handed to the postal service"},
		{ID: "ignored", CreatedAt: at, ModifiedAt: at, Timestamp: at, Type: "tracking", Status: "inTransit",
			HasTracking: true, Facility: "NDC", FacilityZip: "60601", ActionRequired: true, Location: "Chicago"},
	}
	doc, ok := k.StepLetter(&newLife, added, ids{base: 7})
	if !ok {
		t.Fatal("not stepped")
	}
	if added[0].ID != "id-7" || added[1].ID != "id-8" {
		t.Errorf("ids set %q %q", added[0].ID, added[1].ID)
	}
	want := d
	want.Life = newLife
	want.Events = append(append([]storage.LetterEvent{}, d.Events...), added...)
	var got storage.LetterDoc
	if err := doc.(*letterpack.Kept).ReadLetter(&got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, valuesEqual); diff != "" {
		t.Errorf("stepped (-want +got):\n%s", diff)
	}
	var old storage.LetterDoc
	if err := k.ReadLetter(&old); err != nil || !cmp.Equal(d, old, valuesEqual) {
		t.Errorf("the letter stepped from changed: %v", err)
	}
	if same, ok := k.StepLetter(&newLife, nil, ids{}); !ok || same != storage.Document(k) {
		t.Error("a step adding no event made a new letter")
	}
	outside := added[:1:1]
	outside[0].CreatedAt = at.In(time.FixedZone("X", 3600))
	if _, ok := k.StepLetter(&newLife, outside, ids{}); ok {
		t.Error("stepped with a time outside UTC")
	}
}

// A step adds at most 16 events in place: 16 are added, 17 are refused
// (the caller steps the decoded letter instead), the letter unchanged.
func TestKeptStepBound(t *testing.T) {
	d := content(filled(false))
	k := kept(t, d)
	at := time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)
	newLife := d.Life
	newLife.Events += 17
	for _, n := range []int{16, 17} {
		added := make([]storage.LetterEvent, n)
		for i := range added {
			added[i] = storage.LetterEvent{CreatedAt: at, ModifiedAt: at, Timestamp: at, Type: "tracking", Status: "inTransit"}
		}
		doc, ok := k.StepLetter(&newLife, added, ids{})
		if ok != (n == 16) {
			t.Fatalf("a step of %d events: stepped %v", n, ok)
		}
		if !ok {
			continue
		}
		var got storage.LetterDoc
		if err := doc.(*letterpack.Kept).ReadLetter(&got); err != nil || len(got.Events) != len(d.Events)+n {
			t.Errorf("a step of %d events: %d events, %v", n, len(got.Events), err)
		}
	}
	var old storage.LetterDoc
	if err := k.ReadLetter(&old); err != nil || !cmp.Equal(d, old, valuesEqual) {
		t.Errorf("the letter stepped from changed: %v", err)
	}
}
