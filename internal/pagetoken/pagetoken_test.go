package pagetoken_test

import (
	"encoding/base64"
	"testing"

	"github.com/lettershop/lettershop/internal/pagetoken"
)

var signer = pagetoken.Signer{Key: []byte("0123456789abcdef0123456789abcdef")}

// Clients keep tokens across versions: a token made before must still
// open, so the form is pinned.
func TestTokenFormIsPinned(t *testing.T) {
	scope := pagetoken.Scope("acct_1", "letters", "status=ready")
	const want = "bHRyXzAxVhUjPR9047Kz7DFbHtxwjw"
	if got := signer.Sign(scope, "ltr_01"); got != want {
		t.Errorf("token %s, want %s", got, want)
	}
	if id, ok := signer.Open(want, scope); !ok || id != "ltr_01" {
		t.Errorf("pinned token opens to %q, %v", id, ok)
	}
}

func TestTokenOpensOnlyForItsWalk(t *testing.T) {
	scope := pagetoken.Scope("acct_1", "letters")
	token := signer.Sign(scope, "ltr_01")
	if id, ok := signer.Open(token, scope); !ok || id != "ltr_01" {
		t.Fatalf("own walk: %q, %v", id, ok)
	}
	for name, other := range map[string]string{
		"another account": pagetoken.Scope("acct_2", "letters"),
		"another list":    pagetoken.Scope("acct_1", "assets"),
		"a filter added":  pagetoken.Scope("acct_1", "letters", ""),
	} {
		if id, ok := signer.Open(token, other); ok || id != "" {
			t.Errorf("%s: opened to %q", name, id)
		}
	}
	if _, ok := (pagetoken.Signer{Key: []byte("another key")}).Open(token, scope); ok {
		t.Error("opened under another key")
	}
}

func TestChangedTokenIsRefused(t *testing.T) {
	scope := pagetoken.Scope("acct_1", "letters")
	token := signer.Sign(scope, "ltr_01")
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		changed := append([]byte(nil), raw...)
		changed[i] ^= 1
		if id, ok := signer.Open(base64.RawURLEncoding.EncodeToString(changed), scope); ok {
			t.Errorf("byte %d changed: opened to %q", i, id)
		}
	}
	for name, bad := range map[string]string{
		"empty":             "",
		"not base64url":     token[:len(token)-1] + "=",
		"only a MAC's size": base64.RawURLEncoding.EncodeToString(raw[len(raw)-16:]),
		"cut":               token[:len(token)-2],
	} {
		if id, ok := signer.Open(bad, scope); ok {
			t.Errorf("%s: opened to %q", name, id)
		}
	}
	// One byte of id before the MAC is the shortest token that opens.
	short := signer.Sign(scope, "x")
	if id, ok := signer.Open(short, scope); !ok || id != "x" {
		t.Errorf("a one-byte id: %q, %v", id, ok)
	}
}

// The parts of a scope are told apart by their lengths: moving a byte
// from one part to the next names another walk.
func TestScopesDoNotCollide(t *testing.T) {
	pairs := [][2]string{
		{pagetoken.Scope("ab", "c"), pagetoken.Scope("a", "bc")},
		{pagetoken.Scope("a", "b", "c"), pagetoken.Scope("a", "bc")},
		{pagetoken.Scope("a", "b", "", ""), pagetoken.Scope("a", "b", "")},
	}
	for _, p := range pairs {
		if p[0] == p[1] {
			t.Errorf("two walks share scope %q", p[0])
		}
	}
	if got, want := pagetoken.Scope("acct", "letters", "x"), "4:acct7:letters1:x"; got != want {
		t.Errorf("scope %q, want %q", got, want)
	}
}
