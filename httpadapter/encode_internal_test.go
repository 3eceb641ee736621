package httpadapter

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/wire"
)

// TestMarshalJSONMatchesEncodingJSON holds the response encoder to the
// bytes encoding/json writes, on the characters where encoders differ:
// HTML, line and paragraph separators, invalid UTF-8, control characters,
// and on map order and times (as answers show them: shownTimes).
func TestMarshalJSONMatchesEncodingJSON(t *testing.T) {
	tricky := "<b>Dear & \"friend\"</b>\u2028\u2029\x00\x1f\xff\xfe café \U0001F600 \\ /"
	when := time.Date(2026, 3, 2, 15, 4, 5, 123456789, time.FixedZone("x", -5*3600))
	code := 502
	hook := &lettershop.Webhook{
		ID: "wh_" + tricky, URL: "https://x.test/a?b=1&c=<2>", Description: tricky, CreatedAt: when, ModifiedAt: when.UTC(),
		Events:   []lettershop.WebhookEventType{lettershop.WebhookLetterCreated, lettershop.WebhookEventType(tricky)},
		Metadata: lettershop.Metadata{{Key: tricky, Value: tricky}, {Key: "a", Value: ""}},
	}
	values := []any{
		hook,
		lettershop.Page[lettershop.Webhook]{Items: []lettershop.Webhook{*hook, *hook}, NextToken: tricky},
		&lettershop.WebhookDelivery{ID: "dlv_1", Error: &tricky, StatusCode: &code, CreatedAt: when, LastAttemptAt: &when},
		problem{Type: "invalid", Title: tricky, Status: 400, Detail: tricky, Errors: map[string]string{"z": tricky, "a": "x", tricky: "<>"}},
		map[string]any{"f": 1.5e-7, "g": 1e21, "h": 123456789.0, "i": []any{nil, true, "x"}},
		healthState{Status: "ok"},
	}
	for i, v := range values {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(shownTimes(v)); err != nil {
			t.Fatal(err)
		}
		if got := marshalJSON(v); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("value %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
}

// TestLetterRoutesWriteTheEncoderBytes holds the letter routes, which
// write the encodings package wire keeps, to the bytes wire writes for what
// GetLetter and ListLetters return, followed by a newline as the response
// encoder writes it. (wire holds its bytes to encoding/json's.)
func TestLetterRoutesWriteTheEncoderBytes(t *testing.T) {
	svc := lettershop.New(memstore.New(), lettershop.WithBaseURL("https://lettershop.test"))
	defer svc.Close()
	srv := httptest.NewServer(New(svc, WithRateLimit(0, 0)))
	defer srv.Close()
	const key = "sk_test_encode"
	do := func(method, path, body string) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("X-Api-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
		return b
	}
	var asset struct{ ID string }
	_ = json.Unmarshal(do("POST", "/v1/assets", `{"name":"A <&>","type":"template"}`), &asset)
	do("POST", "/v1/assets/"+asset.ID+"/versions", `{"content":{"type":"text/html","content":"<p>Hi {{name}}</p>"},"publish":true}`)
	account := SandboxAccount(key)
	var ids []string
	for i := range 3 {
		cass := ""
		if i != 1 {
			cass = `,"options":{"addressProcessing":{"cassRecipient":{"type":"basic"}}}`
		}
		var l struct{ ID string }
		_ = json.Unmarshal(do("POST", "/v1/letters", `{"sender":{"organization":"Acme <&>","address":{"addressLine1":"100 Main St","lastLine":"Springfield, IL 62701"}},`+
			`"recipient":{"individual":{"firstName":"Jane","lastName":"Doe"},"address":{"addressLine1":"200 Oak Ave","lastLine":"Chicago, IL 60601"}},`+
			`"content":{"type":"asset","assetId":"`+asset.ID+`"},"useType":"marketing","metadata":[{"key":"k","value":"\u2028<>"}]`+cass+`}`), &l)
		ids = append(ids, l.ID)
	}
	for range 2 { // the second time from the encodings kept
		for _, id := range ids {
			l, err := svc.GetLetter(t.Context(), account, id)
			if err != nil {
				t.Fatal(err)
			}
			want, err := wire.Letter(l)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := do("GET", "/v1/letters/"+id, ""), append(want, '\n'); !bytes.Equal(got, want) {
				t.Errorf("GET %s:\n got %s\nwant %s", id, got, want)
			}
		}
		for _, q := range []struct {
			query string
			in    lettershop.ListLettersInput
		}{
			{"", lettershop.ListLettersInput{}},
			{"?pageSize=2", lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 2}}},
			{"?includeCassDetails=true&pageSize=1", lettershop.ListLettersInput{IncludeCassDetails: true, PageRequest: lettershop.PageRequest{PageSize: 1}}},
			{"?status=mailed", lettershop.ListLettersInput{Status: lettershop.StatusMailed}},
		} {
			p, err := svc.ListLetters(t.Context(), account, q.in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := wire.AppendLetterPage(nil, p)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := do("GET", "/v1/letters"+q.query, ""), append(want, '\n'); !bytes.Equal(got, want) {
				t.Errorf("GET /v1/letters%s:\n got %s\nwant %s", q.query, got, want)
			}
		}
	}
}
