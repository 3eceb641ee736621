package welcome_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/examples/welcome"
	"github.com/lettershop/lettershop/lettershoptest"
)

// SendWelcome, end to end: the application's own client code against the
// server, the letter mailed on the account's clock, the PDF read back.
func TestSendWelcome(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	m, err := welcome.NewMailer(t.Context(), acct.Client())
	if err != nil {
		t.Fatal(err)
	}
	id, err := m.SendWelcome(t.Context(), "Jane")
	if err != nil {
		t.Fatal(err)
	}
	acct.WaitForStatus(id, client.StatusMailed, 7*24*time.Hour)
	if !strings.Contains(acct.PDFText(id), "Dear Jane") {
		t.Error("the letter does not greet Jane")
	}
}

// A 429 with the account's clock a day ahead of the wall's: the client
// waits Retry-After on the account's clock, and the letter is made once.
func TestSendWelcomeRetriesA429(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	acct.Advance(24 * time.Hour)
	m, err := welcome.NewMailer(t.Context(), acct.Client())
	if err != nil {
		t.Fatal(err)
	}
	acct.Fault(client.Fault{Method: "POST", Path: "/letters", Status: http.StatusTooManyRequests, Times: 1})
	if _, err := m.SendWelcome(t.Context(), "Jane"); err != nil {
		t.Fatal(err)
	}
	if n := len(acct.Letters()); n != 1 {
		t.Errorf("%d letters, want 1", n)
	}
}

// Delivered is a tracking event of a mailed letter, awaited as such.
func TestWelcomeDelivered(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	m, _ := welcome.NewMailer(t.Context(), acct.Client())
	id, _ := m.SendWelcome(t.Context(), "Jane")
	l := acct.WaitForEvent(id, client.EventDelivered, 30*24*time.Hour)
	if l.Status != client.StatusMailed {
		t.Errorf("a delivered letter is %s", l.Status)
	}
}

// The application's own webhook handler, behind a webhook the helper
// makes, gets the delivered event verified.
func TestWebhookHandler(t *testing.T) {
	srv := lettershoptest.New(t)
	acct := srv.NewAccount()
	got := make(chan string, 1)
	rcv := acct.ServeWebhooks(welcome.WebhookHandler(acct.WebhookSecret, func(id string) { got <- id }), client.WebhookLetterDelivered)

	m, _ := welcome.NewMailer(t.Context(), acct.Client())
	id, _ := m.SendWelcome(t.Context(), "Jane")
	acct.WaitForEvent(id, client.EventDelivered, 30*24*time.Hour)
	rcv.WaitFor(client.WebhookLetterDelivered, id, 10*time.Second)
	if delivered := <-got; delivered != id {
		t.Errorf("the handler was told of %s, want %s", delivered, id)
	}
}

// A fixture built once (a template and a letter), restored into an
// account per parallel subtest.
func TestFixtureInParallel(t *testing.T) {
	srv := lettershoptest.New(t)
	src := srv.NewAccount()
	m, err := welcome.NewMailer(t.Context(), src.Client())
	if err != nil {
		t.Fatal(err)
	}
	first, _ := m.SendWelcome(t.Context(), "Founder")
	assetID := src.Letter(first).Content.AssetID
	snap := src.Snapshot()

	var mu sync.Mutex
	letters := map[string]bool{}
	t.Run("each", func(t *testing.T) {
		for i := range 100 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				acct := srv.NewAccount().For(t)
				ids := acct.Restore(snap)
				id, err := welcome.ForAsset(acct.Client(), ids[assetID]).SendWelcome(t.Context(), fmt.Sprint("Guest", i))
				if err != nil {
					t.Fatal(err)
				}
				if n := len(acct.Letters()); n != 2 {
					t.Errorf("%d letters, want the fixture's and this one", n)
				}
				mu.Lock()
				letters[ids[first]], letters[id] = true, true
				mu.Unlock()
			})
		}
	})
	if len(letters) != 200 {
		t.Errorf("%d distinct letters over 100 accounts, want 200", len(letters))
	}
}

// BenchmarkRetry429DayAhead is SendWelcome meeting an injected 429 with the
// account's clock a day ahead; the baseline sends without the fault. The
// client waits on the account's clock, so the two cost about the same in
// wall time.
func BenchmarkRetry429DayAhead(b *testing.B) {
	srv := lettershoptest.New(b)
	for _, fault := range []bool{false, true} {
		b.Run(fmt.Sprint("fault=", fault), func(b *testing.B) {
			acct := srv.NewAccount()
			acct.Advance(24 * time.Hour)
			m, err := welcome.NewMailer(b.Context(), acct.Client())
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				if fault {
					acct.Fault(client.Fault{Method: "POST", Path: "/letters", Status: http.StatusTooManyRequests, Times: 1})
				}
				i++
				if _, err := m.SendWelcome(b.Context(), fmt.Sprint("Jane", i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
