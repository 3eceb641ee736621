package signedlink_test

import (
	"bytes"
	"encoding/base64"
	"errors"
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

// sign is s.Sign, for an account it takes.
func sign(tb testing.TB, s *signedlink.Signer, account, id, expires string, serial uint64) string {
	tb.Helper()
	sig, err := s.Sign(account, id, expires, serial)
	if err != nil {
		tb.Fatal(err)
	}
	return sig
}

// TestSignStable holds the signature of known parts fixed: links made
// before a change of this package open after it.
func TestSignStable(t *testing.T) {
	s := newSigner(key)
	got := sign(t, s, "acct_1", "ltr_01abc", "1800000000", 42)
	const want = "1BB9RRJCQKfEaCwXdCMCC4eU36bGbJJs9tnlUiy_-QrArUhBoOiMMuPK"
	if got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
}

func TestOpenRoundTrip(t *testing.T) {
	s := newSigner(key)
	for _, account := range []string{"acct_1", "", strings.Repeat("é", 370)} {
		sig := sign(t, s, account, "ltr_1", "1800000000", s.NextSerial())
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
	sig := sign(t, s, "acct_1", "ltr_1", "1800000000", 7)
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

// The longest account a link carries makes a signature of MaxSignature
// characters, which opens; one byte more is refused by Sign, as its
// signature would be by Open.
func TestAccountLimit(t *testing.T) {
	s := newSigner(key)
	for _, account := range []string{strings.Repeat("a", signedlink.MaxAccount), strings.Repeat("é", signedlink.MaxAccount/2)} {
		sig := sign(t, s, account, "ltr_1", "1800000000", s.NextSerial())
		if len(sig) != signedlink.MaxSignature {
			t.Errorf("signature of %d characters; want MaxSignature, %d", len(sig), signedlink.MaxSignature)
		}
		if got, ok := s.Open("ltr_1", "1800000000", sig); !ok || got != account {
			t.Errorf("the longest account's link: Open = %.12q, %v", got, ok)
		}
	}
	long := strings.Repeat("a", signedlink.MaxAccount+1)
	if sig, err := s.Sign(long, "ltr_1", "1800000000", s.NextSerial()); !errors.Is(err, signedlink.ErrAccountTooLong) || sig != "" {
		t.Errorf("Sign of an account of MaxAccount+1 bytes = %q, %v; want ErrAccountTooLong", sig, err)
	}
	// Were it signed, its signature would be one character past what Open
	// reads.
	if n := base64.RawURLEncoding.EncodedLen(12 + 16 + 8 + len(long)); n <= signedlink.MaxSignature {
		t.Errorf("a signature for MaxAccount+1 bytes would be %d characters, within MaxSignature", n)
	}
}

func TestSerialsDiffer(t *testing.T) {
	s := newSigner(key)
	seen := map[string]bool{}
	for range 100 {
		sig := sign(t, s, "acct_1", "ltr_1", "1800000000", s.NextSerial())
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
	sig := sign(b, s, "acct_1", "ltr_01abc", "1800000000", 42)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := s.Open("ltr_01abc", "1800000000", sig); !ok {
			b.Fatal("not opened")
		}
	}
}
