package httpadapter

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// readAll reserves room for the length a body announces only up to
// bodyPrealloc: a client that announces the largest upload and sends a few
// bytes holds a few bytes of the server's memory, not the announced 10 MiB
// (a thousand such connections held 10 GiB). A body within the reservation
// is read without the buffer growing; a longer one is read whole.
func TestReadAllReservesOnlyWhatArrives(t *testing.T) {
	for _, tt := range []struct {
		name      string
		announced int64
		sent      int
		maxCap    int
	}{
		{"announced 10 MiB, sent 10 bytes", MaxUploadBody, 10, bodyPrealloc + 1},
		{"announced 64 MiB, sent nothing", MaxSnapshotBody, 0, bodyPrealloc + 1},
		{"announced and sent the reservation", bodyPrealloc, bodyPrealloc, bodyPrealloc + 1},
		{"announced and sent a byte less", bodyPrealloc - 1, bodyPrealloc - 1, bodyPrealloc},
		{"a small body, read at its length", 300, 300, 301},
	} {
		body := bytes.Repeat([]byte("x"), tt.sent)
		b, err := readAll(bytes.NewReader(body), tt.announced)
		if err != nil || !bytes.Equal(b, body) {
			t.Errorf("%s: read %d bytes (%v), want the %d sent", tt.name, len(b), err, tt.sent)
		}
		if cap(b) > tt.maxCap {
			t.Errorf("%s: a buffer of %d bytes, want at most %d", tt.name, cap(b), tt.maxCap)
		}
	}
	// A body longer than the reservation is read whole, one byte at a
	// time too.
	long := strings.Repeat("0123456789", 3*bodyPrealloc/10+7)
	b, err := readAll(io.LimitReader(oneByte{strings.NewReader(long)}, int64(len(long))), int64(len(long)))
	if err != nil || string(b) != long {
		t.Errorf("a body of %d bytes over the reservation: read %d (%v)", len(long), len(b), err)
	}
}

// oneByte reads one byte at a time, as a slow client's body arrives.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }
