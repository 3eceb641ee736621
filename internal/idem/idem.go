// Package idem holds the mechanisms of idempotent requests, below the
// rules the root keeps of them: the running of a request whose claim was
// won (Requests: its lease renewed, its claim completed or released, its
// account's outcomes trimmed, expired ones purged), the claim a running
// request holds and the write that completes it (Claim, Complete), the
// byte form an idempotent Go call's outcome is stored in (EncodeValue,
// EncodeFailure, Decode, Replay), the pacing of trims of an account's
// stored outcomes (TrimDue), and the hashes that name a request and an API
// key (Fingerprint, KeyDigest). It knows storage, internal/upkeep and the
// clock only, never the root.
package idem

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"

	"github.com/lettershop/lettershop/internal/upkeep"
)

// TrimDue counts an outcome of size bytes an account just stored, in
// trims, and reports whether the
// account's stored outcomes are due a trim, to keep at most maxOutcomes of
// them and maxBytes bytes (a bound of zero or less is none; with neither,
// no trim is ever due), and the bounds to trim to. A trim walks the
// account's outcomes, so it is due once per maxOutcomes/16 outcomes, or
// maxBytes/16 bytes: an account holds at most that much more than a bound
// per counter between trims. An account trims cannot count is due a trim
// at each outcome.
func TrimDue(trims *upkeep.Counters, account string, size, maxOutcomes int, maxBytes int64) (keep int, keepBytes int64, due bool) {
	if maxOutcomes <= 0 && maxBytes <= 0 {
		return 0, 0, false
	}
	keep, keepBytes = maxOutcomes, maxBytes
	if keep <= 0 {
		keep = math.MaxInt
	}
	if keepBytes <= 0 {
		keepBytes = math.MaxInt64
	}
	return keep, keepBytes, trims.Add(account, int64(size), keep/16, keepBytes/16)
}

// Fingerprint hashes the parts of a request into a fingerprint that tells
// a retry apart from a key reused for something else: SHA-256 over each
// part's length and bytes, in hex.
func Fingerprint(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(p))))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CallFingerprint returns the fingerprint of a Go call: of op, the name
// of the operation, and the JSON of its input.
func CallFingerprint(op string, input any) (string, error) {
	in, err := json.Marshal(input)
	if err != nil {
		return "", err
	}
	return Fingerprint([]byte(op), in), nil
}

// keyKey carries the key WithKey sets.
type keyKey struct{}

// WithKey returns a context that carries an idempotency key for the Go
// calls made under it.
func WithKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyKey{}, key)
}

// Key returns the key WithKey set in ctx, or "".
func Key(ctx context.Context) string {
	key, _ := ctx.Value(keyKey{}).(string)
	return key
}

// KeyDigest returns a keyed hash of apiKey (HMAC-SHA256 under key), in
// hex, to identify an API key without keeping it.
func KeyDigest(key []byte, apiKey string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("lettershop api key\x00"))
	m.Write([]byte(apiKey))
	return hex.EncodeToString(m.Sum(nil))
}
