package webhook_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lettershop/lettershop/webhook"
)

var sent = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestSignAndVerify(t *testing.T) {
	body := []byte(`{"id":"evt_1","type":"letter.mailed"}`)
	h := webhook.Sign("whsec_abc", sent, body)
	// The documented form, fixed: a change to the scheme breaks receivers.
	// The same as printf '%s' '1767225600.<body>' | openssl dgst -sha256 -hmac whsec_abc
	if want := "t=1767225600,v1=eb492e619ca8c68003e552fcb81a6ead4288bedacccad5cbb140ed9fc37d17ea"; h != want {
		t.Fatalf("header %q, want %q", h, want)
	}
	tol := 5 * time.Minute
	for _, tc := range []struct {
		name   string
		secret string
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		{"as sent", "whsec_abc", h, body, sent, nil},
		{"at the tolerance", "whsec_abc", h, body, sent.Add(tol), nil},
		{"before, at the tolerance", "whsec_abc", h, body, sent.Add(-tol), nil},
		{"past the tolerance", "whsec_abc", h, body, sent.Add(tol + time.Second), webhook.ErrTooOld},
		{"before the tolerance", "whsec_abc", h, body, sent.Add(-tol - time.Second), webhook.ErrTooOld},
		{"another secret", "whsec_abd", h, body, sent, webhook.ErrBadSignature},
		{"another body", "whsec_abc", h, []byte(`{"id":"evt_2","type":"letter.mailed"}`), sent, webhook.ErrBadSignature},
		{"a body re-encoded", "whsec_abc", h, []byte(`{"id": "evt_1", "type": "letter.mailed"}`), sent, webhook.ErrBadSignature},
		{"another time", "whsec_abc", "t=1767225601," + h[len("t=1767225600,"):], body, sent, webhook.ErrBadSignature},
		{"several v1, one right", "whsec_abc", h + ",v1=00ff", body, sent, nil},
		{"no header", "whsec_abc", "", body, sent, webhook.ErrNoSignature},
		{"no v1", "whsec_abc", "t=1767225600", body, sent, webhook.ErrNoSignature},
		{"no t", "whsec_abc", h[len("t=1767225600,"):], body, sent, webhook.ErrNoSignature},
		{"a t not a number", "whsec_abc", "t=soon," + h[len("t=1767225600,"):], body, sent, webhook.ErrNoSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := webhook.VerifyAt(tc.secret, tc.header, tc.body, tol, tc.now)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("VerifyAt: %v, want %v", err, tc.want)
			}
		})
	}
	if err := webhook.VerifyAt("whsec_abc", h, body, 0, sent.Add(24*time.Hour)); err != nil {
		t.Errorf("with no tolerance, a day later: %v", err)
	}
}

// TestANegativeToleranceStillChecksTheTime: a tolerance written as a
// duration back in time (-5*time.Minute) is the same window as its
// positive, not a check turned off.
func TestANegativeToleranceStillChecksTheTime(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	sent := time.Unix(1767225600, 0)
	h := webhook.Sign("whsec_abc", sent, body)
	tol := -5 * time.Minute
	for _, tc := range []struct {
		name string
		now  time.Time
		want error
	}{
		{"at the tolerance", sent.Add(5 * time.Minute), nil},
		{"before, at the tolerance", sent.Add(-5 * time.Minute), nil},
		{"past the tolerance", sent.Add(5*time.Minute + time.Second), webhook.ErrTooOld},
		{"before the tolerance", sent.Add(-5*time.Minute - time.Second), webhook.ErrTooOld},
		{"a day later", sent.Add(24 * time.Hour), webhook.ErrTooOld},
	} {
		err := webhook.VerifyAt("whsec_abc", h, body, tol, tc.now)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: VerifyAt: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func ExampleSign() {
	body := []byte(`{"id":"evt_1","type":"letter.mailed"}`)
	h := webhook.Sign("whsec_abc", time.Unix(1767225600, 0), body)
	fmt.Println(h[:13])
	fmt.Println(webhook.VerifyAt("whsec_abc", h, body, 5*time.Minute, time.Unix(1767225660, 0)))
	// Output:
	// t=1767225600,
	// <nil>
}
