// Package webhook signs the events lettershop sends to webhooks and checks
// them where they arrive. It imports nothing but the standard library, so a
// receiver can use it without the rest of lettershop.
//
// Every request lettershop sends to a webhook carries the header
//
//	Lettershop-Signature: t=1767225600,v1=eb492e619ca8c68003e552fcb81a6ead4288bedacccad5cbb140ed9fc37d17ea
//
// where t is the time of the attempt in Unix seconds and v1 the hex
// HMAC-SHA256, keyed with the webhook's secret, of t, a full stop and the
// request body as sent. t is the real time, also when the server runs on
// a test clock (lettershop --test-clock, lettershoptest): an event of a
// letter a test moved a month on is signed now, not a month on. A receiver
// recomputes it over the raw body (before any JSON decoding), compares in
// constant time, and refuses a t too far from its own clock, which stops
// the replay of an old request:
//
//	body, _ := io.ReadAll(r.Body)
//	if err := webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), body, 5*time.Minute); err != nil {
//		http.Error(w, err.Error(), http.StatusBadRequest)
//		return
//	}
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader is the header that carries the signature.
const SignatureHeader = "Lettershop-Signature"

// Sign returns the value of SignatureHeader for body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors Verify returns, wrapped.
var (
	// ErrNoSignature: the header is empty or holds no t or no v1.
	ErrNoSignature = errors.New("webhook: no signature")
	// ErrBadSignature: no v1 of the header is the body's signature.
	ErrBadSignature = errors.New("webhook: the signature does not match the body")
	// ErrTooOld: t is further from now than the tolerance.
	ErrTooOld = errors.New("webhook: the signature's time is outside the tolerance")
)

// Verify checks header, the value of SignatureHeader, against body with
// secret, and that its time is within tolerance of the wall clock, either
// side (a negative tolerance is its positive). A tolerance of 0 does not
// check the time. Several v1 values (as sent while
// a secret is being replaced) pass when any of them matches.
func Verify(secret, header string, body []byte, tolerance time.Duration) error {
	return VerifyAt(secret, header, body, tolerance, time.Now())
}

// VerifyAt is Verify with now in place of the wall clock: for a test of
// the check itself, with a header made by Sign at a time of the test's
// choosing. A handler that takes events from a lettershop server checks
// them against the wall clock (Verify, or VerifyAt with time.Now), also in
// a test whose server runs on a test clock: t is the real time of the
// attempt, and the time of a test account (lettershoptest's Account.Now)
// is no time a signature was made at.
func VerifyAt(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	var (
		ts   string
		sigs [][]byte
	)
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	if ts == "" || len(sigs) == 0 {
		return ErrNoSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: t=%q is not a time", ErrNoSignature, ts)
	}
	want := mac(secret, ts, body)
	matched := false
	for _, s := range sigs {
		matched = hmac.Equal(s, want) || matched
	}
	if !matched {
		return ErrBadSignature
	}
	if tolerance < 0 {
		tolerance = -tolerance // -5*time.Minute is the same window, not no check
	}
	if tolerance > 0 {
		if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
			return fmt.Errorf("%w: signed %s, %s from now", ErrTooOld, time.Unix(sec, 0).UTC().Format(time.RFC3339), d.Round(time.Second))
		}
	}
	return nil
}
