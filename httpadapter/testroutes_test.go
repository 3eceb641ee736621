package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
)

type clockBody struct {
	Now string `json:"now"`
}

func TestTestRoutesOff(t *testing.T) {
	ts := newTestServer(t, withoutTestRoutes())
	for _, r := range []req{
		{Method: "GET", Path: "/_test/clock"},
		{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"72h"}`},
		{Method: "POST", Path: "/_test/letters/ltr_1/advance", Body: `{"status":"mailed"}`},
		{Method: "POST", Path: "/_test/moves", Body: `{}`},
		{Method: "GET", Path: "/v1/_test/clock"},
	} {
		ts.do(t, r).problem(t, http.StatusNotFound)
	}
	if !ts.Clock.Now().Equal(testStart) {
		t.Errorf("the clock moved to %v", ts.Clock.Now())
	}
}

func TestClockRoutes(t *testing.T) {
	ts := newTestServer(t)
	var c clockBody
	ts.get(t, "/_test/clock").wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "2026-03-02T15:00:00Z" {
		t.Errorf("now %q, want the start", c.Now)
	}
	// Test routes are only under /_test/, not /v1.
	ts.get(t, "/v1/_test/clock").problem(t, http.StatusNotFound)

	bad := []struct {
		body string
		want string
	}{
		{`{}`, "duration"},
		{`{"duration":""}`, "duration"},
		{`{"duration":"3 days"}`, "duration"},
		{`{"duration":"-1h"}`, "duration"},
		{`{"duration":72}`, "duration"},
		{`{"duration":"1h","by":"me"}`, "by"},
		{``, "body"},
	}
	for _, tt := range bad {
		t.Run(tt.body, func(t *testing.T) {
			ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: tt.body}).
				problem(t, http.StatusBadRequest).wantFields(t, tt.want)
		})
	}
	ts.do(t, req{Method: "GET", Path: "/_test/clock", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusUnauthorized)
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`, Header: hdr("X-Api-Key", "nope")}).
		problem(t, http.StatusUnauthorized)
	if !ts.Clock.Now().Equal(testStart) {
		t.Fatalf("refused requests moved the clock to %v", ts.Clock.Now())
	}

	res := ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"72h"}`})
	if !ts.Clock.Now().Equal(testStart.Add(72 * time.Hour)) {
		t.Errorf("clock at %v after advancing 72h", ts.Clock.Now())
	}
	ts.get(t, "/_test/clock").wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "2026-03-05T15:00:00Z" {
		t.Errorf("GET now %q after 72h", c.Now)
	}
	res.wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "2026-03-05T15:00:00Z" {
		t.Errorf("advance answered now %q", c.Now)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"0s"}`}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h30m"}`}).wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "2026-03-05T16:30:00Z" {
		t.Errorf("now %q after another 1h30m", c.Now)
	}
}

// The clock goes as far as 9999-01-01 and no further: past the year 9999
// no answer with a time in it could be written. A refused advance leaves
// the clock where it was.
func TestClockAdvanceLimit(t *testing.T) {
	ts := newTestServer(t)
	last := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	ts.Clock.Set(last.Add(-time.Hour))
	var c clockBody
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`}).wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "9999-01-01T00:00:00Z" {
		t.Errorf("now %q, want the last time", c.Now)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1ns"}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "duration")
	if !ts.Clock.Now().Equal(last) {
		t.Errorf("a refused advance moved the clock to %v", ts.Clock.Now())
	}
	// The server still answers with times.
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"late"}`}).wantStatus(t, http.StatusCreated)
	ts.get(t, "/_test/clock").wantStatus(t, http.StatusOK)
}

// Moving the clock moves letters: what fell due has run by the time the
// advance answers.
func TestClockAdvanceMovesLetters(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"720h"}`}).wantStatus(t, http.StatusOK)
	var got lettershop.Letter
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status == lettershop.StatusQueued || len(got.Events) < 2 {
		t.Errorf("after 30 days the letter is %q with %d events", got.Status, len(got.Events))
	}
}

func TestAdvanceLetter(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	path := "/_test/letters/" + l.ID + "/advance"

	ts.do(t, req{Method: "POST", Path: "/_test/letters/ast_1/advance", Body: `{"status":"mailed"}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "id")
	ts.do(t, req{Method: "POST", Path: path, Body: `{"status":"mailed","when":"now"}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "when")
	ts.do(t, req{Method: "POST", Path: path, Body: `{"status":true}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "status")

	var got lettershop.Letter
	ts.do(t, req{Method: "POST", Path: path, Body: `{"status":"mailed"}`}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusMailed {
		t.Errorf("status %q, want mailed", got.Status)
	}
	ts.do(t, req{Method: "POST", Path: path, Body: `{"event":"delivered"}`}).wantStatus(t, http.StatusOK).decode(t, &got)
	if last := got.Events[len(got.Events)-1]; last.Type != "tracking" || last.Status != "delivered" {
		t.Errorf("last event %+v, want tracking delivered", last)
	}
	// In its key's account only.
	ts.do(t, req{Method: "POST", Path: path, Body: `{"event":"delivered"}`, Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusNotFound)
}

func TestRegisterMove(t *testing.T) {
	ts := newTestServer(t)
	ts.do(t, req{Method: "POST", Path: "/_test/moves", Body: `{"from":{"addressLine1":"1 A St"},"to":"nowhere"}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "to")
	move := map[string]any{
		"name": "Jane Doe",
		"from": map[string]any{"addressLine1": "200 Oak Ave", "lastLine": "Chicago, IL 60601"},
		"to":   map[string]any{"addressLine1": "9 Elm St", "lastLine": "Evanston, IL 60201"},
	}
	ts.do(t, req{Method: "POST", Path: "/_test/moves", Body: move}).wantStatus(t, http.StatusNoContent)

	// A letter to the old address with NCOA goes to the new one, in the
	// account that registered the move only.
	ncoa := func(key string) lettershop.Letter {
		assetID, _ := ts.createAsset(t, key)
		b := letterBody(assetID)
		b["options"] = map[string]any{"addressProcessing": map[string]any{
			"cassRecipient": map[string]any{"type": "basic"}, "ncoaRecipient": "newAddress",
		}}
		var l lettershop.Letter
		ts.do(t, req{Method: "POST", Path: "/letters", Body: b, Header: hdr("X-Api-Key", key)}).wantStatus(t, http.StatusCreated).decode(t, &l)
		return l
	}
	if l := ncoa(keyA); !strings.Contains(strings.ToUpper(l.Recipient.Address.AddressLine1), "ELM") {
		t.Errorf("the moved recipient was not forwarded: %+v", l.Recipient.Address)
	}
	if l := ncoa(keyB); strings.Contains(strings.ToUpper(l.Recipient.Address.AddressLine1), "ELM") {
		t.Errorf("another account's move forwarded the recipient: %+v", l.Recipient.Address)
	}
}

// The test routes that change state take letters:write; reading the clock
// takes any key.
func TestTestRouteScopes(t *testing.T) {
	ts := scopedServer(t)
	assetID, _ := ts.createAsset(t, "full")
	l := ts.createLetter(t, "full", assetID)
	move := `{"name":"Jane Doe","from":{"addressLine1":"1 A St","lastLine":"Chicago, IL 60601"},"to":{"addressLine1":"2 B St","lastLine":"Chicago, IL 60601"}}`
	writes := []req{
		{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`},
		{Method: "POST", Path: "/_test/letters/" + l.ID + "/advance", Body: `{"status":"ready"}`},
		{Method: "POST", Path: "/_test/moves", Body: move},
	}
	for _, r := range writes {
		r.Header = hdr("X-Api-Key", "reader")
		ts.do(t, r).problem(t, http.StatusForbidden)
	}
	if !ts.Clock.Now().Equal(testStart) {
		t.Fatalf("a read-only key moved the clock to %v", ts.Clock.Now())
	}
	var got lettershop.Letter
	ts.do(t, req{Method: "GET", Path: "/letters/" + l.ID, Header: hdr("X-Api-Key", "full")}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusQueued {
		t.Fatalf("a read-only key moved the letter to %s", got.Status)
	}
	ts.do(t, req{Method: "GET", Path: "/_test/clock", Header: hdr("X-Api-Key", "reader")}).wantStatus(t, http.StatusOK)
	want := []int{http.StatusOK, http.StatusOK, http.StatusNoContent}
	for i, r := range writes {
		r.Header = hdr("X-Api-Key", "letters")
		ts.do(t, r).wantStatus(t, want[i])
	}
}
