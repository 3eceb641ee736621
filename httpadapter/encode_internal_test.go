package httpadapter

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
)

// TestMarshalJSONMatchesEncodingJSON holds the response encoder to the
// bytes encoding/json writes, on the characters where encoders differ:
// HTML, line and paragraph separators, invalid UTF-8, control characters,
// and on map order and times.
func TestMarshalJSONMatchesEncodingJSON(t *testing.T) {
	tricky := "<b>Dear & \"friend\"</b>\u2028\u2029\x00\x1f\xff\xfe café \U0001F600 \\ /"
	when := time.Date(2026, 3, 2, 15, 4, 5, 123456789, time.FixedZone("x", -5*3600))
	letter := &lettershop.Letter{
		ID: "ltr_" + tricky, Status: "queued", CreatedAt: when, ModifiedAt: when.UTC(),
		Description: tricky, ExternalID: tricky, URL: "https://x.test/a?b=1&c=<2>",
		Metadata:  lettershop.Metadata{{Key: tricky, Value: tricky}, {Key: "a", Value: ""}},
		Variables: []lettershop.Variable{{Name: "name", Value: &tricky}},
	}
	letter.Recipient.Address.AddressLine1 = tricky
	values := []any{
		letter,
		lettershop.Page[lettershop.Letter]{Items: []lettershop.Letter{*letter, *letter}, NextToken: tricky},
		problem{Type: "invalid", Title: tricky, Status: 400, Detail: tricky, Errors: map[string]string{"z": tricky, "a": "x", tricky: "<>"}},
		map[string]any{"f": 1.5e-7, "g": 1e21, "h": 123456789.0, "i": []any{nil, true, "x"}},
		healthState{Status: "ok"},
	}
	for i, v := range values {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := marshalJSON(v); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("value %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
}
