package lettershoptest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/lettershoptest"
)

// A test that talks HTTP to the server: one call to New, an account, and
// the API at srv.URL. The example uses a testing.T of its own; a test
// passes its own t.
func ExampleNew() {
	t := &testing.T{}
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()

	req, _ := http.NewRequest("POST", srv.URL+"/v1/assets", strings.NewReader(`{"name": "Welcome letter"}`))
	req.Header.Set("X-Api-Key", acct.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	// Location is absolute, on the server it names.
	fmt.Println(resp.StatusCode, strings.TrimPrefix(resp.Header.Get("Location"), srv.URL)[:14])

	// Every request of the account is in its journal.
	for _, e := range acct.Requests() {
		fmt.Println(e.Method, e.Path, e.Status, e.Time.Format(time.RFC3339))
	}
	// Output:
	// 201 /v1/assets/ast
	// POST /v1/assets 201 2026-03-02T15:00:00Z
}

// A fault for the account's next request: the letter is made, and the
// answer is lost, as when a connection drops at the worst moment.
func ExampleAccount_Fault() {
	t := &testing.T{}
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	acct.Fault(client.Fault{Method: "POST", Path: "/assets", AfterWrite: true, Status: 500, Times: 1})

	send := func() int {
		req, _ := http.NewRequest("POST", srv.URL+"/assets", strings.NewReader(`{"name": "Invoice"}`))
		req.Header.Set("X-Api-Key", acct.APIKey)
		req.Header.Set("Idempotency-Key", "invoice-7")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	fmt.Println(send(), send()) // the retry replays the first, stored outcome
	for _, e := range acct.Requests() {
		fmt.Println(e.IdempotencyKey, e.Status, e.Replayed, e.Fault)
	}
	// Output:
	// 500 201
	// invoice-7 500 false flt_1
	// invoice-7 201 true
}

// A test of code that uses the library directly: NewService, and the
// account's id where the Service's methods take an account.
func ExampleNewService() {
	t := &testing.T{}
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")

	l := acct.WaitForStatus(id, client.StatusMailed, 7*24*time.Hour)
	fmt.Println(l.Status, acct.Now().Sub(lettershoptest.DefaultStart) > 0)
	fmt.Println(strings.Contains(acct.PDFText(id), "Dear Jane"))

	acct.Force(id, lettershoptest.Event(client.EventDelivered))
	fmt.Println(len(acct.Letters()), acct.Letter(id).Events[len(acct.Letter(id).Events)-1].Status)
	// Output:
	// mailed true
	// true
	// 1 delivered
}

// Each account keeps a clock of its own: moving one account's time moves
// its letters and nobody else's, so parallel tests on one server never see
// each other's time. The server's clock moves them all, but a frozen one.
func ExampleAccount_Advance() {
	t := &testing.T{}
	srv := lettershoptest.New(t)
	early, late, frozen := srv.NewAccount(), srv.NewAccount(), srv.NewAccount()

	late.Advance(72 * time.Hour)
	frozen.Freeze()
	srv.Advance(time.Hour)
	for _, a := range []*lettershoptest.Account{early, late, frozen} {
		fmt.Println(a.Now().Format(time.RFC3339))
	}
	// Output:
	// 2026-03-02T16:00:00Z
	// 2026-03-05T16:00:00Z
	// 2026-03-02T15:00:00Z
}

// A webhook receiver of the account's events: every request's signature is
// checked, and a test waits for the event it expects.
func ExampleAccount_NewReceiver() {
	t := &testing.T{}
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	rcv := acct.NewReceiver(client.WebhookLetterCreated, client.WebhookLetterMailed)
	rcv.FailNext(1, 503) // the first attempt fails; WaitFor moves the clock to the retry

	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	e := rcv.WaitFor(client.WebhookLetterCreated, id, 5*time.Second)
	fmt.Println(e.Type, e.Data.Object.Status)
	acct.WaitForStatus(id, client.StatusMailed, 7*24*time.Hour)
	e = rcv.WaitFor(client.WebhookLetterMailed, id, 5*time.Second)
	fmt.Println(e.Type, e.Data.Object.Status)
	// Output:
	// letter.created queued
	// letter.mailed mailed
}
