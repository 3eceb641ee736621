package lettershoptest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/lettershoptest"
)

// TestParallelAccountsAreApart runs 50 parallel subtests on one server,
// each with an account of its own: each sees only its own letters, its own
// faults and its own journal. (Time is the server's for all of them until
// accounts get clocks of their own, so none of them moves it here.)
func TestParallelAccountsAreApart(t *testing.T) {
	srv := lettershoptest.New(t)
	for i := range 50 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			acct := srv.NewAccount()
			name := fmt.Sprintf("Person%d", i)
			id := sendWelcome(t, srv.Service(), acct.ID, name)

			// A fault of this account's: its every list of assets fails.
			acct.Fault(httpadapter.Fault{Method: "GET", Path: "/assets", Status: 500})
			get := func(path string) int {
				req, _ := http.NewRequest("GET", srv.URL+path, nil)
				req.Header.Set("X-Api-Key", acct.APIKey)
				req.Header.Set("Idempotency-Key", name) // GET ignores it; the journal keeps it
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode
			}
			if got := get("/v1/assets"); got != http.StatusInternalServerError {
				t.Errorf("own fault: %d, want 500", got)
			}
			if got := get("/v1/letters/" + id); got != http.StatusOK {
				t.Errorf("own letter: %d, want 200 (another account's fault met it?)", got)
			}

			letters := acct.Letters()
			if len(letters) != 1 || letters[0].ID != id || letters[0].Recipient.Individual.FirstName != name {
				t.Errorf("letters %v, want the one to %s", letters, name)
			}
			reqs := acct.Requests()
			if len(reqs) != 2 {
				t.Fatalf("journal has %d entries, want this subtest's 2: %+v", len(reqs), reqs)
			}
			for _, e := range reqs {
				if e.IdempotencyKey != name {
					t.Errorf("journal entry of another account: %+v", e)
				}
			}
			if !strings.Contains(acct.PDFText(id), "Dear "+name) {
				t.Errorf("PDF of %s lacks the name", id)
			}
		})
	}
}
