package lettershop

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/storage"
)

func TestLetterDocValuesRoundTrip(t *testing.T) {
	_, l := benchRecord(t)
	rec := letterRecord("acct", &l)
	// One storage.LetterDoc for every case, as a reader reuses one: a case
	// must not see what the one before it left.
	var v storage.LetterDoc
	for _, c := range []struct {
		name string
		doc  *letterDoc
	}{
		{"every field", filledDoc(false)},
		{"created", rec.Doc.(*letterDoc)},
		{"empty not nil", filledDoc(true)},
		{"every field again", filledDoc(false)},
		{"zero", &letterDoc{}},
		{"before 1970", &letterDoc{Events: []Event{{CreatedAt: time.Date(1901, 1, 1, 0, 0, 0, 5, time.UTC)}}}},
		{"empty snapshot", &letterDoc{Snapshot: contentSnapshot{Definitions: []VariableDefinition{}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !letterDocValues(c.doc, &v) {
				t.Fatal("letterDocValues reported false")
			}
			var got letterDoc
			letterDocOf(&v, &got)
			if diff := cmp.Diff(c.doc, &got, cmp.AllowUnexported(letterDoc{}, contentSnapshot{})); diff != "" {
				t.Errorf("letter document (-written +read):\n%s", diff)
			}
		})
	}
}

func TestLetterDocValuesLeaveAdditionalData(t *testing.T) {
	d := &letterDoc{Events: []Event{{TrackingEventDetails: &TrackingEventDetails{AdditionalData: map[string]any{"a": 1.0}}}}}
	var v storage.LetterDoc
	if letterDocValues(d, &v) {
		t.Error("letterDocValues took a tracking event's additional data, which the values cannot hold")
	}
}

func TestLetterDocOfSharesNothing(t *testing.T) {
	var v storage.LetterDoc
	if !letterDocValues(filledDoc(false), &v) {
		t.Fatal("letterDocValues reported false")
	}
	var d letterDoc
	letterDocOf(&v, &d)
	want := d.CloneDocument()
	// Reusing v for another letter leaves d as it was.
	letterDocValues(filledDoc(true), &v)
	v.Sender.Analysis.DpvFootnotes = append(v.Sender.Analysis.DpvFootnotes[:0], "changed")
	if diff := cmp.Diff(want, &d, cmp.AllowUnexported(letterDoc{}, contentSnapshot{})); diff != "" {
		t.Errorf("letter document changed with the values it was read from (-before +after):\n%s", diff)
	}
}

// Unpacking a kept letter allocates only the domain's own parts (what
// mapping the values allocates): the storage.LetterDoc it goes through is
// reused, and writing into one that has grown allocates nothing.
func TestKeptLetterAllocatesOnlyTheDomainsParts(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop values at random")
	}
	_, l := benchRecord(t)
	rec := letterRecord("acct", &l)
	doc := rec.Doc.(*letterDoc)
	k, ok := letterpack.Keep(doc)
	if !ok {
		t.Fatal("letterpack.Keep reported false")
	}
	var v storage.LetterDoc
	if !letterDocValues(doc, &v) {
		t.Fatal("letterDocValues reported false")
	}
	var d letterDoc
	unpacked := testing.AllocsPerRun(100, func() {
		if err := readLetterDoc(k, &d); err != nil {
			t.Fatal(err)
		}
	})
	mapped := testing.AllocsPerRun(100, func() { letterDocOf(&v, &d) })
	if unpacked != mapped {
		t.Errorf("unpacking a kept letter allocates %v times, mapping its values %v", unpacked, mapped)
	}
	rewritten := testing.AllocsPerRun(100, func() { letterDocValues(doc, &v) })
	if rewritten != 0 {
		t.Errorf("writing into reused values allocates %v times, want 0", rewritten)
	}
}

// The descriptions the lifecycle writes on many letters are among the
// words letters are packed with, each packed as a number.
func TestKeptWordsHoldDescriptions(t *testing.T) {
	for _, s := range []string{requeuedDescription, "Letter received", "Canceled at the sender's request"} {
		p := pack.Get(letterpack.Words)
		p.Str(s)
		if n := len(p.B); n > 2 {
			t.Errorf("%q packs into %d bytes: not one of letterpack.Words", s, n)
		}
		p.Release()
	}
}
