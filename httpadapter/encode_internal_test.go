package httpadapter

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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

// TestLetterPageMatchesEncoder holds writeLetterPage to the bytes the
// response encoder writes for the same page.
func TestLetterPageMatchesEncoder(t *testing.T) {
	tricky := "<b>&\u2028\xff"
	l := &lettershop.Letter{ID: "ltr_1", Status: "queued", Description: tricky, Metadata: lettershop.Metadata{{Key: tricky, Value: "v"}}}
	for i, page := range []lettershop.Page[*lettershop.Letter]{
		{},
		{Items: []*lettershop.Letter{}},
		{Items: []*lettershop.Letter{l}},
		{Items: []*lettershop.Letter{l, nil, l}, NextToken: "tok_" + tricky},
		{NextToken: "abc"},
	} {
		rec := httptest.NewRecorder()
		writeLetterPage(rec, page)
		if want := marshalJSON(page); !bytes.Equal(rec.Body.Bytes(), want) {
			t.Errorf("page %d:\n got %s\nwant %s", i, rec.Body.Bytes(), want)
		}
	}
}

// BenchmarkLetterPage writes a page of 100 letters as served, and through
// the general response encoder, in the same run.
func BenchmarkLetterPage(b *testing.B) {
	name := "Marge"
	page := lettershop.Page[*lettershop.Letter]{NextToken: "next"}
	for range 100 {
		l := &lettershop.Letter{ID: "ltr_01kjqh0cc0abyzr1s1gch2evrn", Status: "queued", URL: "https://lettershop.test/letters/ltr_01kjqh0cc0abyzr1s1gch2evrn/download",
			Variables: []lettershop.Variable{{Name: "name", Value: &name}}, Metadata: lettershop.Metadata{{Key: "campaign", Value: "spring"}}}
		l.Recipient.Address = lettershop.Address{AddressLine1: "742 Evergreen Terrace", LastLine: "Springfield, OR 97403"}
		l.Sender.Address = lettershop.Address{AddressLine1: "1600 Pennsylvania Avenue NW", LastLine: "Washington, DC 20500"}
		page.Items = append(page.Items, l)
	}
	for _, c := range []struct {
		name  string
		write func(http.ResponseWriter)
	}{
		{"served", func(w http.ResponseWriter) { writeLetterPage(w, page) }},
		{"encoder", func(w http.ResponseWriter) { writeJSON(w, http.StatusOK, page) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.write(httptest.NewRecorder())
			}
		})
	}
}
