package httpadapter

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
)

func TestRequestIDForm(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newRequestID()
		rest, ok := strings.CutPrefix(id, "req_")
		if !ok || len(rest) != 26 || strings.Trim(rest, requestIDAlphabet) != "" {
			t.Fatalf("request id %q, want req_ and 26 characters of %s", id, requestIDAlphabet)
		}
		if seen[id] {
			t.Fatalf("request id %q given twice", id)
		}
		seen[id] = true
	}
}

func TestKeyDigestsMatchTheService(t *testing.T) {
	svc := lettershop.New(memstore.New())
	defer svc.Close()
	d := newKeyDigests(svc)
	for _, key := range []string{"sk_test_a", "sk_test_b", "sk_test_a"} {
		if got, want := d.digest(key), svc.APIKeyDigest(key); got != want {
			t.Errorf("digest(%q) = %s, want %s", key, got, want)
		}
	}
}

// BenchmarkRequestID compares the request id with the crypto/rand.Text
// form it replaced.
func BenchmarkRequestID(b *testing.B) {
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = newRequestID()
		}
	})
	b.Run("randText", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = "req_" + strings.ToLower(rand.Text())
		}
	})
}

// BenchmarkKeyDigest compares a remembered API key digest with computing
// it per request.
func BenchmarkKeyDigest(b *testing.B) {
	svc := lettershop.New(memstore.New())
	defer svc.Close()
	d := newKeyDigests(svc)
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = d.digest("sk_test_bench")
		}
	})
	b.Run("hmac", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = svc.APIKeyDigest("sk_test_bench")
		}
	})
}
