package ids_test

import (
	"bytes"
	"io"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/lettershop/lettershop/internal/ids"
)

var at = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// Ids are the prefix and a lower-case ULID of the time given; made at one
// instant they sort in the order they were made; the same entropy makes
// the same ids.
func TestNew(t *testing.T) {
	m := ids.NewMaker(rand.New(rand.NewSource(1)))
	var made []string
	for range 100 {
		id := m.New("ltr_", at)
		u, err := ulid.ParseStrict(strings.ToUpper(strings.TrimPrefix(id, "ltr_")))
		if !strings.HasPrefix(id, "ltr_") || err != nil || id != strings.ToLower(id) || !ulid.Time(u.Time()).Equal(at) {
			t.Fatalf("id %q: %v", id, err)
		}
		made = append(made, id)
	}
	if !slices.IsSorted(made) {
		t.Errorf("ids made at one instant do not sort in order: %v", made)
	}
	again := ids.NewMaker(rand.New(rand.NewSource(1)))
	if id := again.New("ltr_", at); id != made[0] {
		t.Errorf("the same entropy made %q, then %q", made[0], id)
	}
	// A prefix longer than the buffer is kept whole.
	long := strings.Repeat("p", 20) + "_"
	if id := m.New(long, at); !strings.HasPrefix(id, long) || len(id) != len(long)+ulid.EncodedSize || id != strings.ToLower(id) {
		t.Errorf("long prefix: %q", id)
	}
}

// Entropy that runs out (a bytes.Reader of a few bytes given to
// WithEntropy) can make no id: the panic says what failed and where the
// entropy came from, not only that an id could not be made.
func TestNewOfEntropyRunOut(t *testing.T) {
	m := ids.NewMaker(bytes.NewReader(make([]byte, 3)))
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "WithEntropy") || !strings.Contains(msg, "EOF") {
			t.Errorf("panic %q, want one naming WithEntropy and the reader's error", msg)
		}
	}()
	m.New("ltr_", at)
}

// An event's id depends only on its letter, its position and its time.
func TestAppendEvent(t *testing.T) {
	a := ids.AppendEvent(nil, "evt_", "ltr_1", 0, at)
	if string(a) != string(ids.AppendEvent([]byte("x"), "evt_", "ltr_1", 0, at)[1:]) {
		t.Error("the same event has two ids")
	}
	if len(a) != len("evt_")+ids.EventLen || !bytes.Equal(a, bytes.ToLower(a)) {
		t.Errorf("event id %q", a)
	}
	for _, other := range [][]byte{
		ids.AppendEvent(nil, "evt_", "ltr_2", 0, at),
		ids.AppendEvent(nil, "evt_", "ltr_1", 1, at),
		ids.AppendEvent(nil, "evt_", "ltr_1", 0, at.Add(time.Millisecond)),
	} {
		if bytes.Equal(a, other) {
			t.Errorf("two events share the id %q", a)
		}
	}
}

// A letter's events made at one instant (a letter moved through several
// steps at once) have ids that sort in the order of their positions, so the
// deliveries named after them list newest first.
func TestAppendEventSortsByPosition(t *testing.T) {
	for _, letter := range []string{"ltr_1", "ltr_2", "ltr_01kjqh0cc0s7w4qm8sszhnpamx"} {
		var made []string
		for n := range 300 {
			made = append(made, string(ids.AppendEvent(nil, "evt_", letter, n, at)))
		}
		if !slices.IsSorted(made) {
			t.Errorf("the events of %s at one instant do not sort in the order of their positions: %v", letter, made[:8])
		}
	}
}

// Read fills a secret from the entropy as given, not the monotonic reader.
func TestRead(t *testing.T) {
	m := ids.NewMaker(bytes.NewReader([]byte("0123456789abcdef")))
	b := make([]byte, 16)
	if err := m.Read(b); err != nil || string(b) != "0123456789abcdef" {
		t.Errorf("read %q, %v", b, err)
	}
	if err := m.Read(b); err == nil {
		t.Error("an exhausted source read without an error")
	}
}

func BenchmarkNew(b *testing.B) {
	m := ids.NewMaker(rand.New(rand.NewSource(1)))
	b.ReportAllocs()
	for b.Loop() {
		m.New("ltr_", at)
	}
}

// Ids made at one instant sort in the order they were made also when ids of
// other instants are made between them, as they are when accounts whose
// clocks stand apart make ids side by side on one server.
func TestNewInterleavedInstants(t *testing.T) {
	m := ids.NewMaker(rand.New(rand.NewSource(3)))
	var made []string
	for i := range 200 {
		made = append(made, m.New("ltr_", at))
		m.New("ltr_", at.Add(time.Duration(i%3+1)*time.Hour))
	}
	if !slices.IsSorted(made) {
		t.Errorf("ids made at one instant, with ids of other instants between them, do not sort in the order made")
	}
	if len(slices.Compact(slices.Clone(made))) != len(made) {
		t.Error("an id was made twice")
	}
}

// The sequence, come to the top of its 80 bits, wraps round: the id made
// there and the next are two ids, and making them does not panic.
func TestNewWrapsAtTheTop(t *testing.T) {
	top := bytes.Repeat([]byte{0xff}, 10)
	m := ids.NewMaker(io.MultiReader(bytes.NewReader(top), ones{}))
	last := m.New("ltr_", at)
	if want := "ltr_" + strings.ToLower(ulid.ULID(append(make([]byte, 6), top...)).String()[10:]); last[14:] != want[4:] {
		t.Fatalf("the first id is %q, want the top entropy %q", last, want)
	}
	next := m.New("ltr_", at.Add(time.Hour))
	again := m.New("ltr_", at)
	if next == last || again == last || again[14:] >= last[14:] {
		t.Errorf("past the top: %q, then %q and %q", last, next, again)
	}
}

// ones reads 0x01 bytes without end: steps of 0x01010101.
type ones struct{}

func (ones) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = 1
	}
	return len(b), nil
}

// A fork's ids at one instant increase in the order made, whatever the
// Maker it draws from makes meanwhile at other instants.
func TestFork(t *testing.T) {
	m := ids.NewMaker(rand.New(rand.NewSource(2)))
	f := m.Fork()
	var made []string
	for i := range 200 {
		made = append(made, f.New("ltr_", at))
		m.New("ltr_", at.Add(time.Duration(i+1)*time.Second))
	}
	if !slices.IsSorted(made) {
		t.Errorf("a fork's ids at one instant do not sort in the order made")
	}
	if id := f.New("ltr_", at); slices.Contains(made, id) {
		t.Errorf("the fork made %q twice", id)
	}
}
