package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
)

// echoBound is the most an answer to a request with one bad value may
// take, however large the value.
const echoBound = 2 << 10

// TestErrorsQuoteACutPrefix: a bad value of 900 KB in any field whose
// message quotes it gives an answer of a few hundred bytes, which names
// the field and quotes the value's first characters and its length.
func TestErrorsQuoteACutPrefix(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	huge := strings.Repeat("x", 900_000)
	shown := `"` + strings.Repeat("x", 32) + `…" (900000 bytes)`
	letter := func(set func(b map[string]any)) map[string]any {
		b := letterBody(assetID)
		set(b)
		return b
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		field              string
		// quoted is what the message quotes of the value; shown when empty.
		quoted string
	}{
		{"useType", "POST", "/letters", letter(func(b map[string]any) { b["useType"] = huge }), "useType", ""},
		{"sendDate", "POST", "/letters", letter(func(b map[string]any) { b["sendDate"] = huge }), "sendDate", ""},
		{"mail service", "POST", "/letters", letter(func(b map[string]any) {
			b["options"] = map[string]any{"mail": map[string]any{"service": huge}}
		}), "options.mail.service", ""},
		{"deliverabilityThreshold", "POST", "/letters", letter(func(b map[string]any) {
			b["options"] = map[string]any{"deliverabilityThreshold": huge}
		}), "options.deliverabilityThreshold", ""},
		{"city", "POST", "/letters", letter(func(b map[string]any) {
			b["sender"].(map[string]any)["address"] = map[string]any{"addressLine1": "100 Main St", "lastLine": "Springfield, IL 62701", "city": huge}
		}), "sender.address", ""},
		{"metadata member", "POST", "/letters", letter(func(b map[string]any) {
			b["metadata"] = []map[string]any{{"key": "k", "value": "v", huge: "v"}}
		}), "metadata[0]", `"` + strings.Repeat("x", 32) + `…" (900000 bytes)`},
		{"webhook url", "POST", "/webhooks", map[string]any{"url": "http://" + huge[:2000] + "#x"}, "url", `"http://` + strings.Repeat("x", 25) + `…" (2009 bytes)`},
		{"webhook events", "POST", "/webhooks", map[string]any{"url": "https://example.com/hook", "events": []string{huge}}, "events[0]", ""},
		{"asset type", "POST", "/assets/{asset}/versions", map[string]any{"content": map[string]any{"type": huge, "data": "aGk="}}, "content.type", ""},
		{"clock duration", "POST", "/_test/clock/advance", map[string]any{"duration": "-" + strings.Repeat("0", 899_990) + "1h"}, "duration", `"-` + strings.Repeat("0", 31) + `…" (899993 bytes)`},
		{"fault method", "POST", "/_test/faults", map[string]any{"method": huge, "path": "/letters", "status": 500}, "method", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := strings.ReplaceAll(tc.path, "{asset}", assetID)
			res := ts.do(t, req{Method: tc.method, Path: path, Body: tc.body, Header: hdr("Idempotency-Key", "echo-"+tc.name)})
			res.wantStatus(t, http.StatusBadRequest)
			if len(res.Body) > echoBound {
				t.Fatalf("the answer takes %d bytes, want at most %d: %.300s", len(res.Body), echoBound, res.Body)
			}
			var p struct {
				Errors map[string]string `json:"errors"`
			}
			if err := json.Unmarshal(res.Body, &p); err != nil {
				t.Fatal(err)
			}
			msg, ok := p.Errors[tc.field]
			if !ok {
				t.Fatalf("no error at %s: %s", tc.field, res.Body)
			}
			want := tc.quoted
			if want == "" {
				want = shown
			}
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %.300s; want it to quote %s", tc.field, msg, want)
			}
		})
	}
}

// TestErrorQuotesAShortValueWhole: the cut starts one character past
// echo.MaxRunes (32); a value of that length is quoted whole.
func TestErrorQuotesAShortValueWhole(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	for _, n := range []int{32, 33} {
		b := letterBody(assetID)
		v := strings.Repeat("u", n)
		b["useType"] = v
		var p struct {
			Errors map[string]string `json:"errors"`
		}
		ts.do(t, req{Method: "POST", Path: "/letters", Body: b}).wantStatus(t, http.StatusBadRequest).decode(t, &p)
		want := fmt.Sprintf("got %q", v)
		if n > 32 {
			want = fmt.Sprintf(`got "%s…" (%d bytes)`, v[:32], n)
		}
		if msg := p.Errors["useType"]; !strings.HasSuffix(msg, want) {
			t.Errorf("%d characters: %q, want it to end %q", n, msg, want)
		}
	}
}

// TestErrorsAreBoundedInNumberAndLength: a body of many unknown members,
// each with a long name, is answered with at most MaxFieldErrors fields,
// each path and message cut to its bound.
func TestErrorsAreBoundedInNumberAndLength(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	b := letterBody(assetID)
	for i := range 2000 {
		b[fmt.Sprintf("%04d%s", i, strings.Repeat("n", 400))] = 1
	}
	res := ts.do(t, req{Method: "POST", Path: "/letters", Body: b}).wantStatus(t, http.StatusBadRequest)
	var p struct {
		Detail string            `json:"detail"`
		Errors map[string]string `json:"errors"`
	}
	res.decode(t, &p)
	if len(p.Errors) != lettershop.MaxFieldErrors {
		t.Errorf("%d field errors, want %d", len(p.Errors), lettershop.MaxFieldErrors)
	}
	for k, v := range p.Errors {
		if len(k) > lettershop.MaxFieldPath || len(v) > lettershop.MaxFieldMessage {
			t.Errorf("field %.40s… (%d bytes): message of %d bytes; want at most %d and %d", k, len(k), len(v), lettershop.MaxFieldPath, lettershop.MaxFieldMessage)
		}
	}
	if _, ok := p.Errors["0000"+strings.Repeat("n", lettershop.MaxFieldPath-4-3)+"…"]; !ok {
		t.Errorf("the first unknown member is not among the fields shown, cut to %d bytes", lettershop.MaxFieldPath)
	}
	if max := 2 * lettershop.MaxFieldErrors * (lettershop.MaxFieldPath + lettershop.MaxFieldMessage + 8); len(res.Body) > max {
		t.Errorf("the answer takes %d bytes, want at most %d", len(res.Body), max)
	}
}
