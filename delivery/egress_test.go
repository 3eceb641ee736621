package delivery_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/egress"
)

// asked is a table that notes the names it is asked for.
type asked struct {
	table
	mu    sync.Mutex
	names []string
}

func (a *asked) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	a.mu.Lock()
	a.names = append(a.names, host)
	a.mu.Unlock()
	return a.table.LookupNetIP(ctx, network, host)
}

// Deliveries go through the Service's egress policy: a receiver on
// loopback gets them; a name that resolves to a refused address, or off a
// restricted list, is not dialled, and the delivery says why.
func TestAttemptsKeepTheEgressPolicy(t *testing.T) {
	var got atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { got.Add(1) }))
	t.Cleanup(rcv.Close)
	u, err := url.Parse(rcv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := &asked{table: table{"hooks.test": "127.0.0.1", "other.test": "127.0.0.1",
		"meta.test": "169.254.169.254", "mapped.test": "::ffff:169.254.169.254"}}
	policy, err := egress.Allow("hooks.test", "meta.test", "mapped.test", "10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(t, lettershop.WithEgress(policy, egress.WithResolver(r)), lettershop.WithDeliverer(delivery.Open))
	good := createWebhook(t, svc, acct, "http://hooks.test:"+u.Port()+"/in")
	refused := map[*lettershop.Webhook]string{
		createWebhook(t, svc, acct, "http://other.test:"+u.Port()+"/in"): "not sent: other.test (at 127.0.0.1) is not among the hosts and networks this server may reach",
		createWebhook(t, svc, acct, "http://meta.test:"+u.Port()+"/in"):  "not sent: meta.test resolves to 169.254.169.254, which is a cloud metadata address",
		createWebhook(t, svc, acct, "http://mapped.test/in"):             "not sent: mapped.test resolves to ::ffff:169.254.169.254",
	}
	createLetters(t, svc, acct, 1)

	if d := settled(t, svc, acct, good.ID, 1)[0]; d.Status != lettershop.DeliverySucceeded {
		t.Errorf("to a listed name on loopback: %+v (error %s)", d, errText(d))
	}
	if n := got.Load(); n != 1 {
		t.Errorf("the receiver got %d requests, want 1", n)
	}
	for w, want := range refused {
		d := settled(t, svc, acct, w.ID, 1)[0]
		if d.Status != lettershop.DeliveryPending || d.StatusCode != nil || d.Error == nil || !strings.Contains(*d.Error, want) {
			t.Errorf("%s: %+v (error %s), want pending, %q", w.URL, d, errText(d), want)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if names := strings.Join(r.names, " "); !strings.Contains(names, "hooks.test") || !strings.Contains(names, "meta.test") {
		t.Errorf("names looked up: %s; the webhooks' names should be", names)
	}
}

// The Service's Close closes the connections its egress clients keep for
// reuse: a receiver sees the connection of a delivery closed.
func TestCloseEndsConnections(t *testing.T) {
	var mu sync.Mutex
	states := map[net.Conn]http.ConnState{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		states[c] = s
	}
	srv.Start()
	defer srv.Close()
	svc := newService(t, lettershop.WithDeliverer(delivery.Open))
	w := createWebhook(t, svc, acct, srv.URL+"/in")
	createLetters(t, svc, acct, 1)
	if d := settled(t, svc, acct, w.ID, 1)[0]; d.Status != lettershop.DeliverySucceeded {
		t.Fatalf("delivery %+v (error %s)", d, errText(d))
	}
	open := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, s := range states {
			if s != http.StateClosed && s != http.StateHijacked {
				n++
			}
		}
		return n
	}
	if open() == 0 {
		t.Fatal("no connection is kept after the delivery; the test shows nothing")
	}
	svc.Close()
	for deadline := time.Now().Add(10 * time.Second); open() > 0; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of the receiver's connections still open after Close", open())
		}
	}
}
