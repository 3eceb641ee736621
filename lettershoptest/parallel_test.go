package lettershoptest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/lettershoptest"
)

// TestParallelAccountsAreApart runs 50 parallel subtests on one server,
// each with an account of its own that moves its own clock by a different
// amount, half of them over HTTP and half from Go: each sees only its own
// time, its own letters, its own faults and its own journal.
func TestParallelAccountsAreApart(t *testing.T) {
	srv := lettershoptest.New(t)
	t.Run("group", func(t *testing.T) {
		for i := range 50 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				parallelAccount(t, srv, i)
			})
		}
	})
	if !srv.Now().Equal(lettershoptest.DefaultStart) {
		t.Errorf("the server's clock moved to %s", srv.Now())
	}
}

func parallelAccount(t *testing.T, srv *lettershoptest.Server, i int) {
	acct := srv.NewAccount().For(t)
	name := fmt.Sprintf("Person%d", i)
	do := func(method, path, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("X-Api-Key", acct.APIKey)
		req.Header.Set("Idempotency-Key", name) // GET ignores it; the journal keeps it
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}

	// Each account moves its clock by a lead of its own before it mails:
	// i hours, over HTTP for odd i, from Go for even.
	lead := time.Duration(i) * time.Hour
	if i%2 == 1 {
		if code, body := do("POST", "/_test/clock/advance", fmt.Sprintf(`{"duration":%q}`, lead)); code != http.StatusOK {
			t.Fatalf("advance over HTTP: %d %s", code, body)
		}
	} else {
		acct.Advance(lead)
	}
	start := lettershoptest.DefaultStart.Add(lead)
	if got := acct.Now(); !got.Equal(start) {
		t.Fatalf("account clock %s after a lead of %s, want %s", got, lead, start)
	}
	id := sendWelcome(t, srv.Service(), acct.ID, name)

	// A fault of this account's: its every list of assets fails.
	acct.Fault(client.Fault{Method: "GET", Path: "/assets", Status: 500})
	if got, _ := do("GET", "/v1/assets", ""); got != http.StatusInternalServerError {
		t.Errorf("own fault: %d, want 500", got)
	}
	code, body := do("GET", "/v1/letters/"+id, "")
	var l client.Letter
	if code != http.StatusOK || json.Unmarshal(body, &l) != nil {
		t.Fatalf("own letter: %d %s (another account's fault met it?)", code, body)
	}
	if !l.CreatedAt.Equal(start) {
		t.Errorf("letter created at %s, want the account's time %s", l.CreatedAt, start)
	}

	// Mailed on the account's own clock: every event at or before its time.
	l = *acct.WaitForStatus(id, client.StatusMailed, 10*24*time.Hour)
	now := acct.Now()
	for _, e := range l.Events {
		if e.Timestamp.Before(start) || e.Timestamp.After(now) {
			t.Errorf("event %s at %s, outside the account's time %s to %s", e.Status, e.Timestamp, start, now)
		}
	}

	letters := acct.Letters()
	if len(letters) != 1 || letters[0].ID != id || letters[0].Recipient.Individual.FirstName != name {
		t.Errorf("letters %v, want the one to %s", letters, name)
	}
	reqs := acct.Requests()
	if len(reqs) != 2 { // the test routes are not journaled
		t.Fatalf("journal has %d entries, want this subtest's 2: %+v", len(reqs), reqs)
	}
	for _, e := range reqs {
		if e.IdempotencyKey != name {
			t.Errorf("journal entry of another account: %+v", e)
		}
	}
	if last := reqs[len(reqs)-1]; !last.Time.Equal(start) {
		t.Errorf("journal time %s, want the account's time when it asked, %s", last.Time, start)
	}
	if !strings.Contains(acct.PDFText(id), "Dear "+name) {
		t.Errorf("PDF of %s lacks the name", id)
	}
}
