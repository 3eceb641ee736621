package inbox_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/inbox"
	"github.com/lettershop/lettershop/memstore"
)

func TestPagesNeedAKey(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	for _, path := range []string{"/inbox/", "/inbox/assets", "/inbox/letters/ltr_01m85qmyrgq101qtz9p5j8swn6", "/inbox/letters/state"} {
		res := c.get(path)
		wantStatus(t, res, http.StatusSeeOther)
		if got := res.Header.Get("Location"); got != "/inbox/login" {
			t.Errorf("%s: Location %q, want /inbox/login", path, got)
		}
	}
	res := c.get("/inbox/login")
	wantStatus(t, res, http.StatusOK)
	wantContains(t, res.Body, `action="/inbox/login"`, `href="/inbox/static/style.css"`)
}

func TestLoginKeepsTheKeyInAStrictHttpOnlyCookie(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	res := c.post("/inbox/login", url.Values{"key": {testKey}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/inbox/" || strings.Contains(loc, testKey) {
		t.Errorf("Location %q, want /inbox/ (and never the key)", loc)
	}
	cookies := (&http.Response{Header: res.Header}).Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v, want one", cookies)
	}
	ck := cookies[0]
	if ck.Name != inbox.CookieName || ck.Value != base64.RawURLEncoding.EncodeToString([]byte(testKey)) || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/inbox/" {
		t.Errorf("cookie %+v: want %s=key, HttpOnly, SameSite=Strict, Path=/inbox/", ck, inbox.CookieName)
	}
	page := c.get("/inbox/")
	wantStatus(t, page, http.StatusOK)
	wantContains(t, page.Body, e.account)
	wantLacks(t, page.Body, testKey)
}

func TestAKeyWithCharactersNoCookieTakes(t *testing.T) {
	key := `sk_test_a;b"c\d,é`
	e := newEnv(t)
	e.account = httpadapter.SandboxAccount(key)
	l := e.letter(e.template(), nil)
	c := e.loggedIn(key)
	res := c.get("/inbox/letters/" + l.ID)
	wantStatus(t, res, http.StatusOK)
	wantContains(t, res.Body, e.account)
}

func TestLoginRefusesBadKeysAndOtherSites(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name, origin, key string
		status            int
	}{
		{"unknown key", "", "sk_live_nope", http.StatusUnauthorized},
		{"bare prefix", "", "sk_test_", http.StatusUnauthorized},
		{"no key", "", "", http.StatusBadRequest},
		{"other site", "https://evil.example", testKey, http.StatusForbidden},
		{"opaque origin", "null", testKey, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := e.client()
			origin := tc.origin
			if origin == "" {
				origin = e.srv.URL
			}
			res := c.postFrom(origin, "/inbox/login", url.Values{"key": {tc.key}})
			wantStatus(t, res, tc.status)
			if len((&http.Response{Header: res.Header}).Cookies()) != 0 {
				t.Errorf("a cookie was set")
			}
		})
	}
}

func TestAStaleCookieIsCleared(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	u, _ := url.Parse(e.srv.URL + "/inbox/")
	for _, v := range []string{base64.RawURLEncoding.EncodeToString([]byte("sk_live_gone")), "not*base64"} {
		c.jar.SetCookies(u, []*http.Cookie{{Name: inbox.CookieName, Value: v, Path: "/inbox/"}})
		res := c.get("/inbox/")
		wantStatus(t, res, http.StatusSeeOther)
	}
	c.jar.SetCookies(u, []*http.Cookie{{Name: inbox.CookieName, Value: base64.RawURLEncoding.EncodeToString([]byte("sk_live_gone")), Path: "/inbox/"}})
	c.get("/inbox/")
	if len(c.jar.Cookies(u)) != 0 {
		t.Errorf("the stale cookie stayed")
	}
}

func TestLogout(t *testing.T) {
	e := newEnv(t)
	c := e.loggedIn(testKey)
	wantStatus(t, c.post("/inbox/logout", nil), http.StatusSeeOther)
	wantStatus(t, c.get("/inbox/"), http.StatusSeeOther)
}

func TestEveryAnswerHasAStrictPolicy(t *testing.T) {
	e := newEnv(t)
	l := e.letter(e.template(), nil)
	c := e.loggedIn(testKey)
	for _, path := range []string{"/inbox/login", "/inbox/", "/inbox/letters/" + l.ID, "/inbox/assets", "/inbox/nope"} {
		res := c.get(path)
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Errorf("%s: CSP %q allows something unsafe", path, csp)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, res.Header)
		}
	}
}

func TestTheLettersTableEscapesWhatItShows(t *testing.T) {
	e := newEnv(t)
	a := e.template()
	e.letter(a, func(in *lettershop.CreateLetterInput) {
		in.Description = `<script>alert("pwned")</script>`
		in.Metadata = lettershop.Metadata{{Key: "k<i>", Value: `"><img src=x onerror=alert(1)>`}}
		in.Recipient.Individual.FirstName = "<b>Jane</b>"
	})
	c := e.loggedIn(testKey)
	for _, path := range []string{"/inbox/"} {
		body := c.get(path).Body
		wantContains(t, body, "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;", "&lt;b&gt;Jane&lt;/b&gt;", "k&lt;i&gt;=&#34;&gt;&lt;img src=x onerror=alert(1)&gt;")
		wantLacks(t, body, "<script>alert", "<img src=x", "<b>Jane")
	}
	l, _ := e.svc.ListLetters(e.ctx, e.account, lettershop.ListLettersInput{})
	body := c.get("/inbox/letters/" + l.Items[0].ID).Body
	wantContains(t, body, "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;")
	wantLacks(t, body, "<script>alert", "<img src=x")
}

func TestTheLettersTable(t *testing.T) {
	e := newEnv(t)
	a := e.template()
	first := e.letter(a, func(in *lettershop.CreateLetterInput) {
		in.Description = "first"
		in.Metadata = lettershop.Metadata{{Key: "customer", Value: "c-1"}}
	})
	e.clock.Add(time.Minute)
	e.letter(a, func(in *lettershop.CreateLetterInput) {
		in.Description = "second"
		in.SendDate = "2026-03-20"
		in.Recipient.Individual = &lettershop.Individual{FirstName: "Otto", LastName: "Lilienthal"}
	})
	if _, err := e.svc.CancelLetter(e.ctx, e.account, first.ID); err != nil {
		t.Fatal(err)
	}
	c := e.loggedIn(testKey)

	body := c.get("/inbox/").Body
	if i, j := strings.Index(body, "second"), strings.Index(body, "first"); i < 0 || j < 0 || i > j {
		t.Errorf("want the second letter above the first")
	}
	wantContains(t, body, "Otto Lilienthal", "2026-03-20", "customer=c-1", "s-canceled", "s-queued", "2026-03-02 15:00 UTC")
	// A letter with no send date goes as soon as possible, as its page says.
	wantContains(t, body, `<td class="when"><span class="muted">as soon as possible</span></td>`)
	// A time says itself to machines too: "2026-03-02 15:00 UTC" is no
	// valid time string, so the element carries one.
	wantContains(t, body, `<time datetime="2026-03-02T15:00:00Z" title="`, `>2026-03-02 15:00 UTC</time>`)

	for _, tc := range []struct {
		query      string
		want, lack string
	}{
		{"status=canceled", "first", "second"},
		{"status=queued", "second", ">first<"},
		{"meta=customer%3Dc-1", "first", "second"},
		{"q=lilienthal", "second", ">first<"},
		{"q=nobody", "No letter matches", "Otto"},
		// A filter that takes none of the account's letters says so, not
		// that the account has none.
		{"status=mailed", "No letter matches", "second"},
		{"meta=customer%3Dc-2", "No letter matches", "first"},
	} {
		body := c.get("/inbox/?" + tc.query).Body
		wantContains(t, body, tc.want)
		wantLacks(t, body, `class="desc">`+strings.Trim(tc.lack, "<>")+"<", "No letters yet")
	}
	for _, q := range []string{"status=lost", "meta=novalue", "token=forged"} {
		res := c.get("/inbox/?" + q)
		wantStatus(t, res, http.StatusBadRequest)
		wantContains(t, res.Body, `class="error"`)
	}
}

func TestTheLettersTableFollowsTheAPICursors(t *testing.T) {
	e := newEnv(t)
	a := e.template()
	for i := range 30 {
		e.letter(a, func(in *lettershop.CreateLetterInput) { in.Description = fmt.Sprintf("letter-%02d", i) })
		e.clock.Add(time.Second)
	}
	c := e.loggedIn(testKey)
	body := c.get("/inbox/").Body
	wantContains(t, body, "letter-29", "letter-05", `rel="next"`)
	wantLacks(t, body, "letter-04")
	end := strings.Index(body, `" rel="next"`)
	start := strings.LastIndex(body[:end], `href="`) + len(`href="`)
	next := strings.ReplaceAll(body[start:end], "&amp;", "&")
	page2 := c.get(next)
	wantStatus(t, page2, http.StatusOK)
	wantContains(t, page2.Body, "letter-04", "letter-00", "« Newest")
	wantLacks(t, page2.Body, "letter-05", `rel="next"`)

	// A search walks the same cursors.
	wantContains(t, c.get("/inbox/?q=letter-0").Body, "letter-09", "letter-00")
}

func TestTheTableStateChangesWithTheLetters(t *testing.T) {
	e := newEnv(t)
	a := e.template()
	c := e.loggedIn(testKey)
	page := c.get("/inbox/").Body
	wantContains(t, page, `data-poll="/inbox/letters/state?"`)
	before := c.get("/inbox/letters/state")
	wantStatus(t, before, http.StatusOK)
	if !strings.Contains(page, `data-state="`+before.Body+`"`) {
		t.Errorf("the page's state is not the state route's %q", before.Body)
	}
	e.letter(a, nil)
	if after := c.get("/inbox/letters/state").Body; after == before.Body {
		t.Errorf("the state did not change with a new letter")
	}
	wantStatus(t, c.get("/inbox/letters/state?status=lost"), http.StatusBadRequest)

	// A letter's page polls its own state, which changes when the letter moves.
	l := e.letter(a, nil)
	page = c.get("/inbox/letters/" + l.ID).Body
	wantContains(t, page, `data-poll="/inbox/letters/`+l.ID+`/state"`)
	before = c.get("/inbox/letters/" + l.ID + "/state")
	wantContains(t, page, `data-state="`+before.Body+`"`)
	if _, err := e.svc.Simulate(e.ctx, e.account, l.ID, lettershop.SimulateTarget{Status: lettershop.StatusMailed}); err != nil {
		t.Fatal(err)
	}
	if after := c.get("/inbox/letters/" + l.ID + "/state").Body; after == before.Body {
		t.Errorf("the letter's state did not change when it moved")
	}
	wantStatus(t, c.get("/inbox/letters/ltr_01m85qmyrgq101qtz9p5j8swn6/state"), http.StatusNotFound)
}

func TestTheLetterPage(t *testing.T) {
	e := newEnv(t)
	a := e.template()
	l := e.letter(a, func(in *lettershop.CreateLetterInput) {
		in.Recipient.Address = lettershop.AddressInput{AddressLine1: "deliverable", LastLine: "Chicago, IL 60601"}
		in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{
			CassRecipient: &lettershop.CassOptions{Type: lettershop.CassBasic}}}
		in.Metadata = lettershop.Metadata{{Key: "customer", Value: "c-1"}}
	})
	c := e.loggedIn(testKey)
	res := c.get("/inbox/letters/" + l.ID)
	wantStatus(t, res, http.StatusOK)
	// The tab names whom the letter is to, as the page's heading does.
	wantContains(t, res.Body, "<title>Letter to Jane Doe · lettershop inbox</title>")
	wantContains(t, res.Body,
		`<iframe src="/inbox/letters/`+l.ID+`/pdf"`, `href="/inbox/letters/`+l.ID+`/pdf?download=1"`,
		"Acme Corp", "Jane Doe", "DPV match <strong>Y</strong>", "CASS <strong>basic</strong>",
		"Letter received", "2026-03-02 15:00 UTC", "name</th><td>Jane", "customer</th><td>c-1",
		`action="/inbox/letters/`+l.ID+`/cancel"`, `action="/inbox/letters/`+l.ID+`/simulate"`, `action="/inbox/clock/advance"`)

	wantStatus(t, c.get("/inbox/letters/ltr_01m85qmyrgq101qtz9p5j8swn6"), http.StatusNotFound)
	res = c.get("/inbox/letters/not-an-id")
	if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusBadRequest {
		t.Errorf("a malformed id: status %d, want 400 or 404", res.StatusCode)
	}
	wantStatus(t, c.get("/inbox/no/such/page"), http.StatusNotFound)

	// Another account sees none of it.
	other := e.loggedIn("sk_test_other")
	wantStatus(t, other.get("/inbox/letters/"+l.ID), http.StatusNotFound)
	wantLacks(t, other.get("/inbox/").Body, l.ID)
}

func TestThePDF(t *testing.T) {
	e := newEnv(t)
	l := e.letter(e.template(), nil)
	c := e.loggedIn(testKey)
	res := c.get("/inbox/letters/" + l.ID + "/pdf")
	wantStatus(t, res, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/pdf" || !strings.HasPrefix(res.Body, "%PDF-") {
		t.Errorf("Content-Type %q, body %.8q: want a PDF", ct, res.Body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
	if d := res.Header.Get("Content-Disposition"); !strings.HasPrefix(d, "inline") {
		t.Errorf("Content-Disposition %q, want inline", d)
	}
	dl := c.get("/inbox/letters/" + l.ID + "/pdf?download=1")
	if d := dl.Header.Get("Content-Disposition"); d != `attachment; filename="`+l.ID+`.pdf"` {
		t.Errorf("Content-Disposition %q", d)
	}
	wantStatus(t, c.get("/inbox/letters/ltr_01m85qmyrgq101qtz9p5j8swn6/pdf"), http.StatusNotFound)
}

func TestCancel(t *testing.T) {
	e := newEnv(t)
	l := e.letter(e.template(), nil)
	c := e.loggedIn(testKey)
	path := "/inbox/letters/" + l.ID
	tok := c.csrf(path)

	wantStatus(t, c.post(path+"/cancel", nil), http.StatusForbidden)
	wantStatus(t, c.post(path+"/cancel", url.Values{"csrf": {"forged"}}), http.StatusForbidden)
	wantStatus(t, c.postFrom("https://evil.example", path+"/cancel", url.Values{"csrf": {tok}}), http.StatusForbidden)
	// Another session's token is not this one's.
	other := e.loggedIn("sk_test_other")
	wantStatus(t, other.post(path+"/cancel", url.Values{"csrf": {tok}}), http.StatusForbidden)
	if got, _ := e.svc.GetLetter(e.ctx, e.account, l.ID); got.Status != lettershop.StatusQueued {
		t.Fatalf("a refused form canceled the letter")
	}

	res := c.post(path+"/cancel", url.Values{"csrf": {tok}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != path+"?done=canceled" {
		t.Errorf("Location %q", loc)
	}
	if got, _ := e.svc.GetLetter(e.ctx, e.account, l.ID); got.Status != lettershop.StatusCanceled {
		t.Errorf("status %s, want canceled", got.Status)
	}
	wantContains(t, c.get(path+"?done=canceled").Body, "The letter is canceled.")
	wantLacks(t, c.get(path+"?done=<script>").Body, "<script>")

	// Canceling a mailed letter is a conflict, shown on the letter's page.
	m := e.letter(e.template(), nil)
	if _, err := e.svc.Simulate(e.ctx, e.account, m.ID, lettershop.SimulateTarget{Status: lettershop.StatusMailed}); err != nil {
		t.Fatal(err)
	}
	res = c.post("/inbox/letters/"+m.ID+"/cancel", url.Values{"csrf": {tok}})
	wantStatus(t, res, http.StatusConflict)
	wantContains(t, res.Body, "can no longer be canceled", `id="status">mailed`)
	// The page answers a form: it must not reload itself, which would send
	// the form again, when the letter moves.
	wantLacks(t, res.Body, "data-poll")
	wantContains(t, c.get("/inbox/letters/"+m.ID).Body, `data-poll="/inbox/letters/`+m.ID+`/state"`)
	wantStatus(t, c.post("/inbox/letters/ltr_01m85qmyrgq101qtz9p5j8swn6/cancel", url.Values{"csrf": {tok}}), http.StatusNotFound)
}

func TestSimulate(t *testing.T) {
	e := newEnv(t)
	l := e.letter(e.template(), nil)
	c := e.loggedIn(testKey)
	path := "/inbox/letters/" + l.ID
	tok := c.csrf(path)
	wantStatus(t, c.post(path+"/simulate", url.Values{"target": {"status:mailed"}}), http.StatusForbidden)
	// Force offers what the letter can still reach: a queued letter every
	// status from ready on.
	wantContains(t, c.get(path).Body, `<option value="status:ready">`, `<option value="status:mailed">`, `id="simulate"`)

	res := c.post(path+"/simulate", url.Values{"csrf": {tok}, "target": {"event:delivered"}})
	wantStatus(t, res, http.StatusSeeOther)
	got, _ := e.svc.GetLetter(e.ctx, e.account, l.ID)
	if got.Status != lettershop.StatusMailed || got.Events[len(got.Events)-1].Status != lettershop.EventDelivered {
		t.Errorf("status %s, last event %s: want mailed, delivered", got.Status, got.Events[len(got.Events)-1].Status)
	}
	body := c.get(path).Body
	wantContains(t, body, "delivered", "inTransit", "ev-tracking", `<option value="event:inTransit">`, `<option value="event:returnedToSender">`)
	// A mailed letter has passed every status.
	wantLacks(t, body, `<option value="status:`)

	// A letter at ready is offered the statuses after it only; a canceled
	// one, which no move takes on, no Force at all.
	r := e.letter(e.template(), nil)
	if _, err := e.svc.Simulate(e.ctx, e.account, r.ID, lettershop.SimulateTarget{Status: lettershop.StatusReady}); err != nil {
		t.Fatal(err)
	}
	body = c.get("/inbox/letters/" + r.ID).Body
	wantContains(t, body, `<option value="status:inProduction">`)
	wantLacks(t, body, `<option value="status:ready">`)
	if _, err := e.svc.CancelLetter(e.ctx, e.account, r.ID); err != nil {
		t.Fatal(err)
	}
	wantLacks(t, c.get("/inbox/letters/"+r.ID).Body, `id="simulate"`, `name="target"`)

	for _, target := range []string{"", "sideways", "status:lost", "event:lost"} {
		res := c.post(path+"/simulate", url.Values{"csrf": {tok}, "target": {target}})
		if res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusConflict {
			t.Errorf("target %q: status %d, want 400 or 409", target, res.StatusCode)
		}
	}
}

func TestAdvanceTheClock(t *testing.T) {
	e := newEnv(t)
	l := e.letter(e.template(), nil)
	c := e.loggedIn(testKey)
	path := "/inbox/letters/" + l.ID
	tok := c.csrf(path)
	wantStatus(t, c.post("/inbox/clock/advance", url.Values{"duration": {"72h"}}), http.StatusForbidden)

	res := c.post("/inbox/clock/advance", url.Values{"csrf": {tok}, "duration": {"720h"}, "back": {"/letters/" + l.ID}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != path+"?done=advanced" {
		t.Errorf("Location %q", loc)
	}
	if now := e.svc.AccountNow(e.account); !now.Equal(testStart.Add(720 * time.Hour)) {
		t.Errorf("account clock at %s", now)
	}
	// The account's clock moved, not the server's nor another account's.
	if now, other := e.clock.Now(), e.svc.AccountNow("another"); !now.Equal(testStart) || !other.Equal(testStart) {
		t.Errorf("server clock at %s, another account's at %s; want both at the start", now, other)
	}
	got, _ := e.svc.GetLetter(e.ctx, e.account, l.ID)
	if got.Status != lettershop.StatusMailed {
		t.Errorf("status %s, want mailed", got.Status)
	}
	wantContains(t, c.get(path).Body, `id="status">mailed`, "2026-04-01 15:00 UTC")

	for _, tc := range []struct{ back, want string }{
		{"//evil.example/x", "/inbox/?done=advanced"},
		{"https://evil.example/", "/inbox/?done=advanced"},
		{`/\evil.example`, "/inbox/?done=advanced"},
		{"/assets?done=x", "/inbox/assets?done=advanced"},
		{"", "/inbox/?done=advanced"},
		// Out of the inbox by its parent: a browser resolves the dots.
		{"/../../evil", "/inbox/?done=advanced"},
		{"/%2e%2e/%2E%2E/files/x", "/inbox/?done=advanced"},
		{"/assets/./x", "/inbox/?done=advanced"},
		{"/assets/x", "/inbox/assets/x?done=advanced"},
	} {
		res := c.post("/inbox/clock/advance", url.Values{"csrf": {tok}, "duration": {"1h"}, "back": {tc.back}})
		if loc := res.Header.Get("Location"); loc != tc.want {
			t.Errorf("back %q: Location %q, want %q", tc.back, loc, tc.want)
		}
	}
	for _, d := range []string{"", "soon", "-1h", "0s", "100000h", "87600000h"} {
		res := c.post("/inbox/clock/advance", url.Values{"csrf": {tok}, "duration": {d}})
		wantStatus(t, res, http.StatusBadRequest)
	}
}

// With WithSharedTestClock, the inbox moves the server's one clock.
func TestAdvanceTheSharedClock(t *testing.T) {
	e := newEnv(t, withInboxOptions(inbox.WithSharedTestClock()))
	c := e.loggedIn(testKey)
	res := c.post("/inbox/clock/advance", url.Values{"csrf": {c.csrf("/inbox/")}, "duration": {"72h"}})
	wantStatus(t, res, http.StatusSeeOther)
	if now := e.clock.Now(); !now.Equal(testStart.Add(72 * time.Hour)) {
		t.Errorf("server clock at %s, want 72 hours on", now)
	}
	if now := e.svc.AccountNow("another"); !now.Equal(testStart.Add(72 * time.Hour)) {
		t.Errorf("another account's clock at %s, want the shared clock's time", now)
	}
}

func TestWithoutATestClockTheClockStays(t *testing.T) {
	e := newEnv(t, withoutTestClock())
	l := e.letter(e.template(), nil)
	c := e.loggedIn(testKey)
	body := c.get("/inbox/letters/" + l.ID).Body
	wantLacks(t, body, "/clock/advance")
	wantContains(t, body, "2026-03-02 15:00 UTC")
	res := c.post("/inbox/clock/advance", url.Values{"csrf": {c.csrf("/inbox/letters/" + l.ID)}, "duration": {"1h"}})
	wantStatus(t, res, http.StatusNotFound)
	if !e.clock.Now().Equal(testStart) {
		t.Errorf("the clock moved")
	}
}

func TestScopes(t *testing.T) {
	auth, err := httpadapter.NewKeyAuthenticator(
		httpadapter.APIKey{Account: "acme", Secret: "full"},
		httpadapter.APIKey{Account: "acme", Secret: "reader", Scopes: []httpadapter.Scope{httpadapter.ScopeLettersRead}},
		httpadapter.APIKey{Account: "acme", Secret: "hooks", Scopes: []httpadapter.Scope{httpadapter.ScopeWebhooksRead}},
	)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withInboxOptions(inbox.WithAuthenticator(auth)))
	e.account = "acme"
	l := e.letter(e.template(), nil)

	wantStatus(t, e.client().post("/inbox/login", url.Values{"key": {testKey}}), http.StatusUnauthorized)
	reader := e.loggedIn("reader")
	body := reader.get("/inbox/letters/" + l.ID).Body
	wantContains(t, body, "Jane Doe")
	wantLacks(t, body, "/cancel", "/simulate", "/clock/advance")
	res := reader.post("/inbox/letters/"+l.ID+"/cancel", nil)
	wantStatus(t, res, http.StatusForbidden)
	wantContains(t, res.Body, "letters:write")
	wantStatus(t, reader.get("/inbox/assets"), http.StatusForbidden)
	// The tabs are the pages the key may read.
	wantLacks(t, body, `href="/inbox/assets"`, `href="/inbox/webhooks"`)

	// A key that reads only webhooks lands on them, not on a refusal.
	hooks := e.client()
	res = hooks.post("/inbox/login", url.Values{"key": {"hooks"}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/inbox/webhooks" {
		t.Errorf("a webhooks:read key logged in to %s, want /inbox/webhooks", loc)
	}
	page := hooks.get("/inbox/webhooks")
	wantStatus(t, page, http.StatusOK)
	wantLacks(t, page.Body, `href="/inbox/assets"`, `href="/inbox/">Letters`)

	full := e.loggedIn("full")
	wantContains(t, full.get("/inbox/letters/"+l.ID).Body, "/cancel", `href="/inbox/assets"`, `href="/inbox/webhooks"`)
	wantStatus(t, full.get("/inbox/assets"), http.StatusOK)
}

func TestAssets(t *testing.T) {
	e := newEnv(t)
	// With none, the page says how to make one, as the letters' and
	// webhooks' pages do.
	wantContains(t, e.loggedIn(testKey).get("/inbox/assets").Body, "No assets yet. Make one with <code>POST /assets")
	a := e.template()
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	img, err := e.svc.CreateAsset(e.ctx, e.account, lettershop.CreateAssetInput{Name: "Logo", Type: lettershop.AssetImage})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := e.svc.CreateVersion(e.ctx, e.account, img.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentPNG, Content: png}})
	if err != nil {
		t.Fatal(err)
	}
	c := e.loggedIn(testKey)

	body := c.get("/inbox/assets").Body
	wantContains(t, body, "Welcome &lt;b&gt;", "Logo", `href="/inbox/assets/`+a.ID+`"`, "published", "draft")

	body = c.get("/inbox/assets/" + a.ID).Body
	wantContains(t, body, "first draft", "text/html · inline · ", "in use")
	_, rest, _ := strings.Cut(body, `href="/inbox/assets/`+a.ID+`/versions/`)
	vid, _, _ := strings.Cut(rest, `"`)

	res := c.get("/inbox/assets/" + a.ID + "/versions/" + vid)
	wantStatus(t, res, http.StatusOK)
	wantContains(t, res.Body, `<iframe sandbox src="/inbox/assets/`+a.ID+`/versions/`+vid+`/content"`,
		"&lt;p class=&#34;fine&#34;&gt;A &amp;amp; B&lt;/p&gt;", "required", `<dd id="source-kind">inline</dd>`)
	wantLacks(t, res.Body, `<p class="fine">`)

	// A version's variables show their type: an image's variable is not
	// given text.
	tv, err := e.svc.CreateVersion(e.ctx, e.account, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: `<img src="{{logo}}"><p>Dear {{name}},</p>`},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name", Behavior: lettershop.VariableRequired},
			{Name: "logo", Type: lettershop.VariableTypeAsset, Behavior: lettershop.VariableRequired}}})
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, c.get("/inbox/assets/"+a.ID+"/versions/"+tv.ID).Body,
		"<td>name</td><td>value</td><td>required</td>", "<td>logo</td><td>asset</td><td>required</td>")

	content := c.get("/inbox/assets/" + a.ID + "/versions/" + vid + "/content")
	wantStatus(t, content, http.StatusOK)
	if csp := content.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("HTML content CSP %q, want a sandbox", csp)
	}
	wantContains(t, content.Body, "<p>Dear {{name}},</p>")

	res = c.get("/inbox/assets/" + img.ID + "/versions/" + iv.ID)
	wantContains(t, res.Body, `<img src="/inbox/assets/`+img.ID+`/versions/`+iv.ID+`/content"`)
	pic := c.get("/inbox/assets/" + img.ID + "/versions/" + iv.ID + "/content")
	if pic.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(pic.Body, "\x89PNG") {
		t.Errorf("image content: %q %.8q", pic.Header.Get("Content-Type"), pic.Body)
	}

	// An SVG's content is kept and shown as its text, and served as itself.
	const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><rect width="300" height="300" fill="#123456"/></svg>`
	sv, err := e.svc.CreateVersion(e.ctx, e.account, img.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentSVG, Content: svg}})
	if err != nil {
		t.Fatal(err)
	}
	drawing := c.get("/inbox/assets/" + img.ID + "/versions/" + sv.ID + "/content")
	if drawing.Header.Get("Content-Type") != "image/svg+xml" || drawing.Body != svg {
		t.Errorf("SVG content: %d %q %q", drawing.StatusCode, drawing.Header.Get("Content-Type"), drawing.Body)
	}
	// An SVG opened in a tab of its own is a document of the inbox's origin:
	// sandboxed, as the API serves it, so that a script a key that writes
	// only assets put in it never runs as a key that also writes letters.
	for _, res := range []*response{pic, drawing} {
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q: want a sandbox that loads nothing", res.Header.Get("Content-Type"), csp)
		}
	}

	// A version made without content says so, where its preview would be.
	empty, err := e.svc.CreateVersion(e.ctx, e.account, a.ID, lettershop.CreateVersionInput{})
	if err != nil {
		t.Fatal(err)
	}
	res = c.get("/inbox/assets/" + a.ID + "/versions/" + empty.ID)
	wantStatus(t, res, http.StatusOK)
	wantContains(t, res.Body, `id="no-content"`)
	wantLacks(t, res.Body, `<iframe sandbox src=`)

	wantStatus(t, c.get("/inbox/assets/ast_01m85qmyrgq101qtz9p5j8swn6"), http.StatusNotFound)
	wantStatus(t, c.get("/inbox/assets/"+a.ID+"/versions/astv_01m85qmyrgq101qtz9p5j8swn6"), http.StatusNotFound)
	wantStatus(t, c.get("/inbox/assets?token=forged"), http.StatusBadRequest)
	wantStatus(t, e.loggedIn("sk_test_other").get("/inbox/assets/"+a.ID), http.StatusNotFound)
}

func TestStaticFiles(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	for path, ct := range map[string]string{"/inbox/static/style.css": "text/css", "/inbox/static/poll.js": "javascript"} {
		res := c.get(path)
		wantStatus(t, res, http.StatusOK)
		if !strings.Contains(res.Header.Get("Content-Type"), ct) {
			t.Errorf("%s: Content-Type %q", path, res.Header.Get("Content-Type"))
		}
	}
	wantStatus(t, c.get("/inbox/static/nope.css"), http.StatusNotFound)
}

// An Authenticator that fails is logged and shown as a generic message.
type brokenAuth struct{}

func (brokenAuth) Authenticate(context.Context, string) (httpadapter.Principal, error) {
	return httpadapter.Principal{}, fmt.Errorf("the key store is down")
}

func TestABrokenAuthenticatorIsNoClientMistake(t *testing.T) {
	e := newEnv(t, withInboxOptions(inbox.WithAuthenticator(brokenAuth{})))
	res := e.client().post("/inbox/login", url.Values{"key": {testKey}})
	wantStatus(t, res, http.StatusInternalServerError)
	wantLacks(t, res.Body, "key store is down")
}

// TestABrokenAuthenticatorKeepsTheCookie checks that a key that could not be
// checked (the authenticator failed, the key is not unknown) is a server
// error on every page, and the visitor stays logged in for when it is back.
func TestABrokenAuthenticatorKeepsTheCookie(t *testing.T) {
	e := newEnv(t, withInboxOptions(inbox.WithAuthenticator(brokenAuth{})))
	c := e.client()
	u, _ := url.Parse(e.srv.URL + "/inbox/")
	c.jar.SetCookies(u, []*http.Cookie{{Name: inbox.CookieName, Value: base64.RawURLEncoding.EncodeToString([]byte(testKey)), Path: "/inbox/"}})
	for _, path := range []string{"/inbox/", "/inbox/letters/state", "/inbox/assets"} {
		res := c.get(path)
		wantStatus(t, res, http.StatusInternalServerError)
		wantLacks(t, res.Body, "key store is down")
	}
	wantStatus(t, c.post("/inbox/clock/advance", url.Values{"duration": {"1h"}}), http.StatusInternalServerError)
	if len(c.jar.Cookies(u)) != 1 {
		t.Errorf("a key that could not be checked was cleared from its cookie")
	}
}

// Two servers on one store: the clock a page shows is the account's as the
// store has it, moved by the other server too, on every page (the assets
// page reads no letter, which would have read the clocks first).
func TestClockMovedByAnotherServer(t *testing.T) {
	st := memstore.New()
	mcA, mcB := clock.NewMock(), clock.NewMock()
	mcA.Set(testStart)
	mcB.Set(testStart)
	a := lettershop.New(st, lettershop.WithClock(mcA))
	b := lettershop.New(st, lettershop.WithClock(mcB))
	t.Cleanup(func() { a.Close(); b.Close() })
	srv := httptest.NewServer(http.StripPrefix("/inbox", inbox.New(b, inbox.WithTestClock(mcB))))
	t.Cleanup(srv.Close)
	e := &env{t: t, svc: b, clock: mcB, srv: srv, account: httpadapter.SandboxAccount(testKey), ctx: context.Background()}
	c := e.loggedIn(testKey)
	wantContains(t, c.get("/inbox/assets").Body, `<time id="clock-now" datetime="2026-03-02T15:00:00Z">2026-03-02 15:00 UTC</time>`)
	if _, err := a.AdvanceAccountClock(context.Background(), e.account, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	wantContains(t, c.get("/inbox/assets").Body, `<time id="clock-now" datetime="2026-03-05T15:00:00Z">2026-03-05 15:00 UTC</time>`)
}

// A letter whose content can not be fetched has no PDF: the frame that
// shows it may show the reason, an error page the inbox itself frames, where
// a page refusing every frame left the browser's broken-frame icon. The
// version's preview frame says the same.
func TestAnUnprintableLetterSaysWhyInItsFrame(t *testing.T) {
	e := newEnv(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	a, err := e.svc.CreateAsset(e.ctx, e.account, lettershop.CreateAssetInput{Name: "Remote", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.CreateVersion(e.ctx, e.account, a.ID, lettershop.CreateVersionInput{Publish: true,
		Content: &lettershop.VersionContent{Source: lettershop.ContentExternalURL, Type: lettershop.ContentHTML, Content: gone.URL + "/gone.html"}})
	if err != nil {
		t.Fatal(err)
	}
	l := e.letter(a, func(in *lettershop.CreateLetterInput) { in.Variables = nil })
	c := e.loggedIn(testKey)
	for _, path := range []string{"/inbox/letters/" + l.ID + "/pdf", "/inbox/assets/" + a.ID + "/versions/" + v.ID + "/content"} {
		res := c.get(path)
		if res.StatusCode < 400 {
			t.Fatalf("%s: status %d, want an error", path, res.StatusCode)
		}
		wantContains(t, res.Body, "could not be fetched")
		// The error alone: not the inbox's header again inside its frame.
		wantLacks(t, res.Body, `class="top"`, "/logout", "Back to the letters")
		if xfo, csp := res.Header.Get("X-Frame-Options"), res.Header.Get("Content-Security-Policy"); xfo != "SAMEORIGIN" ||
			!strings.Contains(csp, "frame-ancestors 'self'") || !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("%s: X-Frame-Options %q, Content-Security-Policy %q: want the page policy, framed by the inbox only", path, xfo, csp)
		}
	}
	// Other pages refuse every frame still.
	if xfo := c.get("/inbox/letters/" + l.ID).Header.Get("X-Frame-Options"); xfo != "DENY" {
		t.Errorf("the letter page: X-Frame-Options %q", xfo)
	}
}

// A method a path of the inbox is not served for is a 405 naming the
// methods it is served for in Allow, as the API answers one: a problem to
// a program, a page to a browser. A path served for no method, or a
// static file that does not exist, stays a 404.
func TestWrongMethodIsNotAllowed(t *testing.T) {
	e := newEnv(t)
	l := e.letter(e.template(), nil)
	c := e.loggedIn(testKey)
	for _, tt := range []struct {
		method, path, allow string
		status              int
	}{
		{"DELETE", "/inbox/login", "GET, HEAD, POST", http.StatusMethodNotAllowed},
		{"PUT", "/inbox/", "GET, HEAD", http.StatusMethodNotAllowed},
		{"POST", "/inbox/letters/" + l.ID, "GET, HEAD", http.StatusMethodNotAllowed},
		{"GET", "/inbox/letters/" + l.ID + "/cancel", "POST", http.StatusMethodNotAllowed},
		{"GET", "/inbox/logout", "POST", http.StatusMethodNotAllowed},
		{"POST", "/inbox/static/style.css", "GET, HEAD", http.StatusMethodNotAllowed},
		{"OPTIONS", "/inbox/assets", "GET, HEAD", http.StatusMethodNotAllowed},
		{"GET", "/inbox/static/nope.css", "", http.StatusNotFound},
		{"GET", "/inbox/nope", "", http.StatusNotFound},
		{"POST", "/inbox/nope", "", http.StatusNotFound},
	} {
		for _, accept := range []string{browserAccept, "application/json"} {
			req, _ := http.NewRequest(tt.method, e.srv.URL+tt.path, nil)
			req.Header.Set("Accept", accept)
			res := c.do(req)
			what := tt.method + " " + tt.path + " (" + accept + ")"
			if res.StatusCode != tt.status || res.Header.Get("Allow") != tt.allow {
				t.Errorf("%s: %d Allow %q, want %d %q", what, res.StatusCode, res.Header.Get("Allow"), tt.status, tt.allow)
			}
			if accept == browserAccept {
				continue
			}
			var p struct {
				Code   string `json:"code"`
				Status int    `json:"status"`
			}
			if err := json.Unmarshal([]byte(res.Body), &p); err != nil || p.Status != tt.status ||
				res.Header.Get("Content-Type") != "application/problem+json" || res.Header.Get("X-Request-Id") == "" {
				t.Errorf("%s: not a problem of status %d: %v %q %s", what, tt.status, err, res.Header.Get("Content-Type"), res.Body)
			}
			if tt.status == http.StatusMethodNotAllowed && p.Code != "method-not-allowed" {
				t.Errorf("%s: code %q, want method-not-allowed", what, p.Code)
			}
		}
	}
}

// TestFormsAcrossServers: servers behind one address, their inboxes given
// one form key, take each other's forms, as a balancer sends a form to
// whichever it picks; an inbox with another key, or with none (a key drawn
// at start), refuses them.
func TestFormsAcrossServers(t *testing.T) {
	key := []byte("the servers' shared token key, 32+")
	e := newEnv(t, withInboxOptions(inbox.WithFormKey(key)))
	l := e.letter(e.template(), nil)
	c := e.loggedIn(testKey)
	tok := c.csrf("/inbox/letters/" + l.ID)
	// Another server of the same Service's store: only its inbox matters.
	other := func(opts ...inbox.Option) string {
		mux := http.NewServeMux()
		mux.Handle("/inbox/", http.StripPrefix("/inbox", inbox.New(e.svc, append(opts, inbox.WithTestClock(e.clock))...)))
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	post := func(base string) *response {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/inbox/letters/"+l.ID+"/cancel",
			strings.NewReader(url.Values{"csrf": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		req.AddCookie(&http.Cookie{Name: inbox.CookieName, Value: base64.RawURLEncoding.EncodeToString([]byte(testKey))})
		return c.do(req)
	}
	wantStatus(t, post(other(inbox.WithFormKey([]byte("another key of another database")))), http.StatusForbidden)
	wantStatus(t, post(other()), http.StatusForbidden)
	wantStatus(t, post(other(inbox.WithFormKey(nil))), http.StatusForbidden)
	if got, _ := e.svc.GetLetter(e.ctx, e.account, l.ID); got.Status != lettershop.StatusQueued {
		t.Fatalf("a refused form canceled the letter")
	}
	wantStatus(t, post(other(inbox.WithFormKey(key))), http.StatusSeeOther)
	if got, _ := e.svc.GetLetter(e.ctx, e.account, l.ID); got.Status != lettershop.StatusCanceled {
		t.Errorf("status %s after the form posted to the other server, want canceled", got.Status)
	}
}
