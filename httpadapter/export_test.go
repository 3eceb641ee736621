package httpadapter

import (
	"sync/atomic"
	"testing"

	"github.com/lettershop/lettershop/snapshot"
)

// CountLetterTextReads counts the reads of letters' PDFs' texts
// GET /_test/letters/{id}/text makes, until t ends. Not for parallel tests.
func CountLetterTextReads(t testing.TB) *atomic.Int64 {
	var n atomic.Int64
	read := readLetterText
	readLetterText = func(b []byte) (string, error) {
		n.Add(1)
		return read(b)
	}
	t.Cleanup(func() { readLetterText = read })
	return &n
}

// CountSnapshotDecodes counts the bodies of PUT /_test/snapshot decoded,
// until t ends. Not for parallel tests.
func CountSnapshotDecodes(t testing.TB) *atomic.Int64 {
	var n atomic.Int64
	decode := decodeSnapshot
	decodeSnapshot = func(body []byte, snap *snapshot.Snapshot) error {
		n.Add(1)
		return decode(body, snap)
	}
	t.Cleanup(func() { decodeSnapshot = decode })
	return &n
}
