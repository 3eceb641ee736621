package lettershop

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestLetterJSONMatchesEncodingJSON holds the letter's encoder to the bytes
// encoding/json writes for the same letter, on the characters encoders
// treat differently (HTML, U+2028, invalid UTF-8, control characters) and
// on maps, numbers and times.
func TestLetterJSONMatchesEncodingJSON(t *testing.T) {
	tricky := "<b>Dear & \"friend\"</b>\u2028\u2029\x00\x1f\xff\xfe café \U0001F600 \\ /"
	when := time.Date(2026, 3, 2, 15, 4, 5, 123456789, time.FixedZone("x", -5*3600))
	party := Party{
		Address:            Address{AddressLine1: tricky, AddressLine2: tricky, LastLine: tricky},
		Individual:         &Individual{FullName: tricky, FirstName: "Jane"},
		Organization:       tricky,
		NonAddressData:     tricky,
		AddressComponents:  &AddressComponents{City: tricky, State: "IL", ZipCode: "60601"},
		AddressAnalysis:    &AddressAnalysis{},
		AddressCorrections: []AddressCorrection{{}, {}},
	}
	l := Letter{
		ID: "ltr_" + tricky, Status: "queued", Sender: party, Recipient: party,
		CreatedAt: when, ModifiedAt: when.UTC(), Description: tricky, ExternalID: tricky,
		SendDate: "2026-03-04", URL: "https://x.test/a?b=1&c=<2>", IssueMessage: tricky,
		Metadata:  Metadata{{Key: tricky, Value: tricky}, {Key: "a", Value: ""}},
		Variables: []Variable{{Name: "name", Value: &tricky}},
		Events: []Event{
			{ID: "evt_1", CreatedAt: when, Timestamp: when, Type: "status", Status: "queued"},
			{ID: "evt_2", TrackingEventDetails: &TrackingEventDetails{Notes: tricky, AdditionalData: map[string]any{
				"z": tricky, "a": 1.5e-7, "big": 1e21, "n": 123456789.0, "list": []any{nil, true, tricky, map[string]any{"<": ">"}},
			}}},
		},
	}
	for _, left := range []bool{false, true} {
		l.cassLeftOut = left
		got, err := l.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		old := marshal
		marshal = json.Marshal
		want, err := l.MarshalJSON()
		marshal = old
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("cassLeftOut %v:\n got %s\nwant %s", left, got, want)
		}
	}
}
