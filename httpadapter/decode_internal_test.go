package httpadapter

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
)

// shapes exercises every kind checkShape knows, beyond what the API's input
// types use today.
type shapes struct {
	Name    string            `json:"name"`
	Count   int               `json:"count"`
	Small   uint8             `json:"small"`
	Ratio   float64           `json:"ratio"`
	On      bool              `json:"on"`
	Tags    []string          `json:"tags"`
	Pair    [2]int            `json:"pair"`
	Labels  map[string]string `json:"labels"`
	Any     any               `json:"any"`
	Inner   *shapesInner      `json:"inner"`
	When    time.Time         `json:"when"`
	Since   *time.Time        `json:"since"`
	Skipped string            `json:"-"`
	Untaggd string
	shapesEmbedded
	//lint:ignore U1000 an unexported field, there for the decoder to leave alone
	hidden string
}

type shapesInner struct {
	Deep []shapesInner `json:"deep"`
	Leaf string        `json:"leaf,omitempty"`
}

type shapesEmbedded struct {
	Flat string `json:"flat"`
}

func TestDecodeJSONShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		want map[string]string
	}{
		{"all good", `{"name":"n","count":3,"small":7,"ratio":0.5,"on":true,"tags":["a"],"pair":[1,2],
			"labels":{"k":"v"},"any":{"x":[1]},"inner":{"deep":[{"leaf":"l"}]},"Untaggd":"u","flat":"f"}`, nil},
		{"nulls everywhere", `{"name":null,"count":null,"tags":null,"inner":null,"labels":{"k":null}}`, nil},
		{"numbers", `{"count":1.5,"small":"7","ratio":"half"}`, map[string]string{
			"count": "must be an integer, got 1.5", "small": "must be an integer, got a string", "ratio": "must be a number, got a string"}},
		{"containers", `{"tags":"a","pair":{},"labels":[],"inner":[]}`, map[string]string{
			"tags": "must be an array, got a string", "pair": "must be an array, got an object",
			"labels": "must be an object, got an array", "inner": "must be an object, got an array"}},
		{"deep paths", `{"tags":[1],"labels":{"k":false},"inner":{"deep":[{},{"leaf":2,"stem":1}]}}`, map[string]string{
			"tags[0]": "must be a string, got a number", "labels.k": "must be a string, got a boolean",
			"inner.deep[1].leaf": "must be a string, got a number", "inner.deep[1].stem": "unknown field"}},
		{"names are exact", `{"Name":"n","skipped":"s","Skipped":"s","hidden":"h","untaggd":"u"}`, map[string]string{
			"Name":    "unknown field; names are case-sensitive: did you mean name?",
			"untaggd": "unknown field; names are case-sensitive: did you mean Untaggd?",
			"skipped": "unknown field", "Skipped": "unknown field", "hidden": "unknown field"}},
		{"empty names", `{"":1,"inner":{"":2,"deep":[{"":3}]}}`, map[string]string{
			`""`: "unknown field", `inner.""`: "unknown field", `inner.deep[0].""`: "unknown field"}},
		{"bool", `{"on":"true"}`, map[string]string{"on": "must be true or false, got a string"}},
		{"times", `{"when":"2026-03-02T10:00:00.5-05:00","since":"2026-03-02T15:00:00Z"}`, nil},
		{"bad times", `{"when":"yesterday","since":1}`, map[string]string{
			"when":  "must be a date-time in RFC 3339 form (2026-03-02T15:00:00Z)",
			"since": "must be a date-time in RFC 3339 form (2026-03-02T15:00:00Z)"}},
		{"top level", `"text"`, map[string]string{"body": "must be an object, got a string"}},
		{"truncated", `{"name":`, map[string]string{"body": "malformed JSON: the body ends in the middle of a JSON value"}},
		{"syntax", "{\n\"name\": \"n\",\n}", map[string]string{"body": "malformed JSON: invalid character '}' looking for beginning of object key string (line 3, byte 16)"}},
		{"trailing", `{} x`, map[string]string{"body": "malformed JSON: more than one JSON value"}},
		{"empty", " \n", map[string]string{"body": "a JSON object is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst shapes
			err := decodeJSON([]byte(tt.body), &dst)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *lettershop.Error
			if !errors.As(err, &e) || e.Code != lettershop.CodeInvalid {
				t.Fatalf("error %v, want an invalid-request error", err)
			}
			if diff := cmp.Diff(tt.want, e.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
	var dst shapes
	if err := decodeJSON([]byte(`{"name":"n","flat":"f","inner":{"deep":[{"leaf":"l"}]}}`), &dst); err != nil {
		t.Fatal(err)
	}
	if dst.Name != "n" || dst.Flat != "f" || dst.Inner.Deep[0].Leaf != "l" {
		t.Errorf("decoded %+v", dst)
	}
}

func TestStoredResponse(t *testing.T) {
	resp := response{status: 201, contentType: "application/json", location: "/v1/letters/ltr_1", body: []byte("{\"a\":\"\\n\\n\"}\n\n")}
	got, err := parseResponse(resp.marshal())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(resp, got, cmp.AllowUnexported(response{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	empty := response{status: 204}
	if got, err := parseResponse(empty.marshal()); err != nil || got.status != 204 || len(got.body) != 0 {
		t.Errorf("204 round trip: %+v, %v", got, err)
	}
	for _, bad := range []string{
		"",
		"lettershop-response/1 201\nContent-Type: x",
		"lettershop-response/2 201\n\n{}",
		"lettershop-response/1 abc\n\n",
		"lettershop-response/1 999\n\n",
		"lettershop-response/1 200\nX-Other: y\n\n",
	} {
		if _, err := parseResponse([]byte(bad)); err == nil {
			t.Errorf("parseResponse(%q) accepted it", bad)
		}
	}
}

func TestSafeFileName(t *testing.T) {
	for in, want := range map[string]string{
		"ltr_01abc.pdf":          "ltr_01abc.pdf",
		`a"b\c.pdf`:              "abc.pdf",
		"x\r\nSet-Cookie: y.pdf": "xSet-Cookiey.pdf",
		strings.Repeat("é", 2):   "",
	} {
		if got := safeFileName(in); got != want {
			t.Errorf("safeFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnderShapeProblem: a problem is the shape's when its path is a shape
// problem's or under it, by member or element, and only then.
func TestUnderShapeProblem(t *testing.T) {
	shape := map[string]string{"recipient": "", "variables[0]": "", "options.mail": ""}
	for path, want := range map[string]bool{
		"recipient": true, "recipient.address.addressLine1": true, "variables[0].name": true,
		"options.mail.service": true, "options.mail.extraServices[1]": true,
		"recipientX": false, "sender": false, "variables[1].name": false, "variables[name]": false,
		"variables": false, "options": false, "options.print": false, "": false,
	} {
		if got := underShapeProblem(path, shape); got != want {
			t.Errorf("underShapeProblem(%q) = %v, want %v", path, got, want)
		}
	}
}
