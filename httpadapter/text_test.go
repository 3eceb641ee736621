package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// rawLetter returns a letter request for assetID, as JSON text, with the
// recipient's first name and the description written raw: what is put
// there reaches the body unescaped.
func rawLetter(t *testing.T, assetID, firstName, description string) []byte {
	t.Helper()
	b := letterBody(assetID)
	b["recipient"].(map[string]any)["individual"].(map[string]any)["firstName"] = "@FIRST@"
	b["description"] = "@DESC@"
	j, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(j), "@FIRST@", firstName, 1)
	return []byte(strings.Replace(s, "@DESC@", description, 1))
}

// Text that is not valid UTF-8, sent raw or as an unpaired surrogate
// escape, is refused with a 400 naming the field, and nothing is stored.
func TestInvalidTextRefused(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	for _, tt := range []struct {
		name, first, desc string
		fields            []string
	}{
		{"raw invalid byte", "Ja\xffne", "d", []string{"recipient.individual.firstName"}},
		{"truncated sequence", "Jane", "caf\xc3", []string{"description"}},
		{"lone high surrogate", `Jane`, `x\ud800y`, []string{"description"}},
		{"high surrogate at the end", `Jane\ud83d`, `d`, []string{"recipient.individual.firstName"}},
		{"lone low surrogate", `\udc00Jane`, `d`, []string{"recipient.individual.firstName"}},
		{"high then non-low", `Jane`, `\ud83d\u0041`, []string{"description"}},
		{"both fields", "J\xe2\x82", `\udfff`, []string{"recipient.individual.firstName", "description"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts.do(t, req{Method: "POST", Path: "/letters", Body: rawLetter(t, assetID, tt.first, tt.desc)}).
				problem(t, http.StatusBadRequest).wantFields(t, tt.fields...)
		})
	}
	var page struct{ Items []json.RawMessage }
	ts.get(t, "/letters").wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 0 {
		t.Errorf("%d letters stored from refused requests", len(page.Items))
	}

	// Valid text, escaped or raw, including a surrogate pair, is taken as sent.
	ts.do(t, req{Method: "POST", Path: "/letters", Body: rawLetter(t, assetID, `J\u00e9r\u00f4me \ud83d\ude00`, "caf\xc3\xa9 \xf0\x9f\x98\x80")}).
		wantStatus(t, http.StatusCreated)
	var l struct {
		Description string
		Recipient   struct{ Individual struct{ FirstName string } }
	}
	res := ts.do(t, req{Method: "POST", Path: "/letters", Body: rawLetter(t, assetID, `\ud83d\ude00`, "\xf0\x9f\x98\x80")}).wantStatus(t, http.StatusCreated)
	res.decode(t, &l)
	if l.Description != "😀" || l.Recipient.Individual.FirstName != "😀" {
		t.Errorf("stored %q and %q, want the emoji twice", l.Description, l.Recipient.Individual.FirstName)
	}

	// Member names, arrays and other resources are checked alike.
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"ok","metadata":[{"key":"k","value":"v\ud800"}]}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "metadata[0].value")
	ts.do(t, req{Method: "POST", Path: "/assets", Body: "{\"name\":\"ok\",\"n\xffme\":1}"}).
		problem(t, http.StatusBadRequest)
	ts.do(t, req{Method: "PUT", Path: "/assets/" + assetID, Body: "{\"name\":\"\xc0\xaf\"}"}).
		problem(t, http.StatusBadRequest).wantFields(t, "name")

	// So are query parameters.
	ts.get(t, "/letters?externalId=%FF").problem(t, http.StatusBadRequest).wantFields(t, "externalId")
	ts.get(t, "/letters?metadata[campaign]=%ED%A0%80").problem(t, http.StatusBadRequest).wantFields(t, "metadata[campaign]")
}

// A NUL in a query parameter is refused as it is in a body, on every route
// that reads a query: in the value, and in the name.
// A member given twice in one object, at any depth, is refused with a 400
// naming it, whichever value a decoder would take; nothing is stored. The
// same names in different objects are no repeat.
func TestMemberGivenTwiceRefused(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	body := func(edit func(s string) string) []byte {
		j, err := json.Marshal(letterBody(assetID))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(edit(string(j)))
	}
	for _, tt := range []struct {
		name   string
		edit   func(s string) string
		fields []string
	}{
		{"top level", func(s string) string {
			return strings.Replace(s, `{`, `{"useType":"marketing",`, 1)
		}, []string{"useType"}},
		{"nested", func(s string) string {
			return strings.Replace(s, `"addressLine1":"100 Main St"`, `"addressLine1":"100 Main St","addressLine1":"1 Elm St"`, 1)
		}, []string{"sender.address.addressLine1"}},
		{"in an array's element", func(s string) string {
			return strings.Replace(s, `"name":"name"`, `"name":"name","name":"other"`, 1)
		}, []string{"variables[0].name"}},
		{"spelled with an escape", func(s string) string {
			return strings.Replace(s, `{`, `{"use\u0054ype":"marketing",`, 1)
		}, []string{"useType"}},
		{"twice in two objects", func(s string) string {
			return strings.Replace(strings.Replace(s, `"value":"spring"`, `"value":"spring","value":"summer"`, 1),
				`"lastName":"Doe"`, `"lastName":"Doe","lastName":"Roe"`, 1)
		}, []string{"metadata[0].value", "recipient.individual.lastName"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := ts.do(t, req{Method: "POST", Path: "/letters", Body: body(tt.edit)}).problem(t, http.StatusBadRequest)
			p.wantFields(t, tt.fields...)
			if msg := p.Errors[tt.fields[0]]; !strings.Contains(msg, "more than once") {
				t.Errorf("message %q does not say the member is given more than once", msg)
			}
		})
	}
	var page struct{ Items []json.RawMessage }
	ts.get(t, "/letters").wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 0 {
		t.Errorf("%d letters stored from refused requests", len(page.Items))
	}
	// One name in two objects (sender and recipient hold address), and in
	// two elements of an array, is taken.
	ts.do(t, req{Method: "POST", Path: "/letters", Body: body(func(s string) string {
		return strings.Replace(s, `"value":"spring"}`, `"value":"spring"},{"key":"batch","value":"7"}`, 1)
	})}).wantStatus(t, http.StatusCreated)
}

func TestQueryRefusesNUL(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/letters?externalId=%00", "/letters?externalId=a%00b", "/assets?metadata[a]=%00",
		"/letters?metadata[a]=x%00", "/webhooks?pageSize=1%00"} {
		p := ts.get(t, path).problem(t, http.StatusBadRequest)
		if len(p.Errors) != 1 {
			t.Errorf("%s: errors %v, want the parameter named", path, p.Errors)
		}
		for _, msg := range p.Errors {
			if !strings.Contains(msg, "NUL") {
				t.Errorf("%s: message %q does not say what is wrong", path, msg)
			}
		}
	}
	ts.get(t, "/letters?metadata[a%00]=x").problem(t, http.StatusBadRequest)
	// The character next to NUL is text like any other.
	ts.get(t, "/letters?externalId=%01").wantStatus(t, http.StatusOK)
}
