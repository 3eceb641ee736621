package lettershop

import (
	"bytes"
	"testing"
	"time"
)

// TestLetterSnapshotShowsTheLetterAsItWas: a snapshot, and its encoding
// read back, encode the letter as its MarshalJSON did when the snapshot
// was made, whatever the letter does afterwards: for a letter just made,
// one with metadata that has moved on (modified after it was made, more
// events), and one with nothing due.
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
			want, err := l.MarshalJSON()
			if err != nil {
				t.Fatal(err)
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
			got, err := snap.AppendJSON(nil)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("snapshot: %v\n got %s\nwant %s", err, got, want)
			}
			enc, err := snap.EncodeDocument()
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeLetterSnapshot(enc)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := back.AppendJSON(nil); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("encoded snapshot read back: %v\n got %s\nwant %s", err, got, want)
			}
			if len(enc) >= len(want)/2 {
				t.Errorf("the encoding takes %d bytes, the letter's JSON %d", len(enc), len(want))
			}
			if _, err := DecodeLetterSnapshot(enc[:len(enc)-4]); err == nil {
				t.Errorf("a cut encoding reads back")
			}
		})
	}
}
