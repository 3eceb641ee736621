package httpadapter

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lettershop/lettershop"
)

// Scope is a permission an API key may hold.
type Scope string

// The scopes. A full key has all of them.
const (
	ScopeLettersRead  Scope = "letters:read"
	ScopeLettersWrite Scope = "letters:write"
	ScopeAssetsRead   Scope = "assets:read"
	ScopeAssetsWrite  Scope = "assets:write"
	// ScopeWebhooksRead and ScopeWebhooksWrite are for the webhooks and
	// their deliveries.
	ScopeWebhooksRead  Scope = "webhooks:read"
	ScopeWebhooksWrite Scope = "webhooks:write"
)

// AllScopes are the scopes of a full key.
var AllScopes = []Scope{ScopeLettersRead, ScopeLettersWrite, ScopeAssetsRead, ScopeAssetsWrite, ScopeWebhooksRead, ScopeWebhooksWrite}

// ParseScope returns the scope named s, or an error naming the scopes there are.
func ParseScope(s string) (Scope, error) {
	if slices.Contains(AllScopes, Scope(s)) {
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q: want one of %s", s, joinScopes(AllScopes))
}

// Principal is who an API key speaks for: the account whose objects it
// sees, and what it may do there.
type Principal struct {
	Account string
	Scopes  []Scope
	// Test says the key is a test key, as the real service's sk_test_
	// keys are: its holder may choose what a live key's may not (a
	// webhook's secret, so that a test builds its receiver first).
	Test bool
}

// Has reports whether p holds scope s.
func (p Principal) Has(s Scope) bool { return slices.Contains(p.Scopes, s) }

// ErrUnknownKey is what an Authenticator returns for a key it does not
// accept. The handler answers it with 401; any other error with 500. An
// error that wraps it and says more (the sandbox's, which says which keys
// it takes) has its words after the 401's own.
var ErrUnknownKey = errors.New("unknown API key")

// errSandboxKey is the sandbox's ErrUnknownKey: it takes every key of a
// form anyone may know, so its 401 says which.
var errSandboxKey = &keyHint{"this server is a sandbox, where any key that begins " + SandboxKeyPrefix +
	" and has more after it (text without control characters) is a key of an account of its own"}

// keyHint is an ErrUnknownKey that says what a valid key looks like.
type keyHint struct{ hint string }

func (e *keyHint) Error() string { return ErrUnknownKey.Error() + ": " + e.hint }
func (e *keyHint) Unwrap() error { return ErrUnknownKey }

// Authenticator turns the X-Api-Key of a request into a Principal.
// Implementations must be safe for concurrent use.
type Authenticator interface {
	Authenticate(ctx context.Context, apiKey string) (Principal, error)
}

// APIKey is one key a KeyAuthenticator accepts.
type APIKey struct {
	Account string
	Secret  string
	// Scopes are what the key may do; empty means all of them.
	Scopes []Scope
	// Test makes the key a test key (Principal.Test); a Secret that
	// begins SandboxKeyPrefix is one too.
	Test bool
}

// KeyAuthenticator accepts a fixed set of API keys.
type KeyAuthenticator struct {
	keys []keyEntry
}

type keyEntry struct {
	sum       [sha256.Size]byte
	principal Principal
}

// NewKeyAuthenticator returns an Authenticator for keys. It refuses an
// empty account or secret, and a secret given twice.
func NewKeyAuthenticator(keys ...APIKey) (*KeyAuthenticator, error) {
	a := &KeyAuthenticator{}
	for i, k := range keys {
		if k.Account == "" || k.Secret == "" {
			return nil, fmt.Errorf("API key %d: account and secret are required", i+1)
		}
		sum := sha256.Sum256([]byte(k.Secret))
		for _, e := range a.keys {
			if e.sum == sum {
				return nil, fmt.Errorf("API key %d: the same secret is given twice", i+1)
			}
		}
		scopes := slices.Clone(k.Scopes)
		if len(scopes) == 0 {
			scopes = slices.Clone(AllScopes)
		}
		a.keys = append(a.keys, keyEntry{sum: sum, principal: Principal{Account: k.Account, Scopes: scopes,
			Test: k.Test || strings.HasPrefix(k.Secret, SandboxKeyPrefix)}})
	}
	return a, nil
}

// Authenticate compares the key's hash with every known key's, in time that
// does not depend on which (if any) matches or how much of it does.
func (a *KeyAuthenticator) Authenticate(_ context.Context, apiKey string) (Principal, error) {
	sum := sha256.Sum256([]byte(apiKey))
	found := -1
	for i := range a.keys {
		if subtle.ConstantTimeCompare(sum[:], a.keys[i].sum[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Principal{}, ErrUnknownKey
	}
	p := a.keys[found].principal
	p.Scopes = slices.Clone(p.Scopes)
	return p, nil
}

// SandboxKeyPrefix begins every key the sandbox authenticator accepts, as
// it begins the real service's test keys.
const SandboxKeyPrefix = "sk_test_"

// SandboxAuthenticator accepts any key that begins sk_test_ and has more
// after it, with every scope, as a test key. Each distinct key is its own
// account, so tests that use different keys do not see each other's
// objects. A key may end in @ and the scopes it has, comma-separated
// (sk_test_abc@letters:read,assets:read): it is the account of the key
// before the @ with those scopes alone, so that a test meets the 403 of a
// key without a scope; an end that names no scopes is part of the key.
// Keys, when set, are fixed keys accepted beside the sandbox's, each the
// account it names: a key among them is theirs, whatever it begins with.
type SandboxAuthenticator struct {
	Keys *KeyAuthenticator
}

// NewSandboxAuthenticator returns the sandbox authenticator.
func NewSandboxAuthenticator() SandboxAuthenticator { return SandboxAuthenticator{} }

// Authenticate derives the account from a hash of the key, so the secret
// itself is never stored as an account id. A key must be text: one that is
// not valid UTF-8, or holds a control character, is unknown.
func (s SandboxAuthenticator) Authenticate(ctx context.Context, apiKey string) (Principal, error) {
	if s.Keys != nil {
		if p, err := s.Keys.Authenticate(ctx, apiKey); err == nil {
			return p, nil
		}
	}
	if len(apiKey) <= len(SandboxKeyPrefix) || !strings.HasPrefix(apiKey, SandboxKeyPrefix) || !keyText(apiKey) {
		return Principal{}, errSandboxKey
	}
	key, scopes, err := scopedSandboxKey(apiKey)
	if err != nil {
		return Principal{}, err
	}
	return Principal{Account: SandboxAccount(key), Scopes: scopes, Test: true}, nil
}

// errSandboxScopes is the sandbox's ErrUnknownKey for a key whose end
// after @ is meant as scopes and names one there is not.
var errSandboxScopes = &keyHint{"the end of a sandbox key after its last @ names the key's scopes, comma-separated, from " +
	joinScopes(AllScopes) + ", spelt so"}

// scopedSandboxKey splits a sandbox key ending in @ and a list of scopes
// into the key before the @ and the scopes, in AllScopes' order. An end
// without a colon, which no scope lacks, is part of the key, which then
// has every scope; an end with one must name scopes alone
// (errSandboxScopes), so that a misspelt scope is told, not taken as
// another account.
func scopedSandboxKey(apiKey string) (key string, scopes []Scope, err error) {
	i := strings.LastIndexByte(apiKey, '@') // a key may hold an @ of its own
	if i <= len(SandboxKeyPrefix) || !strings.Contains(apiKey[i+1:], ":") {
		return apiKey, slices.Clone(AllScopes), nil
	}
	names := strings.Split(apiKey[i+1:], ",")
	for _, name := range names {
		if !slices.Contains(AllScopes, Scope(name)) {
			return "", nil, errSandboxScopes
		}
	}
	for _, sc := range AllScopes {
		if slices.Contains(names, string(sc)) {
			scopes = append(scopes, sc)
		}
	}
	return apiKey[:i], scopes, nil
}

// joinScopes names scopes, comma-separated.
func joinScopes(scopes []Scope) string {
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		names[i] = string(sc)
	}
	return strings.Join(names, ", ")
}

// SandboxAccount is the account the sandbox authenticator gives apiKey.
func SandboxAccount(apiKey string) string {
	sum := sha256.Sum256([]byte("lettershop sandbox account\x00" + apiKey))
	return "acct_" + hex.EncodeToString(sum[:12])
}

// keyText reports whether key is text a key may be: valid UTF-8 without
// control characters. A header cannot carry control characters but a
// form (the inbox's login) can.
func keyText(key string) bool {
	return utf8.ValidString(key) && !strings.ContainsFunc(key, unicode.IsControl)
}

// apiKeyOf returns the request's X-Api-Key: "" when it has none, and an
// error when it has several, of which the server will not pick one.
func apiKeyOf(r *http.Request) (string, error) {
	keys := r.Header[headerAPIKey]
	switch len(keys) {
	case 0:
		return "", nil
	case 1:
		return keys[0], nil
	}
	return "", invalid(headerAPIKey, "give one API key; the request has %d %s headers", len(keys), headerAPIKey)
}

func authError(err error) error {
	if errors.Is(err, ErrUnknownKey) {
		var h *keyHint
		if errors.As(err, &h) {
			return errorf(lettershop.CodeUnauthenticated, "the API key is not valid: %s", h.hint)
		}
		return errorf(lettershop.CodeUnauthenticated, "the API key is not valid")
	}
	var e *lettershop.Error
	if errors.As(err, &e) {
		return e
	}
	return &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error", Err: fmt.Errorf("authenticate: %w", err)}
}
