package letterpack_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/storage"
)

// filled returns a LetterDoc with every field set (lists of two, every
// Has flag true), or with every list present but empty.
func filled(empty bool) storage.LetterDoc {
	var d storage.LetterDoc
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		n++
		switch v.Kind() {
		case reflect.String:
			if n%3 == 0 {
				v.SetString("queued")
			} else {
				v.SetString("text " + string(rune('a'+n%26)) + "\x01ÿ")
			}
		case reflect.Int32:
			v.SetInt(int64(n) * -3)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Float64:
			v.SetFloat(float64(n) + 0.1)
		case reflect.Slice:
			k := 2
			if empty {
				k = 0
			}
			s := reflect.MakeSlice(v.Type(), k, k)
			for i := range k {
				fill(s.Index(i))
			}
			v.Set(s)
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				v.Set(reflect.ValueOf(time.Date(2026, 3, 2, 15, 0, n, n*1001, time.UTC)))
				return
			}
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		}
	}
	fill(reflect.ValueOf(&d).Elem())
	// Pack leaves these to the caller.
	d.Content = storage.LetterContentRef{}
	d.Snapshot.Hash, d.Snapshot.Type = "", ""
	return d
}

func packed(t *testing.T, d *storage.LetterDoc) (data, defs string) {
	t.Helper()
	p := pack.Get(letterpack.Words)
	defer p.Release()
	letterpack.Pack(p, d)
	data = p.String()
	p.Reset()
	letterpack.PackDefinitions(p, &d.Snapshot)
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
	return data, p.String()
}

func unpacked(t *testing.T, data, defs string, into *storage.LetterDoc) {
	t.Helper()
	u := pack.NewReader(data, letterpack.Words)
	letterpack.Unpack(&u, into)
	u.End()
	du := pack.NewReader(defs, letterpack.Words)
	letterpack.UnpackDefinitions(&du, &into.Snapshot)
	du.End()
	if u.Err() != nil || du.Err() != nil {
		t.Fatal(u.Err(), du.Err())
	}
}

func TestPackReadsBackAsWritten(t *testing.T) {
	// One LetterDoc to read into, reused as a store's reader reuses one.
	var got storage.LetterDoc
	for name, d := range map[string]storage.LetterDoc{
		"every field":   filled(false),
		"empty not nil": filled(true),
		"zero":          {},
		"before 1970":   {HasEvents: true, Events: []storage.LetterEvent{{CreatedAt: time.Date(1901, 1, 1, 0, 0, 0, 5, time.UTC)}}},
	} {
		t.Run(name, func(t *testing.T) {
			data, defs := packed(t, &d)
			unpacked(t, data, defs, &got)
			want := d
			// An absent list (not Has) holds nothing, whatever storage its
			// slice keeps.
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("document (-packed +unpacked):\n%s", diff)
			}
		})
	}
}

func TestUnpackReusesStorage(t *testing.T) {
	d := filled(false)
	data, defs := packed(t, &d)
	var got storage.LetterDoc
	unpacked(t, data, defs, &got)
	if allocs := testing.AllocsPerRun(100, func() { unpacked(t, data, defs, &got) }); allocs != 0 {
		t.Errorf("unpacking into a grown LetterDoc allocates %v times, want 0", allocs)
	}
}

func TestLifeComesFirst(t *testing.T) {
	d := filled(false)
	data, _ := packed(t, &d)
	u := pack.NewReader(data, letterpack.Words)
	var life storage.LetterLife
	letterpack.UnpackLife(&u, &life)
	if u.Err() != nil || life != d.Life {
		t.Errorf("life read first: %+v, %v; want %+v", life, u.Err(), d.Life)
	}
}

func TestDamagedFormFails(t *testing.T) {
	d := filled(false)
	data, _ := packed(t, &d)
	var got storage.LetterDoc
	for n := 0; n < len(data); n += 7 {
		u := pack.NewReader(data[:n], letterpack.Words)
		letterpack.Unpack(&u, &got)
		u.End()
		if u.Err() == nil {
			t.Errorf("a form cut at %d of %d bytes read without error", n, len(data))
		}
	}
}
