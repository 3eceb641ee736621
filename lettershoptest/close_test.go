package lettershoptest_test

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/lettershoptest"
)

func portOf(t testing.TB, rawURL string) int {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A server that ends leaves its port free: the clients the helper handed
// out, and http.DefaultTransport's, close their connections to it before
// it closes, so the connections' TIME_WAIT is on the clients' ports. Held
// on the server's, each would be one more port that the search for a free
// port of every later New passes over, and a suite that makes a server per
// test would slow as it ran, and from one run to the next.
func TestEndedServerHoldsNoPort(t *testing.T) {
	if _, ok := lettershoptest.TimeWaitOn(0); !ok {
		t.Skip("no /proc/net/tcp")
	}
	var port int
	t.Run("test", func(t *testing.T) {
		srv := lettershoptest.New(t)
		acct := srv.NewAccount()
		port = portOf(t, srv.URL)
		if _, err := acct.Client().ListAssetsPage(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range []*http.Client{srv.Client(), http.DefaultClient} {
			req, _ := http.NewRequest("GET", srv.URL+"/v1/letters", nil)
			req.Header.Set("X-Api-Key", acct.APIKey)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	if n, _ := lettershoptest.TimeWaitOn(port); n != 0 {
		t.Errorf("%d connections in TIME_WAIT hold the ended server's port %d", n, port)
	}
}

// A webhook receiver that ends leaves its port free as the server does:
// the Service's webhook client closes its connections to the receiver
// before the receiver closes, so their TIME_WAIT is on the client's ports,
// not one more port held per test that receives webhooks.
func TestEndedReceiverHoldsNoPort(t *testing.T) {
	if _, ok := lettershoptest.TimeWaitOn(0); !ok {
		t.Skip("no /proc/net/tcp")
	}
	var port int
	t.Run("test", func(t *testing.T) {
		srv := lettershoptest.New(t)
		acct := srv.NewAccount()
		rcv := acct.NewReceiver(client.WebhookLetterCreated)
		port = portOf(t, rcv.URL)
		id := sendWelcome(t, srv.Service(), acct.ID, "Jane")
		rcv.WaitFor(client.WebhookLetterCreated, id, 10*time.Second)
	})
	if n, _ := lettershoptest.TimeWaitOn(port); n != 0 {
		t.Errorf("%d connections in TIME_WAIT hold the ended receiver's port %d", n, port)
	}
}
