package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/internal/pdftext"
)

type clockBody struct {
	Now    string `json:"now"`
	Frozen bool   `json:"frozen"`
	Shared bool   `json:"shared"`
}

// clockOf reads the clock of key's account.
func (ts *testServer) clockOf(t testing.TB, key string) clockBody {
	t.Helper()
	var c clockBody
	ts.do(t, req{Method: "GET", Path: "/_test/clock", Header: hdr("X-Api-Key", key)}).wantStatus(t, http.StatusOK).decode(t, &c)
	return c
}

func TestTestRoutesOff(t *testing.T) {
	ts := newTestServer(t, withoutTestRoutes())
	for _, r := range []req{
		{Method: "GET", Path: "/_test/clock"},
		{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"72h"}`},
		{Method: "POST", Path: "/_test/clock/set", Body: `{"now":"2030-01-01T00:00:00Z"}`},
		{Method: "POST", Path: "/_test/clock/freeze"},
		{Method: "POST", Path: "/_test/clock/unfreeze"},
		{Method: "POST", Path: "/_test/letters/ltr_1/advance", Body: `{"status":"mailed"}`},
		{Method: "POST", Path: "/_test/letters/ltr_1/await", Body: `{"status":"mailed"}`},
		{Method: "GET", Path: "/_test/letters/ltr_1/text"},
		{Method: "POST", Path: "/_test/moves", Body: `{}`},
		{Method: "POST", Path: "/_test/webhooks/settle"},
		{Method: "DELETE", Path: "/_test/account"},
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
	if c := ts.clockOf(t, keyA); c != (clockBody{Now: "2026-03-02T15:00:00Z"}) {
		t.Errorf("clock %+v, want the start, not frozen, not shared", c)
	}
	// Test routes are only under /_test/, not /v1.
	ts.get(t, "/v1/_test/clock").problem(t, http.StatusNotFound)

	bad := []struct {
		path, body string
		want       string
	}{
		{"advance", `{}`, "duration"},
		{"advance", `{"duration":""}`, "duration"},
		{"advance", `{"duration":"3 days"}`, "duration"},
		{"advance", `{"duration":"-1h"}`, "duration"},
		{"advance", `{"duration":72}`, "duration"},
		{"advance", `{"duration":"1h","by":"me"}`, "by"},
		{"advance", ``, "body"},
		{"set", `{}`, "now"},
		{"set", `{"now":"tomorrow"}`, "now"},
		{"set", `{"now":"2026-03-02T14:59:59.999Z"}`, "now"},
		{"set", `{"now":"9999-01-01T00:00:00.001Z"}`, "now"},
		{"set", `{"now":"2026-03-03T00:00:00Z","zone":"UTC"}`, "zone"},
	}
	for _, tt := range bad {
		t.Run(tt.path+" "+tt.body, func(t *testing.T) {
			ts.do(t, req{Method: "POST", Path: "/_test/clock/" + tt.path, Body: tt.body}).
				problem(t, http.StatusBadRequest).wantFields(t, tt.want)
		})
	}
	ts.do(t, req{Method: "GET", Path: "/_test/clock", Header: hdr("X-Api-Key", "")}).problem(t, http.StatusUnauthorized)
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`, Header: hdr("X-Api-Key", "nope")}).
		problem(t, http.StatusUnauthorized)
	if c := ts.clockOf(t, keyA); c.Now != "2026-03-02T15:00:00Z" {
		t.Fatalf("refused requests moved the clock to %v", c.Now)
	}

	var c clockBody
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"72h"}`}).wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "2026-03-05T15:00:00Z" {
		t.Errorf("advance answered now %q", c.Now)
	}
	if c := ts.clockOf(t, keyA); c.Now != "2026-03-05T15:00:00Z" {
		t.Errorf("GET now %q after 72h", c.Now)
	}
	// Only the caller's account moved.
	if c := ts.clockOf(t, keyB); c.Now != "2026-03-02T15:00:00Z" {
		t.Errorf("another account's clock reads %q after keyA advanced", c.Now)
	}
	if !ts.Clock.Now().Equal(testStart) {
		t.Errorf("the server's clock moved to %v", ts.Clock.Now())
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"0s"}`}).wantStatus(t, http.StatusOK)
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h30m"}`}).wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "2026-03-05T16:30:00Z" {
		t.Errorf("now %q after another 1h30m", c.Now)
	}
	// Set moves forward to an instant; to the instant it is at is no move.
	ts.do(t, req{Method: "POST", Path: "/_test/clock/set", Body: `{"now":"2026-03-05T16:30:00Z"}`}).wantStatus(t, http.StatusOK).decode(t, &c)
	ts.do(t, req{Method: "POST", Path: "/_test/clock/set", Body: `{"now":"2026-04-01T09:00:00+02:00"}`}).wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "2026-04-01T07:00:00Z" {
		t.Errorf("now %q after set", c.Now)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/set", Body: `{"now":"2026-04-01T06:59:59Z"}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "now")
}

// A frozen account's clock stays put while the server's clock moves; it
// moves when told, and unfrozen it follows the server's clock from where
// it stands, never back.
func TestClockFreeze(t *testing.T) {
	ts := newTestServer(t)
	var c clockBody
	ts.do(t, req{Method: "POST", Path: "/_test/clock/freeze"}).wantStatus(t, http.StatusOK).decode(t, &c)
	if c != (clockBody{Now: "2026-03-02T15:00:00Z", Frozen: true}) {
		t.Errorf("frozen clock %+v", c)
	}
	ts.Clock.Add(2 * time.Hour)
	if c := ts.clockOf(t, keyA); c.Now != "2026-03-02T15:00:00Z" || !c.Frozen {
		t.Errorf("frozen clock moved with the server's to %+v", c)
	}
	if c := ts.clockOf(t, keyB); c.Now != "2026-03-02T17:00:00Z" || c.Frozen {
		t.Errorf("a clock nobody touched reads %+v, want the server's", c)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`}).wantStatus(t, http.StatusOK).decode(t, &c)
	if c.Now != "2026-03-02T16:00:00Z" || !c.Frozen {
		t.Errorf("frozen clock advanced by 1h reads %+v", c)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/unfreeze"}).wantStatus(t, http.StatusOK).decode(t, &c)
	ts.Clock.Add(30 * time.Minute)
	if c := ts.clockOf(t, keyA); c.Now != "2026-03-02T16:30:00Z" || c.Frozen {
		t.Errorf("unfrozen clock reads %+v, want it to follow the server's from where it stood", c)
	}
}

// The clock goes as far as 9999-01-01 and no further: past the year 9999
// no answer with a time in it could be written. A refused advance leaves
// the clock where it was.
func TestClockAdvanceLimit(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(map[bool]string{false: "account", true: "shared"}[shared], func(t *testing.T) {
			var opts []testOption
			if shared {
				opts = append(opts, withAdapter(httpadapter.WithSharedTestClock()))
			}
			ts := newTestServer(t, opts...)
			last := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
			ts.Clock.Set(last.Add(-time.Hour))
			var c clockBody
			ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`}).wantStatus(t, http.StatusOK).decode(t, &c)
			if c.Now != "9999-01-01T00:00:00Z" {
				t.Errorf("now %q, want the last time", c.Now)
			}
			ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1ms"}`}).
				problem(t, http.StatusBadRequest).wantFields(t, "duration")
			if c := ts.clockOf(t, keyA); c.Now != "9999-01-01T00:00:00Z" {
				t.Errorf("a refused advance moved the clock to %v", c.Now)
			}
			// The server still answers with times.
			ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"late"}`}).wantStatus(t, http.StatusCreated)
		})
	}
}

// With WithSharedTestClock the clock routes move the one clock every
// account follows.
func TestSharedClock(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithSharedTestClock()))
	if c := ts.clockOf(t, keyA); c != (clockBody{Now: "2026-03-02T15:00:00Z", Shared: true}) {
		t.Errorf("shared clock %+v", c)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"72h"}`}).wantStatus(t, http.StatusOK)
	if !ts.Clock.Now().Equal(testStart.Add(72 * time.Hour)) {
		t.Errorf("server clock at %v after advancing 72h", ts.Clock.Now())
	}
	if c := ts.clockOf(t, keyB); c.Now != "2026-03-05T15:00:00Z" {
		t.Errorf("another account reads %q, want the shared clock's time", c.Now)
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/set", Body: `{"now":"2026-03-06T00:00:00Z"}`}).wantStatus(t, http.StatusOK)
	if !ts.Clock.Now().Equal(time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("server clock at %v after set", ts.Clock.Now())
	}
	ts.do(t, req{Method: "POST", Path: "/_test/clock/set", Body: `{"now":"2026-03-05T00:00:00Z"}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "now")
	ts.do(t, req{Method: "POST", Path: "/_test/clock/freeze"}).problem(t, http.StatusConflict)
}

// Moves of the shared clock made side by side all count: the clock ends as
// far on as all of them together, never where one left it.
func TestSharedClockMovesTakeTurns(t *testing.T) {
	ts := newTestServer(t, withAdapter(httpadapter.WithSharedTestClock()))
	// A ticker on the clock makes each move stop at its ticks on the way,
	// where moves that did not take turns would undo each other.
	tick := ts.Clock.Ticker(10 * time.Minute)
	defer tick.Stop()
	const movers, moves = 4, 5
	t.Run("movers", func(t *testing.T) {
		for i := range movers {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				for range moves {
					ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"1h"}`}).wantStatus(t, http.StatusOK)
				}
			})
		}
	})
	if got, want := ts.Clock.Now(), testStart.Add(movers*moves*time.Hour); !got.Equal(want) {
		t.Errorf("clock at %s after %d moves of an hour, want %s", got, movers*moves, want)
	}
}

// Moving the clock moves letters: what fell due has run by the time the
// advance answers; another account's letters stay where they were.
func TestClockAdvanceMovesLetters(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	assetB, _ := ts.createAsset(t, keyB)
	lb := ts.createLetter(t, keyB, assetB)
	ts.do(t, req{Method: "POST", Path: "/_test/clock/advance", Body: `{"duration":"720h"}`}).wantStatus(t, http.StatusOK)
	var got lettershop.Letter
	ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status == lettershop.StatusQueued || len(got.Events) < 2 {
		t.Errorf("after 30 days the letter is %q with %d events", got.Status, len(got.Events))
	}
	ts.do(t, req{Method: "GET", Path: "/letters/" + lb.ID, Header: hdr("X-Api-Key", keyB)}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusQueued || len(got.Events) != 1 {
		t.Errorf("another account's letter moved to %q with %d events", got.Status, len(got.Events))
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
	moved := ts.do(t, req{Method: "POST", Path: path, Body: `{"status":"mailed"}`}).wantStatus(t, http.StatusOK)
	moved.decode(t, &got)
	if got.Status != lettershop.StatusMailed {
		t.Errorf("status %q, want mailed", got.Status)
	}
	// The letter is answered as the API shows it, as GET shows it.
	if fetched := ts.get(t, "/letters/"+l.ID).wantStatus(t, http.StatusOK); string(moved.Body) != string(fetched.Body) {
		t.Errorf("advance answered\n%s\nGET answers\n%s", moved.Body, fetched.Body)
	}
	ts.do(t, req{Method: "POST", Path: path, Body: `{"event":"delivered"}`}).wantStatus(t, http.StatusOK).decode(t, &got)
	if last := got.Events[len(got.Events)-1]; last.Type != "tracking" || last.Status != "delivered" {
		t.Errorf("last event %+v, want tracking delivered", last)
	}
	// In its key's account only.
	ts.do(t, req{Method: "POST", Path: path, Body: `{"event":"delivered"}`, Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusNotFound)
}

// POST /_test/letters/{id}/await moves the caller's clock to each next
// step of the letter until it gets there, in one request; where it will
// not, or not within the time given, it is a 409 saying where it stands.
func TestAwaitLetter(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	path := "/_test/letters/" + l.ID + "/await"

	for _, tt := range []struct{ body, field string }{
		{`{"status":"lost"}`, "status"},
		{`{"event":"mailed"}`, "event"},
		{`{"status":"mailed","within":"soon"}`, "within"},
		{`{"status":"mailed","within":"-1h"}`, "within"},
		{`{"status":"mailed","within":"0s"}`, "within"},
		{`{"status":"mailed","by":"me"}`, "by"},
	} {
		ts.do(t, req{Method: "POST", Path: path, Body: tt.body}).problem(t, http.StatusBadRequest).wantFields(t, tt.field)
	}
	ts.do(t, req{Method: "POST", Path: path, Body: `{}`}).problem(t, http.StatusBadRequest).wantFields(t, "event", "status")
	// A tracking event asked for as a status, or a status as an event, is
	// told which field to send it in.
	for _, p := range []string{path, "/_test/letters/" + l.ID + "/advance"} {
		for body, want := range map[string]string{`{"status":"delivered"}`: `send {"event": "delivered"}`, `{"event":"mailed"}`: `send {"status": "mailed"}`} {
			pb := ts.do(t, req{Method: "POST", Path: p, Body: body}).problem(t, http.StatusBadRequest)
			if msg := pb.Errors["status"] + pb.Errors["event"]; !strings.Contains(msg, want) {
				t.Errorf("%s %s: %q does not say to %s", p, body, msg, want)
			}
		}
	}
	ts.do(t, req{Method: "POST", Path: "/_test/letters/ast_1/await", Body: `{"status":"mailed"}`}).
		problem(t, http.StatusBadRequest).wantFields(t, "id")
	if c := ts.clockOf(t, keyA); c.Now != "2026-03-02T15:00:00Z" {
		t.Fatalf("refused awaits moved the clock to %v", c.Now)
	}

	// Not in an hour: the clock stops an hour on.
	p := ts.do(t, req{Method: "POST", Path: path, Body: `{"status":"mailed","within":"1h"}`}).problem(t, http.StatusConflict)
	if !strings.Contains(p.Detail, "not at mailed after 1h0m0s") {
		t.Errorf("detail %q", p.Detail)
	}
	if c := ts.clockOf(t, keyA); c.Now != "2026-03-02T16:00:00Z" {
		t.Errorf("clock %v, want an hour on", c.Now)
	}

	var got lettershop.Letter
	ts.do(t, req{Method: "POST", Path: path, Body: `{"event":"delivered"}`}).wantStatus(t, http.StatusOK).decode(t, &got)
	last := got.Events[len(got.Events)-1]
	if last.Type != "tracking" || last.Status != "delivered" {
		t.Fatalf("last event %+v, want tracking delivered", last)
	}
	if c := ts.clockOf(t, keyA); c.Now != last.Timestamp.UTC().Format(time.RFC3339Nano) {
		t.Errorf("clock %v, want at the delivery %v", c.Now, last.Timestamp)
	}
	// Another account's letter, and its clock, stay as they were.
	ts.do(t, req{Method: "POST", Path: path, Body: `{"event":"delivered"}`, Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusNotFound)
	if c := ts.clockOf(t, keyB); c.Now != "2026-03-02T15:00:00Z" {
		t.Errorf("another account's clock moved to %v", c.Now)
	}
}

// GET /_test/letters/{id}/text answers the text the letter prints, for a
// test that checks it without reading a PDF.
func TestLetterText(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	path := "/_test/letters/" + l.ID + "/text"

	res := ts.get(t, path).wantStatus(t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	text := string(res.Body)
	for _, want := range []string{l.Recipient.Address.AddressLine1, l.Sender.Address.AddressLine1, "Hello Jane"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	// The same text as the PDF the letter downloads as.
	pdf := ts.do(t, req{Method: "GET", Path: downloadLink(t, ts, l.ID), Header: hdr("X-Api-Key", "")}).wantStatus(t, http.StatusOK)
	if want, err := pdftext.Text(pdf.Body); err != nil || want != text {
		t.Errorf("the route's text differs from the download's (%v):\n%s\nwant\n%s", err, text, want)
	}
	ts.get(t, "/_test/letters/ast_1/text").problem(t, http.StatusBadRequest).wantFields(t, "id")
	ts.do(t, req{Method: "GET", Path: path, Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusNotFound)
}

// A letter's text is read from its PDF once while the PDF stays the same:
// asking again, from any number of requests, costs no second read, which
// for a letter of hundreds of pages is most of a second of a core. Another
// letter's is read on its own.
func TestLetterTextIsReadOnce(t *testing.T) {
	reads := httpadapter.CountLetterTextReads(t)
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	l := ts.createLetter(t, keyA, assetID)
	first := ts.get(t, "/_test/letters/"+l.ID+"/text").wantStatus(t, http.StatusOK)
	again := ts.get(t, "/_test/letters/"+l.ID+"/text").wantStatus(t, http.StatusOK)
	if string(again.Body) != string(first.Body) {
		t.Errorf("the text asked again differs:\n%s\nwant\n%s", again.Body, first.Body)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("one letter's text asked twice: %d reads, want 1", n)
	}
	other := ts.createLetter(t, keyA, assetID)
	ts.get(t, "/_test/letters/"+other.ID+"/text").wantStatus(t, http.StatusOK)
	if n := reads.Load(); n != 2 {
		t.Errorf("another letter's text: %d reads in all, want 2", n)
	}
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
		{Method: "POST", Path: "/_test/clock/set", Body: `{"now":"2026-03-03T00:00:00Z"}`},
		{Method: "POST", Path: "/_test/clock/freeze"},
		{Method: "POST", Path: "/_test/clock/unfreeze"},
		{Method: "POST", Path: "/_test/letters/" + l.ID + "/advance", Body: `{"status":"ready"}`},
		{Method: "POST", Path: "/_test/moves", Body: move},
		{Method: "POST", Path: "/_test/letters/" + l.ID + "/await", Body: `{"status":"inProduction"}`},
	}
	for _, r := range writes {
		r.Header = hdr("X-Api-Key", "reader")
		ts.do(t, r).problem(t, http.StatusForbidden)
	}
	if c := ts.clockOf(t, "reader"); c.Now != "2026-03-02T15:00:00Z" {
		t.Fatalf("a read-only key moved the clock to %v", c.Now)
	}
	var got lettershop.Letter
	ts.do(t, req{Method: "GET", Path: "/letters/" + l.ID, Header: hdr("X-Api-Key", "full")}).wantStatus(t, http.StatusOK).decode(t, &got)
	if got.Status != lettershop.StatusQueued {
		t.Fatalf("a read-only key moved the letter to %s", got.Status)
	}
	ts.do(t, req{Method: "GET", Path: "/_test/clock", Header: hdr("X-Api-Key", "reader")}).wantStatus(t, http.StatusOK)
	want := []int{http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusNoContent, http.StatusOK}
	for i, r := range writes {
		r.Header = hdr("X-Api-Key", "letters")
		ts.do(t, r).wantStatus(t, want[i])
	}
}

// The snapshot routes take a key with every scope: a snapshot holds the
// account's assets and its webhooks' secrets, which a key that may read
// only letters never sees, and a restore writes assets and webhooks.
func TestSnapshotRoutesTakeEveryScope(t *testing.T) {
	auth, err := httpadapter.NewKeyAuthenticator(
		httpadapter.APIKey{Account: "acme", Secret: "full"},
		httpadapter.APIKey{Account: "acme", Secret: "letters", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead, httpadapter.ScopeLettersWrite}},
		httpadapter.APIKey{Account: "acme", Secret: "readall", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead, httpadapter.ScopeAssetsRead, httpadapter.ScopeWebhooksRead}},
		httpadapter.APIKey{Account: "empty", Secret: "empty-full"},
		httpadapter.APIKey{Account: "empty", Secret: "empty-writer", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead, httpadapter.ScopeLettersWrite}},
	)
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, withAdapter(httpadapter.WithAuthenticator(auth)))
	assetID, _ := ts.createAsset(t, "full")
	ts.createLetter(t, "full", assetID)
	ts.do(t, req{Method: "POST", Path: "/webhooks", Body: map[string]any{"url": "https://example.com/hook"}, Header: hdr("X-Api-Key", "full")}).
		wantStatus(t, http.StatusCreated)
	for _, key := range []string{"letters", "readall"} {
		r := ts.do(t, req{Method: "GET", Path: "/_test/snapshot", Header: hdr("X-Api-Key", key)})
		if r.Status != http.StatusForbidden {
			t.Errorf("GET /_test/snapshot with the key %q: %d, want 403; body: %.300s", key, r.Status, r.Body)
		}
	}
	var snap map[string]any
	ts.do(t, req{Method: "GET", Path: "/_test/snapshot", Header: hdr("X-Api-Key", "full")}).wantStatus(t, http.StatusOK).decode(t, &snap)
	r := ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap, Header: hdr("X-Api-Key", "empty-writer")})
	if r.Status != http.StatusForbidden {
		t.Errorf("PUT /_test/snapshot with a key without assets:write and webhooks:write: %d, want 403; body: %.300s", r.Status, r.Body)
	}
	var hooks struct{ Items []any }
	ts.do(t, req{Method: "GET", Path: "/webhooks", Header: hdr("X-Api-Key", "empty-full")}).wantStatus(t, http.StatusOK).decode(t, &hooks)
	if len(hooks.Items) != 0 {
		t.Fatalf("a refused restore wrote %d webhooks", len(hooks.Items))
	}
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap, Header: hdr("X-Api-Key", "empty-full")}).wantStatus(t, http.StatusOK)
	// So does emptying the account, which erases its assets and webhooks.
	for _, key := range []string{"empty-writer", "letters", "readall"} {
		ts.do(t, req{Method: "DELETE", Path: "/_test/account", Header: hdr("X-Api-Key", key)}).problem(t, http.StatusForbidden)
	}
	ts.do(t, req{Method: "GET", Path: "/webhooks", Header: hdr("X-Api-Key", "empty-full")}).wantStatus(t, http.StatusOK).decode(t, &hooks)
	if len(hooks.Items) != 1 {
		t.Fatalf("after refused erasures the account holds %d webhooks, want the one restored", len(hooks.Items))
	}
	ts.do(t, req{Method: "DELETE", Path: "/_test/account", Header: hdr("X-Api-Key", "empty-full")}).wantStatus(t, http.StatusNoContent)
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap, Header: hdr("X-Api-Key", "empty-full")}).wantStatus(t, http.StatusOK)
}

// A snapshot over HTTP: taken with GET, put into another key's account
// with fresh ids, refused into an account with records, and refused,
// naming the field, when it does not check.
func TestSnapshotRoutes(t *testing.T) {
	ts := newTestServer(t)
	var asset struct{ ID string }
	ts.do(t, req{Method: "POST", Path: "/assets", Body: `{"name":"Welcome"}`}).wantStatus(t, http.StatusCreated).decode(t, &asset)
	ts.do(t, req{Method: "POST", Path: "/assets/" + asset.ID + "/versions", Body: `{"content":{"type":"text/html","content":"<p>Hello</p>"},"publish":true}`}).
		wantStatus(t, http.StatusCreated)
	var snap map[string]any
	ts.get(t, "/_test/snapshot").wantStatus(t, http.StatusOK).decode(t, &snap)
	assets, _ := snap["assets"].([]any)
	if snap["format"] != "lettershop-snapshot/1" || len(assets) != 1 {
		t.Fatalf("snapshot %v", snap)
	}
	oldID := assets[0].(map[string]any)["id"].(string)
	var out struct{ IDs map[string]string }
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap, Header: hdr("X-Api-Key", keyB)}).
		wantStatus(t, http.StatusOK).decode(t, &out)
	newID := out.IDs[oldID]
	if newID == "" || newID == oldID {
		t.Fatalf("ids %v", out.IDs)
	}
	ts.do(t, req{Method: "GET", Path: "/assets/" + newID, Header: hdr("X-Api-Key", keyB)}).wantStatus(t, http.StatusOK)
	// The version's content came along: the snapshot's base64 is taken back.
	var versions struct {
		Items []struct {
			Content struct{ Content string }
		}
	}
	ts.do(t, req{Method: "GET", Path: "/assets/" + newID + "/versions", Header: hdr("X-Api-Key", keyB)}).
		wantStatus(t, http.StatusOK).decode(t, &versions)
	if len(versions.Items) != 1 || versions.Items[0].Content.Content != "<p>Hello</p>" {
		t.Fatalf("restored versions %+v", versions)
	}
	content, _ := snap["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("snapshot content %v", snap["content"])
	}
	data := content[0].(map[string]any)["data"]
	content[0].(map[string]any)["data"] = "not base64!"
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap, Header: hdr("X-Api-Key", "sk_test_fourth")}).
		problem(t, http.StatusBadRequest).wantFields(t, "content[0].data")
	content[0].(map[string]any)["data"] = data
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap, Header: hdr("X-Api-Key", keyB)}).problem(t, http.StatusConflict)
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot?keepIds=yes", Body: snap}).problem(t, http.StatusBadRequest).wantFields(t, "keepIds")
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot?keepIds=true&keepIds=false", Body: snap}).problem(t, http.StatusBadRequest).wantFields(t, "keepIds")
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot?keep=true", Body: snap}).problem(t, http.StatusBadRequest)
	snap["format"] = "other"
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap, Header: hdr("X-Api-Key", "sk_test_third")}).
		problem(t, http.StatusBadRequest).wantFields(t, "format")
}

// A snapshot changed by hand into records the API could never have made
// is refused with a 400 naming the field inside the document, restoring
// nothing: a letter due before 1970, whose step a lifecycle run could not
// take (it failed every later request, of every account), and a letter
// whose recipient's address line is past its length, which took tens of
// seconds to render.
func TestSnapshotRestoreRefusesWhatTheAPINeverMade(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	ts.createLetter(t, keyA, assetID)
	var taken json.RawMessage
	ts.get(t, "/_test/snapshot").wantStatus(t, http.StatusOK).decode(t, &taken)
	for i, c := range []struct {
		field  string
		change func(letter map[string]any)
	}{
		{"letters[0].dueAt", func(l map[string]any) { l["dueAt"] = "0001-01-01T00:00:01Z" }},
		{"letters[0].doc.recipient.address.addressLine1", func(l map[string]any) {
			l["doc"].(map[string]any)["recipient"].(map[string]any)["address"].(map[string]any)["addressLine1"] = strings.Repeat("7", 100_000)
		}},
		{"letters[0].metadata", func(l map[string]any) {
			pairs := []any{}
			for i := range 21 {
				pairs = append(pairs, map[string]any{"key": fmt.Sprint("k", i), "value": "v"})
			}
			l["metadata"] = pairs
		}},
	} {
		var snap map[string]any
		if err := json.Unmarshal(taken, &snap); err != nil {
			t.Fatal(err)
		}
		c.change(snap["letters"].([]any)[0].(map[string]any))
		key := fmt.Sprint("sk_test_hand_made_", i)
		ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: snap, Header: hdr("X-Api-Key", key)}).
			problem(t, http.StatusBadRequest).wantFields(t, c.field)
		var page struct{ Items []any }
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key)}).wantStatus(t, http.StatusOK).decode(t, &page)
		if len(page.Items) != 0 {
			t.Errorf("%s: a refused restore wrote %d letters", c.field, len(page.Items))
		}
		ts.get(t, "/letters").wantStatus(t, http.StatusOK) // another account's
	}
}

// A suite that restores its fixture per test sends the same snapshot again
// and again: the same bytes are decoded and checked once, and restored
// into each account with fresh ids of its own; a snapshot refused is
// refused again, naming the field; other bytes are decoded anew.
func TestSnapshotPutAgainIsDecodedOnce(t *testing.T) {
	ts := newTestServer(t)
	assetID, _ := ts.createAsset(t, keyA)
	ts.createLetter(t, keyA, assetID)
	var taken json.RawMessage
	ts.get(t, "/_test/snapshot").wantStatus(t, http.StatusOK).decode(t, &taken)
	decodes := httpadapter.CountSnapshotDecodes(t)
	seen := map[string]bool{}
	for i := range 3 {
		key := fmt.Sprint("sk_test_fixture_", i)
		var out struct{ IDs map[string]string }
		ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: string(taken), Header: hdr("X-Api-Key", key)}).
			wantStatus(t, http.StatusOK).decode(t, &out)
		var page struct{ Items []struct{ ID string } }
		ts.do(t, req{Method: "GET", Path: "/letters", Header: hdr("X-Api-Key", key)}).wantStatus(t, http.StatusOK).decode(t, &page)
		if len(page.Items) != 1 || seen[page.Items[0].ID] || len(out.IDs) == 0 {
			t.Fatalf("restore %d: letters %+v, ids %v", i, page.Items, out.IDs)
		}
		seen[page.Items[0].ID] = true
	}
	if n := decodes.Load(); n != 1 {
		t.Errorf("the same snapshot PUT 3 times was decoded %d times, want 1", n)
	}
	var snap map[string]any
	if err := json.Unmarshal(taken, &snap); err != nil {
		t.Fatal(err)
	}
	snap["letters"].([]any)[0].(map[string]any)["dueAt"] = "0001-01-01T00:00:01Z"
	bad, _ := json.Marshal(snap)
	for i := range 2 {
		ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: string(bad), Header: hdr("X-Api-Key", fmt.Sprint("sk_test_bad_", i))}).
			problem(t, http.StatusBadRequest).wantFields(t, "letters[0].dueAt")
	}
	if n := decodes.Load(); n != 2 {
		t.Errorf("a refused snapshot PUT twice after the first: %d decodes in all, want 2", n)
	}
	ts.do(t, req{Method: "PUT", Path: "/_test/snapshot", Body: string(taken) + "\n", Header: hdr("X-Api-Key", "sk_test_other_bytes")}).
		wantStatus(t, http.StatusOK)
	if n := decodes.Load(); n != 3 {
		t.Errorf("the snapshot in other bytes: %d decodes in all, want 3", n)
	}
}

// BenchmarkSnapshotPut is a suite's restore per test over HTTP: a
// snapshot of 3 letters PUT into a new account, the same bytes each time
// ("same-bytes", decoded and checked once), beside the same snapshot in
// bytes of its own each time (spaces after it: "new-bytes", decoded and
// checked every time, as every PUT was before). Each op is one PUT.
//
//	go test ./httpadapter -run '^$' -bench SnapshotPut -benchmem -count 6
func BenchmarkSnapshotPut(b *testing.B) {
	// A key per op, from one address: no bound on new keys.
	ts := newTestServer(b, withAdapter(httpadapter.WithAddressLimits(false)))
	assetID, _ := ts.createAsset(b, keyA)
	for range 3 {
		ts.createLetter(b, keyA, assetID)
	}
	var taken json.RawMessage
	ts.get(b, "/_test/snapshot").wantStatus(b, http.StatusOK).decode(b, &taken)
	n := 0
	put := func(b *testing.B, body string) {
		n++
		ts.do(b, req{Method: "PUT", Path: "/_test/snapshot", Body: body, Header: hdr("X-Api-Key", fmt.Sprint("sk_test_bench_", n))}).
			wantStatus(b, http.StatusOK)
	}
	b.Run("same-bytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			put(b, string(taken))
		}
	})
	// 16 spellings, more than are kept, taken in turn: none is kept when
	// it comes again.
	var spellings []string
	for i := range 16 {
		spellings = append(spellings, string(taken)+strings.Repeat(" ", i))
	}
	b.Run("new-bytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			put(b, spellings[n%len(spellings)])
		}
	})
}
