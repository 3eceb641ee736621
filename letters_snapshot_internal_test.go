package lettershop

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop/internal/lettersnap"
	"github.com/lettershop/lettershop/storage"
)

// TestLetterSnapshotShowsTheLetterAsItWas: a snapshot, and its encoding
// read back, show the letter as it was when the snapshot was made,
// whatever the letter does afterwards: for a letter just made, one with
// metadata that has moved on (modified after it was made, more events),
// and one with nothing due. (That they encode to the same bytes is package
// wire's TestSnapshotEncodesTheLetterAsItWas.)
func TestLetterSnapshotShowsTheLetterAsItWas(t *testing.T) {
	_, settled := benchRecord(t)
	fresh := settled
	fresh.Events = fresh.Events[:1]
	fresh.ModifiedAt = fresh.CreatedAt
	fresh.dueAt = fresh.CreatedAt.Add(5 * time.Minute)
	fresh.Metadata = Metadata{} // as the Service makes them: never nil
	withMeta := settled
	withMeta.Metadata = Metadata{{Key: "campaign", Value: "spring"}, {Key: "é", Value: ""}}
	withMeta.ExternalID = "order-1"
	idle := withMeta
	idle.dueAt = time.Time{}
	idle.ModifiedAt = idle.CreatedAt.Add(time.Nanosecond)
	for name, l := range map[string]Letter{"fresh": fresh, "settled with metadata": withMeta, "nothing due": idle} {
		t.Run(name, func(t *testing.T) {
			l.URL = "https://lettershop.test/v1" + urlTail(l.ID)
			want := l
			want.Events = slices.Clone(l.Events)
			want.Metadata = slices.Clone(l.Metadata)
			same := func(what string, got *Letter, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if diff := cmp.Diff(&want, got, cmpopts.IgnoreUnexported(Letter{}, MetadataPair{})); diff != "" {
					t.Fatalf("%s (-want +got):\n%s", what, diff)
				}
				if !got.dueAt.Equal(want.dueAt) || got.revision != want.revision {
					t.Fatalf("%s: due at %v, revision %d; want %v, %d", what, got.dueAt, got.revision, want.dueAt, want.revision)
				}
			}
			snap, err := l.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			// What becomes of the letter afterwards does not show.
			l.Status, l.Events = StatusMailed, append(l.Events, l.Events[0])
			if len(l.Metadata) > 0 {
				l.Metadata[0].Value = "changed"
			}
			got, err := snap.Letter()
			same("snapshot", got, err)
			enc, err := snap.EncodeDocument()
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeLetterSnapshot(enc)
			if err != nil {
				t.Fatal(err)
			}
			got, err = back.Letter()
			same("encoded snapshot read back", got, err)
			if _, err := DecodeLetterSnapshot(enc[:len(enc)-4]); err == nil {
				t.Errorf("a cut encoding reads back")
			}
		})
	}
}

// A letter's answer a serializing store kept (its encoded snapshot) is
// replayed by reading the record once into the letter: no snapshot is
// made of it again on the way.
func TestEncodedSnapshotReplayedInOneConversion(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what it is given: allocation counts do not hold")
	}
	l, enc := encodedSnapshot(t)
	got, err := decodeOutcome[*Letter]("get letter", storage.Encoded(enc))
	if err != nil || got.ID != l.ID || got.URL != l.URL || len(got.Events) != len(l.Events) {
		t.Fatalf("replayed %+v, %v", got, err)
	}
	once := testing.AllocsPerRun(20, func() {
		r, _, err := lettersnap.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := letterFromRecord(r); err != nil {
			t.Fatal(err)
		}
	})
	replay := testing.AllocsPerRun(20, func() {
		if _, err := decodeOutcome[*Letter]("get letter", storage.Encoded(enc)); err != nil {
			t.Fatal(err)
		}
	})
	// The allocations more are the letter's url (its tail, then the
	// whole) and the stored bytes made a storage.Document.
	if replay > once+3 {
		t.Errorf("a replay allocates %v times, reading the record into the letter %v", replay, once)
	}
}

// An encoded snapshot read back is made a snapshot again from its record
// and document as decoded, without a letter made of them on the way.
func TestDecodeLetterSnapshotMakesNoLetter(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what it is given: allocation counts do not hold")
	}
	_, enc := encodedSnapshot(t)
	decoded := testing.AllocsPerRun(20, func() {
		r, _, err := lettersnap.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := docOf[letterDoc]("letter", r.ID, r.Doc); err != nil {
			t.Fatal(err)
		}
	})
	read := testing.AllocsPerRun(20, func() {
		if _, err := DecodeLetterSnapshot(enc); err != nil {
			t.Fatal(err)
		}
	})
	// The allocations more are the kept form (its packed string and
	// itself), the snapshot's packed fields and the snapshot.
	if read > decoded+4 {
		t.Errorf("reading an encoded snapshot allocates %v times, decoding its record and document %v", read, decoded)
	}
}

// encodedSnapshot is a letter and its answer as a serializing store keeps
// it: its snapshot, encoded.
func encodedSnapshot(t *testing.T) (Letter, []byte) {
	t.Helper()
	_, l := benchRecord(t)
	l.URL = "https://lettershop.test/v1" + urlTail(l.ID)
	snap, err := l.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := snap.EncodeDocument()
	if err != nil {
		t.Fatal(err)
	}
	return l, enc
}
