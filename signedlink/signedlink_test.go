package signedlink_test

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/lettershop/lettershop/signedlink"
)

var key = []byte("0123456789abcdef0123456789abcdef")

// zeros starts serial numbers at 0, so signatures are repeatable.
func newSigner(k []byte) *signedlink.Signer {
	return signedlink.New(k, bytes.NewReader(make([]byte, 8)))
}

// TestSignStable holds the signature of known parts fixed: links made
// before a change of this package open after it.
func TestSignStable(t *testing.T) {
	s := newSigner(key)
	got := s.Sign("acct_1", "ltr_01abc", "1800000000", 42)
	const want = "1BB9RRJCQKfEaCwXdCMCC4eU36bGbJJs9tnlUiy_-QrArUhBoOiMMuPK"
	if got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
}

func TestOpenRoundTrip(t *testing.T) {
	s := newSigner(key)
	for _, account := range []string{"acct_1", "", strings.Repeat("é", 370)} {
		sig := s.Sign(account, "ltr_1", "1800000000", s.NextSerial())
		got, ok := s.Open("ltr_1", "1800000000", sig)
		if !ok || got != account {
			t.Errorf("Open(Sign(%.12q)) = %q, %v", account, got, ok)
		}
		// A Signer made from the same key, as on another server, opens it.
		if got, ok := newSigner(key).Open("ltr_1", "1800000000", sig); !ok || got != account {
			t.Errorf("another Signer of the key: Open = %q, %v", got, ok)
		}
	}
}

func TestOpenRefusesChanges(t *testing.T) {
	s := newSigner(key)
	sig := s.Sign("acct_1", "ltr_1", "1800000000", 7)
	flip := func(sig string, i int) string {
		b := []byte(sig)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	for _, tt := range []struct {
		name, id, expires, sig string
		s                      *signedlink.Signer
	}{
		{"other id", "ltr_2", "1800000000", sig, s},
		{"other expiry", "ltr_1", "1800000001", sig, s},
		{"first character", "ltr_1", "1800000000", flip(sig, 0), s},
		{"last character", "ltr_1", "1800000000", flip(sig, len(sig)-1), s},
		{"cut", "ltr_1", "1800000000", sig[:len(sig)-4], s},
		{"short", "ltr_1", "1800000000", sig[:10], s},
		{"empty", "ltr_1", "1800000000", "", s},
		{"not base64", "ltr_1", "1800000000", sig[:len(sig)-1] + "=", s},
		{"too long", "ltr_1", "1800000000", strings.Repeat("A", signedlink.MaxSignature+1), s},
		{"other key", "ltr_1", "1800000000", sig, newSigner([]byte("another key"))},
	} {
		if account, ok := tt.s.Open(tt.id, tt.expires, tt.sig); ok {
			t.Errorf("%s: opened, as %q", tt.name, account)
		}
	}
}

func TestSerialsDiffer(t *testing.T) {
	s := newSigner(key)
	seen := map[string]bool{}
	for range 100 {
		sig := s.Sign("acct_1", "ltr_1", "1800000000", s.NextSerial())
		if seen[sig] {
			t.Fatalf("signature %q made twice", sig)
		}
		seen[sig] = true
	}
	// Signers of one key start their serials apart.
	a, b := signedlink.New(key, nil), signedlink.New(key, nil)
	if a.NextSerial() == b.NextSerial() {
		t.Error("two Signers started at one serial number")
	}
}

func TestNewPanicsWithoutRandomness(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New did not panic")
		}
	}()
	signedlink.New(key, iotest.ErrReader(iotest.ErrTimeout))
}

func BenchmarkOpen(b *testing.B) {
	s := newSigner(key)
	sig := s.Sign("acct_1", "ltr_01abc", "1800000000", 42)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := s.Open("ltr_01abc", "1800000000", sig); !ok {
			b.Fatal("not opened")
		}
	}
}
