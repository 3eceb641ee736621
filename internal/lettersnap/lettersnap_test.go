package lettersnap_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/internal/lettersnap"
	"github.com/lettershop/lettershop/storage"
)

// sized is a document that counts its own bytes.
type sized struct{ storage.Encoded }

func (s sized) KeptSize() int { return 100 }

func TestSnapshotKeepsTheRecord(t *testing.T) {
	created := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	for name, r := range map[string]storage.Letter{
		"just made": {ID: "ltr_1", Status: "queued", CreatedAt: created, ModifiedAt: created,
			DueAt: created.Add(5 * time.Minute), Revision: 1, Doc: storage.Encoded(`{"a":1}`)},
		"changed since": {ID: "ltr_2", Status: "mailed", ExternalID: "ext",
			Metadata:  []storage.Metadata{{Key: "k", Value: "v"}, {Key: "k2", Value: ""}},
			CreatedAt: created, ModifiedAt: created.Add(time.Hour + 3), DueAt: created.Add(time.Nanosecond),
			Revision: 7, Doc: storage.Encoded(`{"b":2}`)},
		"nothing due": {ID: "ltr_3", Status: "canceled", CreatedAt: created, ModifiedAt: created.Add(time.Second),
			Revision: 2, Doc: storage.Encoded(`{}`)},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := lettersnap.Make(&r, "https://example.com/v1")
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Record()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(r, got); diff != "" {
				t.Errorf("record (-made from +kept):\n%s", diff)
			}
			if s.Base() != "https://example.com/v1" {
				t.Errorf("Base = %q", s.Base())
			}
			enc, err := s.AppendEncoded([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			if !lettersnap.IsEncoded(enc[len("prefix"):]) {
				t.Fatal("not an encoded snapshot")
			}
			back, base, err := lettersnap.Decode(enc[len("prefix"):])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(r, back); diff != "" || base != s.Base() {
				t.Errorf("decoded with base %q (-made from +decoded):\n%s", base, diff)
			}
			if _, _, err := lettersnap.Decode(enc[len("prefix") : len(enc)-3]); err == nil {
				t.Error("a cut encoding decoded")
			}
		})
	}
}

func TestSnapshotSize(t *testing.T) {
	at := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	r := storage.Letter{ID: "ltr_1", CreatedAt: at, ModifiedAt: at, Doc: storage.Encoded(`{}`)}
	loose, err := lettersnap.Make(&r, "")
	if err != nil {
		t.Fatal(err)
	}
	r.Doc = sized{}
	kept, err := lettersnap.Make(&r, "")
	if err != nil {
		t.Fatal(err)
	}
	if loose.Size()-kept.Size() != lettersnap.LooseSize-100 {
		t.Errorf("sizes %d and %d: the document's own not counted", loose.Size(), kept.Size())
	}
}

func TestSnapshotRefusesTimesOutsideUTC(t *testing.T) {
	at := time.Date(2026, 3, 2, 15, 0, 0, 0, time.FixedZone("x", 3600))
	r := storage.Letter{ID: "ltr_1", CreatedAt: at, ModifiedAt: at}
	if _, err := lettersnap.Make(&r, ""); err == nil {
		t.Error("made a snapshot of a time outside UTC")
	}
}

// An encoded snapshot decodes with its times in UTC, and is made a
// snapshot again with the document its decoder reads, kept.
func TestDecodeKept(t *testing.T) {
	created := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	r := storage.Letter{ID: "ltr_1", Status: "queued", CreatedAt: created, ModifiedAt: created.Add(time.Second),
		DueAt: created.Add(time.Minute), Revision: 1, Doc: storage.Encoded(`{"a":1}`)}
	s, err := lettersnap.Make(&r, "https://example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := s.AppendEncoded(nil)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := lettersnap.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{back.CreatedAt, back.ModifiedAt, back.DueAt} {
		if at.Location() != time.UTC {
			t.Errorf("%v is not in UTC", at)
		}
	}
	var gotID string
	kept, err := lettersnap.DecodeKept(enc, func(id string, doc storage.Document) (storage.Document, error) {
		gotID = id
		return storage.Encoded(`{"read":true}`), nil
	})
	if err != nil || gotID != "ltr_1" {
		t.Fatalf("%v; decoder given %q", err, gotID)
	}
	rec, err := kept.Record()
	if err != nil {
		t.Fatal(err)
	}
	if doc, _ := storage.EncodeDocument(rec.Doc); string(doc) != `{"read":true}` || !rec.DueAt.Equal(r.DueAt) || kept.Base() != "https://example.com/v1" {
		t.Errorf("kept %s, due %v, base %q", doc, rec.DueAt, kept.Base())
	}
	if _, err := lettersnap.DecodeKept(enc, func(string, storage.Document) (storage.Document, error) {
		return nil, errors.New("unreadable")
	}); err == nil {
		t.Error("a document its decoder cannot read is kept")
	}
}
