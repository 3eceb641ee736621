package inbox_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
)

// The webhooks pages list the account's webhooks and a webhook's
// deliveries, and retry one.
func TestWebhookPages(t *testing.T) {
	e := newEnv(t)
	var hits atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(rcv.Close)
	w, err := e.svc.CreateWebhook(e.ctx, e.account, lettershop.CreateWebhookInput{URL: rcv.URL, Description: "orders <b>desk</b>",
		Events: []lettershop.WebhookEventType{lettershop.WebhookLetterCreated}, Metadata: lettershop.Metadata{{Key: "team", Value: "<i>billing</i>"}}})
	if err != nil {
		t.Fatal(err)
	}
	l := e.letter(e.template(), nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, err := e.svc.ListDeliveries(e.ctx, e.account, w.ID, lettershop.ListDeliveriesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) == 1 && p.Items[0].StatusCode != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no attempt recorded")
		}
		time.Sleep(2 * time.Millisecond)
	}
	c := e.loggedIn(testKey)
	list := c.get("/inbox/webhooks")
	wantStatus(t, list, http.StatusOK)
	wantContains(t, list.Body, `href="/inbox/webhooks/`+w.ID+`"`, rcv.URL, "letter.created", "orders &lt;b&gt;desk&lt;/b&gt;")
	// The list tells whether a webhook's events reach it: its newest
	// delivery, here pending after a 503; one with none says so.
	wantContains(t, list.Body, "<th>Last delivery</th>", `<span class="status d-pending">pending</span><div class="sub">letter.created, attempt 1, answered 503</div>`)
	if _, err := e.svc.CreateWebhook(e.ctx, e.account, lettershop.CreateWebhookInput{URL: rcv.URL + "/quiet",
		Events: []lettershop.WebhookEventType{lettershop.WebhookLetterDelivered}}); err != nil {
		t.Fatal(err)
	}
	wantContains(t, c.get("/inbox/webhooks").Body, `<span class="muted">none yet</span>`)
	path := "/inbox/webhooks/" + w.ID
	page := c.get(path)
	wantStatus(t, page, http.StatusOK)
	wantContains(t, page.Body, `href="/inbox/letters/`+l.ID+`"`, "503", "d-pending", `/deliveries/`, `name="csrf"`,
		"team=&lt;i&gt;billing&lt;/i&gt;",
		// Each row's Retry button says which delivery it retries, to a
		// screen reader listing the buttons.
		`aria-label="Retry the letter.created delivery for `+l.ID+`"`)
	wantLacks(t, page.Body, w.Secret)
	// Every column has a heading, the buttons' too.
	wantContains(t, page.Body, "<th>Action</th>")
	wantLacks(t, page.Body, "<th></th>")

	dlv := "dlv_" + l.Events[0].ID[len("evt_"):]
	retry := path + "/deliveries/" + dlv + "/retry"
	wantStatus(t, c.post(retry, url.Values{}), http.StatusForbidden)
	res := c.post(retry, url.Values{"csrf": {c.csrf(path)}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != path+"?done=retried" {
		t.Errorf("Location %q", loc)
	}
	for hits.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the retry did not reach the receiver")
		}
		time.Sleep(2 * time.Millisecond)
	}
	wantStatus(t, c.get("/inbox/webhooks/wh_none"), http.StatusNotFound)
	wantStatus(t, c.post(path+"/deliveries/dlv_none/retry", url.Values{"csrf": {c.csrf(path)}}), http.StatusNotFound)
}
