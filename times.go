package lettershop

import (
	"time"

	gojson "github.com/goccy/go-json"
)

// Answers show every time as the real service's reference writes it, in UTC
// to the second (2023-06-07T12:34:56Z): the service keeps times to the
// millisecond, and a time read back from an answer is that time truncated
// (see sameTime). Letters and their events are written by package wire,
// and versions made ready by package httpadapter, which truncate alike (a
// MarshalJSON would slow a page of large contents severalfold); assets,
// webhooks and deliveries marshal through shown.

// ShownTime is t as an answer shows it: UTC, truncated to the second.
func ShownTime(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

func shownTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	s := ShownTime(*t)
	return &s
}

// shown encodes v, a copy of an answer's value with its times shown, as
// encoding/json would but leaving HTML characters as they are (templates
// are HTML; an encoder that escapes them escapes this output alike).
func shown(v any) ([]byte, error) { return gojson.MarshalWithOption(v, gojson.DisableHTMLEscape()) }

// MarshalJSON writes a as answers show it, its times to the second.
func (a Asset) MarshalJSON() ([]byte, error) {
	type plain Asset
	a.CreatedAt, a.ModifiedAt = ShownTime(a.CreatedAt), ShownTime(a.ModifiedAt)
	return shown(plain(a))
}

// MarshalJSON writes w as answers show it, its times to the second.
func (w Webhook) MarshalJSON() ([]byte, error) {
	type plain Webhook
	w.CreatedAt, w.ModifiedAt = ShownTime(w.CreatedAt), ShownTime(w.ModifiedAt)
	return shown(plain(w))
}

// MarshalJSON writes d as answers show it, its times to the second.
func (d WebhookDelivery) MarshalJSON() ([]byte, error) {
	type plain WebhookDelivery
	d.CreatedAt, d.LastAttemptAt, d.NextAttemptAt = ShownTime(d.CreatedAt), shownTimePtr(d.LastAttemptAt), shownTimePtr(d.NextAttemptAt)
	return shown(plain(d))
}
