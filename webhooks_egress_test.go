package lettershop_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/egress"
)

// names is an egress.Resolver answering from a map, so that no lookup
// leaves the machine.
type names struct {
	mu    sync.Mutex
	addrs map[string]string
	asked []string
}

func (n *names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.asked = append(n.asked, host)
	a, ok := n.addrs[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// A webhook url naming a refused address, in any of its forms, is refused
// when the webhook is made or changed; a name is decided when dialled.
func TestWebhookEgressURLs(t *testing.T) {
	e := newEnv(t)
	w := e.createWebhook(t, acct, "https://hooks.example.com/in")
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/",
		"http://0xA9FEA9FE/", "http://2852039166/", "http://0251.0376.0251.0376/", "https://[fd00:ec2::254]/",
		"http://100.100.100.200/", "http://[fe80::1]:8080/", "http://0.0.0.0:8080/", "http://metadata.google.internal/",
	} {
		_, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: u})
		wantFields(t, err, "url")
		if msg := fieldsOf(t, err)["url"]; !strings.Contains(msg, "never connects") {
			t.Errorf("%s: %q does not say why", u, msg)
		}
		_, err = e.svc.UpdateWebhook(e.ctx, acct, w.ID, lettershop.UpdateWebhookInput{URL: &u})
		wantFields(t, err, "url")
	}
	_, err := e.svc.CreateWebhook(e.ctx, acct, lettershop.CreateWebhookInput{URL: "http://0x7f000001:8080/"})
	if msg := fieldsOf(t, err)["url"]; !strings.Contains(msg, "write it as 127.0.0.1") {
		t.Errorf("a numeric loopback address: %q", msg)
	}
	for _, u := range []string{"http://127.0.0.1:8080/in", "http://[::1]/in", "http://10.0.0.7/in", "http://localhost/in"} {
		e.createWebhook(t, acct, u)
	}
	if got, err := e.svc.GetWebhook(e.ctx, acct, w.ID); err != nil || got.URL != "https://hooks.example.com/in" {
		t.Errorf("the webhook after refused changes: %+v, %v", got, err)
	}

	// A restricted policy refuses addresses off its list now, and names
	// when dialled.
	limited := newEnv(t, lettershop.WithEgress(mustAllow(t, "10.0.0.0/8")))
	for u, ok := range map[string]bool{
		"http://10.1.2.3/in": true, "https://hooks.example.com/in": true,
		"http://127.0.0.1:8080/in": false, "http://192.168.0.1/in": false, "http://169.254.169.254/": false,
	} {
		_, err := limited.svc.CreateWebhook(limited.ctx, acct, lettershop.CreateWebhookInput{URL: u})
		if ok && err != nil {
			t.Errorf("%s: %v, want it allowed", u, err)
		}
		if !ok {
			wantFields(t, err, "url")
		}
	}
	byName := newEnv(t, lettershop.WithEgress(mustAllow(t, "hooks.example.com")))
	_, err = byName.svc.CreateWebhook(byName.ctx, acct, lettershop.CreateWebhookInput{URL: "https://other.example.com/in"})
	wantFields(t, err, "url")
}

func mustAllow(t *testing.T, entries ...string) egress.Policy {
	t.Helper()
	p, err := egress.Allow(entries...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Deliveries go through the egress policy: a receiver on loopback gets
// them; a name that resolves to a refused address, or off a restricted
// list, is not dialled, and the delivery says why.
func TestWebhookEgressDeliveries(t *testing.T) {
	rcv := newReceiver(t)
	u, err := url.Parse(rcv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := &names{addrs: map[string]string{"hooks.test": "127.0.0.1", "other.test": "127.0.0.1",
		"meta.test": "169.254.169.254", "mapped.test": "::ffff:169.254.169.254"}}
	e := newEnv(t, lettershop.WithEgress(mustAllow(t, "hooks.test", "meta.test", "mapped.test", "10.0.0.0/8"), egress.WithResolver(r)))
	good := e.createWebhook(t, acct, "http://hooks.test:"+u.Port()+"/in", lettershop.WebhookLetterCreated)
	refused := map[*lettershop.Webhook]string{
		e.createWebhook(t, acct, "http://other.test:"+u.Port()+"/in", lettershop.WebhookLetterCreated): "not sent: other.test (at 127.0.0.1) is not among the hosts and networks this server may reach",
		e.createWebhook(t, acct, "http://meta.test:"+u.Port()+"/in", lettershop.WebhookLetterCreated):  "not sent: meta.test resolves to 169.254.169.254, which is a cloud metadata address",
		e.createWebhook(t, acct, "http://mapped.test/in", lettershop.WebhookLetterCreated):             "not sent: mapped.test resolves to ::ffff:169.254.169.254",
	}
	e.createLetterIn(t, acct)

	if d := e.settled(t, acct, good.ID, 1)[0]; d.Status != lettershop.DeliverySucceeded {
		t.Errorf("to a listed name on loopback: %+v (error %v)", d, d.Error)
	}
	if n := len(rcv.received()); n != 1 {
		t.Errorf("the receiver got %d requests, want 1", n)
	}
	for w, want := range refused {
		d := e.settled(t, acct, w.ID, 1)[0]
		if d.Status != lettershop.DeliveryPending || d.StatusCode != nil || d.Error == nil || !strings.Contains(*d.Error, want) {
			t.Errorf("%s: %+v (error %q), want pending, %q", w.URL, d, deref(d.Error), want)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if got := strings.Join(r.asked, " "); !strings.Contains(got, "hooks.test") || !strings.Contains(got, "meta.test") {
		t.Errorf("names looked up: %s; the webhooks' names should be", got)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// Close closes the connections the Service's egress clients keep for
// reuse: a receiver sees the connection of a delivery closed.
func TestCloseEndsWebhookConnections(t *testing.T) {
	var mu sync.Mutex
	states := map[net.Conn]http.ConnState{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		states[c] = s
	}
	srv.Start()
	defer srv.Close()
	e := newEnv(t)
	w := e.createWebhook(t, acct, srv.URL+"/in", lettershop.WebhookLetterCreated)
	e.createLetterIn(t, acct)
	if d := e.settled(t, acct, w.ID, 1)[0]; d.Status != lettershop.DeliverySucceeded {
		t.Fatalf("delivery %+v", d)
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
	e.svc.Close()
	waitFor(t, "the receiver's connections closed", func() bool { return open() == 0 })
}
