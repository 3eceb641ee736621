package signedlink_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/signedlink"
)

var now = time.Date(2026, 3, 2, 15, 0, 0, 500_000_000, time.UTC)

// A link expires its lifetime after it is made, rounded up to the second,
// and opens with its account and expiry.
func TestLinks(t *testing.T) {
	l := signedlink.NewLinks(key, time.Minute)
	expires, sig, err := l.Sign("acct_1", "ltr_1", now)
	if err != nil {
		t.Fatal(err)
	}
	want := now.Add(time.Minute).Truncate(time.Second).Add(time.Second)
	if expires != strconv.FormatInt(want.Unix(), 10) {
		t.Errorf("expires = %s; want %d, rounded up", expires, want.Unix())
	}
	account, exp, ok := l.Open("ltr_1", expires, sig)
	if !ok || account != "acct_1" || !exp.Equal(want) {
		t.Errorf("Open = %q, %v, %v", account, exp, ok)
	}
	// Another Links of the key, as on another server, opens it.
	if account, _, ok := signedlink.NewLinks(key, 0).Open("ltr_1", expires, sig); !ok || account != "acct_1" {
		t.Errorf("another Links of the key: Open = %q, %v", account, ok)
	}
	// On the second, a link lasts exactly its lifetime.
	if expires, _, _ := l.Sign("acct_1", "ltr_1", now.Truncate(time.Second)); expires != strconv.FormatInt(now.Truncate(time.Second).Add(time.Minute).Unix(), 10) {
		t.Errorf("expires = %s for a link made on the second", expires)
	}
	for _, e := range []string{"", "+" + expires, "0" + expires, expires + "0", "x", "-1"} {
		if _, _, ok := l.Open("ltr_1", e, sig); ok {
			t.Errorf("Open with expiry %q: opened", e)
		}
	}
	// An expiry in another spelling of the same number is refused even
	// with a signature over that spelling: only Sign's is a link's.
	signer := signedlink.New(key, nil)
	for _, e := range []string{"+" + expires, "0" + expires} {
		other, err := signer.Sign("acct_1", "ltr_1", e, signer.NextSerial())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := signer.Open("ltr_1", e, other); !ok {
			t.Fatalf("the signer does not open its own signature over %q", e)
		}
		if _, _, ok := l.Open("ltr_1", e, other); ok {
			t.Errorf("Open with expiry %q, signed so: opened", e)
		}
	}
	if _, _, err := l.Sign(strings.Repeat("a", signedlink.MaxAccount+1), "ltr_1", now); err == nil {
		t.Error("Sign made a link for an account too long to open")
	}
}

// A lifetime of zero or below is DefaultTTL; one just above zero rounds up
// to the second.
func TestLinksDefaultTTL(t *testing.T) {
	at := now.Truncate(time.Second)
	for ttl, want := range map[time.Duration]time.Time{
		0: at.Add(signedlink.DefaultTTL), -time.Second: at.Add(signedlink.DefaultTTL), time.Nanosecond: at.Add(time.Second),
	} {
		l := signedlink.NewLinks(key, ttl)
		expires, _, err := l.Sign("acct_1", "ltr_1", at)
		if err != nil {
			t.Fatal(err)
		}
		if expires != strconv.FormatInt(want.Unix(), 10) {
			t.Errorf("a lifetime of %v: expires = %s; want %d", ttl, expires, want.Unix())
		}
	}
}

// Links made with another key do not open a link.
func TestLinksOtherKey(t *testing.T) {
	l := signedlink.NewLinks(key, time.Minute)
	expires, sig, err := l.Sign("acct_1", "ltr_1", now)
	if err != nil {
		t.Fatal(err)
	}
	other := signedlink.NewLinks([]byte("another key of thirty-two bytes!"), time.Minute)
	if account, _, ok := other.Open("ltr_1", expires, sig); ok {
		t.Errorf("Links of another key opened the link, for %q", account)
	}
}
