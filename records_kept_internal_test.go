package lettershop

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/internal/letterpack"
)

// fill sets every field v reaches, recursively, so a field the kept form
// forgets shows as a difference. With empty, pointers stay nil and slices
// are empty but not nil, the other edge of what the form must tell apart.
type filler struct {
	n     int
	empty bool
}

func (f *filler) fill(v reflect.Value) {
	f.n++
	switch v.Kind() {
	case reflect.String:
		if f.n%3 == 0 {
			v.SetString("queued") // a common word, packed as a number
		} else {
			v.SetString(fmt.Sprintf("text %d: ÿ\x01\"", f.n))
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n) * -3)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(float64(f.n) + 0.1)
	case reflect.Pointer:
		if f.empty {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		n := 2
		if f.empty {
			n = 0
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		// additionalData: decoded JSON, which the kept form leaves typed.
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 2, 15, 0, f.n, f.n*1001, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				f.fill(v.Field(i))
			}
		}
	default:
		panic("fill: no case for " + v.Kind().String())
	}
}

func filledDoc(empty bool) *letterDoc {
	var d letterDoc
	(&filler{empty: empty}).fill(reflect.ValueOf(&d).Elem())
	return &d
}

// A letter document a store keeps packed (package letterpack, through
// storage.LetterValuer) reads back as it was made, and encodes as it did,
// through the encoder the kept form holds.
func TestKeptLetterReadsBackAsMade(t *testing.T) {
	// A letter as the Service makes it, mailed, with tracking events.
	_, l := benchRecord(t)
	rec := letterRecord("acct", &l)
	created := rec.Doc.(*letterDoc)
	msTimes := created.CloneDocument().(*letterDoc)
	for i := range msTimes.Events {
		msTimes.Events[i].ModifiedAt = msTimes.Events[i].CreatedAt.Add(3 * time.Millisecond)
		msTimes.Events[i].Timestamp = time.Time{}
	}
	for name, d := range map[string]*letterDoc{
		"created":        created,
		"event times":    msTimes,
		"every field":    filledDoc(false),
		"empty not nil":  filledDoc(true),
		"zero":           {},
		"before 1970":    {Events: []Event{{CreatedAt: time.Date(1901, 1, 1, 0, 0, 0, 5, time.UTC)}}},
		"empty snapshot": {Snapshot: contentSnapshot{Definitions: []VariableDefinition{}}},
	} {
		t.Run(name, func(t *testing.T) {
			kept, ok := letterpack.KeepDocument(d).(*letterpack.Kept)
			if !ok {
				t.Fatalf("KeepDocument returned %T, want *letterpack.Kept", letterpack.KeepDocument(d))
			}
			var got letterDoc
			if err := readLetterDoc(kept, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(d, &got); diff != "" {
				t.Errorf("read back document differs (-made +read):\n%s", diff)
			}
			want, _ := d.EncodeDocument()
			enc, err := kept.EncodeDocument()
			if err != nil || string(enc) != string(want) {
				t.Errorf("EncodeDocument = %s, %v; want %s", enc, err, want)
			}
		})
	}
}

// A document holding what the values do not (a tracking event's
// additional data) or the packed form does not (a time outside UTC) is
// kept as a deep copy of itself.
func TestKeptLetterOnlyWhatItHolds(t *testing.T) {
	for name, change := range map[string]func(d *letterDoc){
		"additional data": func(d *letterDoc) {
			d.Events[0].TrackingEventDetails.AdditionalData = map[string]any{"n": 1}
		},
		"time outside UTC": func(d *letterDoc) {
			d.Events[1].Timestamp = d.Events[1].Timestamp.In(time.FixedZone("X", 3600))
		},
	} {
		t.Run(name, func(t *testing.T) {
			d := filledDoc(false)
			change(d)
			got, ok := letterpack.KeepDocument(d).(*letterDoc)
			if !ok {
				t.Fatalf("KeepDocument returned %T, want a copy of the *letterDoc", letterpack.KeepDocument(d))
			}
			if got == d {
				t.Fatalf("KeepDocument returned the document itself, not a copy")
			}
			if diff := cmp.Diff(d, got); diff != "" {
				t.Errorf("copy differs:\n%s", diff)
			}
		})
	}
}

// change sets every value v reaches in place, following pointers, slices
// and maps without replacing them: what a copy shares with its original
// then shows in the original.
func change(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("changed")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() && v.Elem().CanSet() {
			change(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			change(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		v.SetMapIndex(reflect.ValueOf("changed"), reflect.ValueOf(any(1.0)))
		for _, k := range v.MapKeys() {
			if m, ok := v.MapIndex(k).Interface().(map[string]any); ok {
				change(reflect.ValueOf(m))
			}
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Time{}))
			return
		}
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				change(v.Field(i))
			}
		}
	}
}

// A letter document's copy is equal to it and shares nothing with it, a
// tracking event's additional data included.
func TestLetterDocCloneSharesNothing(t *testing.T) {
	for _, empty := range []bool{false, true} {
		d := filledDoc(empty)
		if !empty {
			d.Events[0].TrackingEventDetails.AdditionalData = map[string]any{"n": 1.0, "inner": map[string]any{"a": "b"}}
		}
		before, _ := d.EncodeDocument()
		c := d.CloneDocument().(*letterDoc)
		if diff := cmp.Diff(d, c); diff != "" {
			t.Fatalf("copy differs (-original +copy):\n%s", diff)
		}
		change(reflect.ValueOf(c).Elem())
		if after, _ := d.EncodeDocument(); string(after) != string(before) {
			t.Errorf("changing the copy changed the original:\n%s\n%s", before, after)
		}
	}
}
