package pack_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/storage"
)

var words = pack.NewWords("queued", "delivered")

// TestRoundTrip: every value written reads back the same, in order, and
// the whole form is read.
func TestRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 2, 15, 0, 1, 2_000_000, time.UTC)
	odd := time.Date(2026, 3, 2, 15, 0, 1, 3, time.UTC)
	w := pack.Get(words)
	defer w.Release()
	w.Uvarint(math.MaxUint64)
	w.Varint(-12345)
	w.Byte(0xfe)
	w.Bool(true)
	w.Str("queued")
	w.Str("not a word")
	w.Str("")
	w.Count(0, true)
	w.Count(0, false)
	w.Count(2, false)
	w.Str("a")
	w.Str("delivered")
	w.Float(-1.5)
	w.Time(at)
	w.Time(odd)
	w.Byte(pack.Flags(true, false, true))
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	r := pack.NewReader(w.String(), words)
	if v := r.Uvarint(); v != math.MaxUint64 {
		t.Errorf("Uvarint = %d", v)
	}
	if v := r.Varint(); v != -12345 {
		t.Errorf("Varint = %d", v)
	}
	if v := r.Byte(); v != 0xfe {
		t.Errorf("Byte = %x", v)
	}
	if !r.Bool() {
		t.Error("Bool = false")
	}
	for _, want := range []string{"queued", "not a word", ""} {
		if got := r.Str(); got != want {
			t.Errorf("Str = %q, want %q", got, want)
		}
	}
	if n, ok := r.Count(); n != 0 || ok {
		t.Errorf("Count = %d, %v; want 0 for nil", n, ok)
	}
	if n, ok := r.Count(); n != 0 || !ok {
		t.Errorf("Count = %d, %v; want 0 for empty", n, ok)
	}
	if n, ok := r.Count(); n != 2 || !ok {
		t.Errorf("Count = %d, %v; want 2", n, ok)
	}
	if a, b := r.Str(), r.Str(); a != "a" || b != "delivered" {
		t.Errorf("elements %q %q", a, b)
	}
	if v := r.Float(); v != -1.5 {
		t.Errorf("Float = %v", v)
	}
	if v := r.Time(); !v.Equal(at) || v.Location() != time.UTC {
		t.Errorf("Time = %v, want %v", v, at)
	}
	if v := r.Time(); !v.Equal(odd) {
		t.Errorf("Time = %v, want %v", v, odd)
	}
	if f := r.Byte(); f != 5 {
		t.Errorf("Flags = %b, want 101", f)
	}
	r.End()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

// A common word takes one byte.
func TestWordsAreNumbers(t *testing.T) {
	w := pack.Get(words)
	defer w.Release()
	w.Str("delivered")
	if len(w.B) != 1 {
		t.Errorf("a word packed in %d bytes", len(w.B))
	}
}

func TestTimeOutsideUTCFails(t *testing.T) {
	w := pack.Get(nil)
	defer w.Release()
	w.Time(time.Date(2026, 3, 2, 15, 0, 0, 0, time.FixedZone("x", 3600)))
	if !errors.Is(w.Err(), pack.ErrUnpackable) {
		t.Errorf("Err = %v, want ErrUnpackable", w.Err())
	}
}

// readBad reads what TestBadForms wrote.
func readBad(r *pack.Reader) {
	r.Str()
	n, _ := r.Count()
	for range n {
		r.Str()
	}
	r.End()
}

// StrAt makes text appended in place a string, read back as Str writes
// it, however long.
func TestStrAt(t *testing.T) {
	for _, text := range []string{"", "id_01", strings.Repeat("x", 200)} {
		w := pack.Get(words)
		w.Str("head")
		at := len(w.B)
		w.B = append(w.B, text...)
		start := w.StrAt(at)
		if got := string(w.B[start : start+len(text)]); got != text {
			t.Errorf("StrAt: text at %d is %q", start, got)
		}
		w.Str("tail")
		r := pack.NewReader(w.String(), words)
		if h, got, tail := r.Str(), r.Str(), r.Str(); h != "head" || got != text || tail != "tail" {
			t.Errorf("read back %q %q %q", h, got, tail)
		}
		r.End()
		if r.Err() != nil {
			t.Error(r.Err())
		}
		w.Release()
	}
}

// InsertLength puts before a part its length, which a reader skips by.
func TestInsertLength(t *testing.T) {
	w := pack.Get(nil)
	defer w.Release()
	w.Str("head")
	at := len(w.B)
	for range 50 {
		w.Str("middle")
	}
	w.InsertLength(at)
	w.Str("tail")
	r := pack.NewReader(w.String(), nil)
	if r.Str() != "head" {
		t.Fatal("head")
	}
	if !r.Skip(r.Uvarint()) {
		t.Fatal(r.Err())
	}
	if got := r.Str(); got != "tail" {
		t.Fatalf("after the part: %q", got)
	}
	r.End()
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}

// A form cut short, or read past its end, sets the error and reads zero
// values; bytes left over are an error too.
func TestBadForms(t *testing.T) {
	w := pack.Get(words)
	defer w.Release()
	w.Str("a longer string")
	w.Count(2, false)
	w.Str("x")
	w.Str("y")
	full := w.String()
	for n := range len(full) {
		r := pack.NewReader(full[:n], words)
		readBad(&r)
		if r.Err() == nil {
			t.Errorf("cut to %d bytes: no error", n)
		}
	}
	r := pack.NewReader(full+"x", words)
	readBad(&r)
	if r.Err() == nil {
		t.Error("a byte left over: no error")
	}
	r = pack.NewReader("\x07", words) // word 3 of 2
	if r.Str() != "" || r.Err() == nil {
		t.Error("an unknown word read")
	}
}

func TestMetadataRoundTrip(t *testing.T) {
	long := strings.Repeat("v", 300)
	for _, m := range [][]storage.Metadata{nil, {{Key: "a", Value: ""}}, {{Key: "k", Value: long}, {Key: "", Value: "x"}}} {
		b := pack.AppendMetadata(nil, m)
		if len(b) != pack.MetadataLen(m) {
			t.Errorf("%v: packed in %d bytes, MetadataLen %d", m, len(b), pack.MetadataLen(m))
		}
		n, s := pack.NextMetadata(string(b))
		var got []storage.Metadata
		for range n {
			var p storage.Metadata
			p.Key, s = pack.NextString(s)
			p.Value, s = pack.NextString(s)
			got = append(got, p)
		}
		if s != "" || !slices.Equal(got, m) {
			t.Errorf("%v read back as %v, %q left", m, got, s)
		}
	}
}

// Interned pairs read back as given; equal lists share one copy; none is
// the zero Interned, which reads as nil.
func TestInterned(t *testing.T) {
	long := strings.Repeat("v", 300)
	m := []storage.Metadata{{Key: "k", Value: long}, {Key: "a", Value: ""}}
	in := pack.Intern(m)
	if in != pack.Intern(slices.Clone(m)) {
		t.Error("equal pairs interned apart")
	}
	if in.Len() != 2 || !slices.Equal(in.Pairs(), m) || in.Packed() != string(pack.AppendMetadata(nil, m)) {
		t.Errorf("read back %d pairs %v", in.Len(), in.Pairs())
	}
	if got := in.AppendPairs(slices.Clone(m[:1])); !slices.Equal(got, append(m[:1:1], m...)) {
		t.Errorf("AppendPairs = %v", got)
	}
	var keys []string
	in.Each(func(k, _ string) bool { keys = append(keys, k); return false })
	if !slices.Equal(keys, []string{"k"}) {
		t.Errorf("Each went on after false: %v", keys)
	}
	for _, e := range []struct {
		l          []storage.Metadata
		equal, has bool
	}{
		{m, true, true},
		{m[:1], false, true},
		{m[1:], false, true},
		{[]storage.Metadata{m[1], m[0]}, false, true},
		{append(slices.Clone(m), storage.Metadata{Key: "z"}), false, false},
		{[]storage.Metadata{{Key: "k", Value: "v"}}, false, false},
		{nil, false, true},
	} {
		if in.Equal(e.l) != e.equal || in.Has(e.l) != e.has {
			t.Errorf("%v: Equal %v Has %v, want %v %v", e.l, in.Equal(e.l), in.Has(e.l), e.equal, e.has)
		}
	}
	none := pack.Intern([]storage.Metadata{})
	if none != (pack.Interned{}) || none.Pairs() != nil || none.Len() != 0 || !none.Equal(nil) || none.Packed() != "" {
		t.Error("no pairs is not the zero Interned")
	}
}
