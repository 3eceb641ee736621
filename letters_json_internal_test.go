package lettershop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
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
	checkLetterJSON(t, "", l)
}

// checkLetterJSON holds the letter's encoding to encoding/json's, with and
// without CASS details; what names the letter in a failure.
func checkLetterJSON(t testing.TB, what string, l Letter) {
	t.Helper()
	for _, left := range []bool{false, true} {
		l.cassLeftOut = left
		got, err := l.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := l.encodeJSON(json.Marshal)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%scassLeftOut %v:\n got %s\nwant %s", what, left, got, want)
		}
	}
}

// BenchmarkLetterJSON encodes a letter as a fetch shows it, with the
// encoder the API uses and with encoding/json, in the same run.
func BenchmarkLetterJSON(b *testing.B) {
	party := Party{
		Address:           Address{AddressLine1: "742 Evergreen Terrace", AddressLine2: "Apartment 2B", LastLine: "Springfield, OR 97403-1234"},
		Individual:        &Individual{FullName: "Marge Bouvier Simpson"},
		AddressComponents: &AddressComponents{City: "Springfield", State: "OR", ZipCode: "97403", Plus4Code: "1234"},
	}
	name := "Marge"
	when := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	l := Letter{
		ID: "ltr_01kjqh0cc0abyzr1s1gch2evrn", Status: "queued", Sender: party, Recipient: party,
		CreatedAt: when, ModifiedAt: when, URL: "https://lettershop.test/letters/ltr_01kjqh0cc0abyzr1s1gch2evrn/download",
		Variables: []Variable{{Name: "name", Value: &name}},
		Metadata:  Metadata{{Key: "campaign", Value: "spring-renewal-2024"}, {Key: "customerRef", Value: "CUST-0004211937"}},
		Events:    []Event{{ID: "evt_01kjqh0cc0yy92aepzww4h7ywk", CreatedAt: when, ModifiedAt: when, Timestamp: when, Type: "status", Status: "queued", Description: "Letter received"}},
	}
	for _, c := range []struct {
		name string
		enc  func(any) ([]byte, error)
	}{{"goJSON", gojson.Marshal}, {"encodingJSON", json.Marshal}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.encodeJSON(c.enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("served", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := l.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestLetterJSONEveryField holds the letter's encoding to encoding/json's
// on a letter with every field set, and on one with every pointer nil and
// every slice empty, with and without CASS details, so a field the
// encoding forgets shows.
func TestLetterJSONEveryField(t *testing.T) {
	for _, empty := range []bool{false, true} {
		var l Letter
		(&filler{empty: empty}).fill(reflect.ValueOf(&l).Elem())
		checkLetterJSON(t, fmt.Sprintf("empty %v, ", empty), l)
	}
}

// FuzzLetterJSON holds the letter's encoding to encoding/json's on any
// text and any coordinates.
func FuzzLetterJSON(f *testing.F) {
	f.Add("<b>&\u2028\xff\x00\x7f\"\\/", 1.5e-7, 1e21)
	f.Add("café \U0001F600\t\r\n\b\f", 0.0, -123456789.125)
	f.Fuzz(func(t *testing.T, s string, lat, long float64) {
		if math.IsNaN(lat) || math.IsInf(lat, 0) || math.IsNaN(long) || math.IsInf(long, 0) {
			return
		}
		p := Party{
			Address: Address{AddressLine1: s, AddressLine2: s, LastLine: s}, Organization: s,
			AddressMetadata: &AddressMetadata{County: s, Latitude: lat, Longitude: long},
			AddressAnalysis: &AddressAnalysis{DpvFootnotes: []string{s}},
		}
		l := Letter{ID: s, Description: s, Sender: p, Recipient: p, Metadata: Metadata{{Key: s, Value: s}},
			Variables: []Variable{{Name: s, Value: &s}}, Options: LetterOptions{Print: &PrintOptions{AddressPlacement: s}}}
		checkLetterJSON(t, fmt.Sprintf("%q %v %v, ", s, lat, long), l)
	})
}
