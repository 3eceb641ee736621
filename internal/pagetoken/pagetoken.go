// Package pagetoken makes and opens the opaque tokens that continue a
// list: a token is base64url(lastID || mac), mac an HMAC-SHA256 (cut to
// 16 bytes) under a key over the walk's scope and the id. The scope names
// the walk (Scope: its account, its list and its filters), so a token only
// continues the walk that made it, and a changed byte anywhere makes it
// invalid. Tokens are kept by clients across versions: the form must not
// change. It knows nothing of what is listed; it imports only the
// standard library.
package pagetoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// macLen is how many bytes of the HMAC a token carries.
const macLen = 16

// Scope describes one list walk: its account, its list and its filters,
// each part length-prefixed so no two walks share a scope.
func Scope(account, list string, filters ...string) string {
	var b strings.Builder
	for _, p := range append([]string{account, list}, filters...) {
		b.WriteString(strconv.Itoa(len(p)))
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}

// Signer signs tokens under its key, and opens them. Servers with the same
// key open each other's tokens.
type Signer struct {
	// Key is the HMAC key.
	Key []byte
}

// mac is the token's MAC of id on the walk scope.
func (s Signer) mac(scope, id string) []byte {
	m := hmac.New(sha256.New, s.Key)
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write([]byte(id))
	return m.Sum(nil)[:macLen]
}

// Sign returns the token that continues the walk scope after id.
func (s Signer) Sign(scope, id string) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte(id), s.mac(scope, id)...))
}

// Open returns the id a token Sign made for the walk scope continues
// after; ok is false for a token not made so: not base64url, too short to
// hold a MAC, changed, or made for another walk or under another key.
func (s Signer) Open(token, scope string) (id string, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) <= macLen {
		return "", false
	}
	id, mac := string(raw[:len(raw)-macLen]), raw[len(raw)-macLen:]
	if !hmac.Equal(mac, s.mac(scope, id)) {
		return "", false
	}
	return id, true
}
