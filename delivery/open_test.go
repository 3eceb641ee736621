package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/webhook"
)

const acct = "acct_1"

var start = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// newService is a Service over a fresh memstore on a stopped clock, with
// the options given; it is closed when the test ends.
func newService(t *testing.T, opts ...lettershop.Option) *lettershop.Service {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(start)
	svc := lettershop.New(memstore.New(), append([]lettershop.Option{lettershop.WithClock(mc)}, opts...)...)
	t.Cleanup(func() { svc.Close() })
	return svc
}

// createLetters makes n letters in the account: the letter.created event
// of each is a delivery to each of the account's webhooks.
func createLetters(t testing.TB, svc *lettershop.Service, account string, n int) {
	t.Helper()
	ctx := context.Background()
	asset, err := svc.CreateAsset(ctx, account, lettershop.CreateAssetInput{Name: "Notice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, account, asset.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Your order has shipped.</p>"}, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := svc.CreateLetter(ctx, account, lettershop.CreateLetterInput{
			Sender:    &lettershop.PartyInput{Organization: "Acme Corp", Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
			Recipient: &lettershop.PartyInput{Organization: "Globex", Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
			Content:   &lettershop.LetterContent{Type: lettershop.LetterContentAsset, AssetID: asset.ID},
			UseType:   lettershop.UseTransactional,
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func createWebhook(t testing.TB, svc *lettershop.Service, account, url string) *lettershop.Webhook {
	t.Helper()
	w, err := svc.CreateWebhook(context.Background(), account, lettershop.CreateWebhookInput{URL: url, Events: []lettershop.WebhookEventType{lettershop.WebhookLetterCreated}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func deliveriesOf(t *testing.T, svc *lettershop.Service, account, webhookID string) []*lettershop.WebhookDelivery {
	t.Helper()
	p, err := svc.ListDeliveries(context.Background(), account, webhookID, lettershop.ListDeliveriesInput{PageRequest: lettershop.PageRequest{PageSize: 100}})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// settled waits until no delivery of the webhook is under way and the
// attempts made number n in all, and returns its deliveries.
func settled(t *testing.T, svc *lettershop.Service, account, webhookID string, attempts int) []*lettershop.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ds, n, busy := deliveriesOf(t, svc, account, webhookID), 0, false
		for _, d := range ds {
			busy = busy || d.Status == lettershop.DeliveryPending && d.LastAttemptAt != nil && !d.NextAttemptAt.After(*d.LastAttemptAt)
			n += d.Attempt
		}
		if !busy && n == attempts {
			return ds
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts recorded, not under way: %d so far, under way %v", attempts, n, busy)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// WithHosts limits the hosts webhooks may post to, by name, by "*.domain"
// for the names under it, or by address: the Service refuses a webhook url
// of another host when it is given, through the Deliverer's CheckHost.
func TestWithHosts(t *testing.T) {
	svc := newService(t, lettershop.WithDeliverer(delivery.OpenWith(delivery.WithHosts("hooks.example.com", "*.example.org", "10.0.0.1"))))
	for u, ok := range map[string]bool{
		"https://hooks.example.com/in":       true,
		"https://HOOKS.example.com./in":      true,
		"https://a.b.example.org/in":         true,
		"http://10.0.0.1:8080/in":            true,
		"https://example.org/in":             false,
		"https://example.com/in":             false,
		"http://127.0.0.1/in":                false,
		"https://evil.com/hooks.example.com": false,
	} {
		_, err := svc.CreateWebhook(context.Background(), acct, lettershop.CreateWebhookInput{URL: u})
		var e *lettershop.Error
		switch {
		case ok && err != nil:
			t.Errorf("%s: %v, want it allowed", u, err)
		case !ok && (!errors.As(err, &e) || !strings.Contains(e.Fields["url"], "not one webhooks may reach")):
			t.Errorf("%s: %v, want the url refused for its host", u, err)
		}
	}

	// Without a list, any host.
	var d *lettershop.Deliveries
	newService(t).UseDeliverer(func(ds *lettershop.Deliveries) lettershop.Deliverer { d = ds; return idle{} })
	open := delivery.OpenWith()(d)
	defer open.Close()
	if err := open.(lettershop.HostChecker).CheckHost("anywhere.example.net"); err != nil {
		t.Errorf("no list: %v", err)
	}
}

// idle is a Deliverer that does nothing.
type idle struct{}

func (idle) Wake()  {}
func (idle) Close() {}

// roundTrip is an http.RoundTripper of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// WithClient's client posts the events, signed with the webhook's secret
// at the Service's wall clock.
func TestWithClient(t *testing.T) {
	wall := clock.NewMock()
	wall.Set(start.Add(time.Hour))
	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	c := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		got, bodies = append(got, r), append(bodies, body)
		mu.Unlock()
		return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Body: http.NoBody, Request: r}, nil
	})}
	svc := newService(t, lettershop.WithWallClock(wall), lettershop.WithDeliverer(delivery.OpenWith(delivery.WithClient(c))))
	w := createWebhook(t, svc, acct, "https://hooks.example.com/in")
	createLetters(t, svc, acct, 1)
	if d := settled(t, svc, acct, w.ID, 1)[0]; d.Status != lettershop.DeliverySucceeded || d.StatusCode == nil || *d.StatusCode != 204 {
		t.Fatalf("delivery %+v, want succeeded", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].URL.String() != w.URL || got[0].Method != http.MethodPost {
		t.Fatalf("the client was given %v, want one post to %s", got, w.URL)
	}
	if err := webhook.VerifyAt(w.Secret, got[0].Header.Get(webhook.SignatureHeader), bodies[0], time.Second, wall.Now()); err != nil {
		t.Errorf("the post's signature at the wall clock's time: %v", err)
	}
}

// A receiver slower than the timeout, one that never answers, and one that
// is not there: each attempt fails with what happened, and is retried.
func TestUnansweredAttempts(t *testing.T) {
	svc := newService(t, lettershop.WithDeliverer(delivery.OpenWith(delivery.WithTimeout(100*time.Millisecond))))
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // read nothing, answer nothing
		}
	}()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneURL := "http://" + gone.Addr().String() + "/hooks"
	gone.Close()

	cases := map[string]string{slow.URL: "no answer within 100ms", "http://" + silent.Addr().String() + "/": "no answer within 100ms", goneURL: "no answer: "}
	hooks := map[string]*lettershop.Webhook{}
	for u := range cases {
		hooks[u] = createWebhook(t, svc, acct, u)
	}
	createLetters(t, svc, acct, 1)
	for u, want := range cases {
		d := settled(t, svc, acct, hooks[u].ID, 1)[0]
		if d.Status != lettershop.DeliveryPending || d.StatusCode != nil || d.Error == nil || !strings.Contains(*d.Error, want) ||
			!d.NextAttemptAt.Equal(start.Add(time.Minute)) {
			t.Errorf("%s: %+v (error %v), want pending, %q", u, d, d.Error, want)
		}
	}
}

// One account's receiver hangs: every attempt it gets waits until the test
// lets it go. Another account's events go out meanwhile, however many of the
// first account's events wait behind its hanging attempts: a hanging
// receiver holds back its own account only, and that account has at most
// WithPerAccount attempts under way at once.
func TestHangingReceiverCostsItsAccountOnly(t *testing.T) {
	for _, waiting := range []int{12, 40} {
		t.Run(fmt.Sprintf("%d letters waiting", waiting), func(t *testing.T) {
			const workers = 4
			// Attempts end when the test lets them, never by the timeout.
			svc := newService(t, lettershop.WithDeliverer(delivery.OpenWith(delivery.WithPerAccount(workers), delivery.WithTimeout(time.Hour))))
			const other = "acct_other"
			arrived := make(chan string, 2*waiting)
			release := make(chan struct{})
			hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived <- acct
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			t.Cleanup(hanging.Close)
			var released sync.Once
			letGo := func() { released.Do(func() { close(release) }) }
			t.Cleanup(letGo) // before the server closes: Cleanup runs last in first out
			prompt := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { arrived <- other }))
			t.Cleanup(prompt.Close)
			next := func(what string) string {
				t.Helper()
				select {
				case a := <-arrived:
					return a
				case <-time.After(10 * time.Second):
					t.Fatalf("no request came: %s", what)
					return ""
				}
			}

			slow := createWebhook(t, svc, acct, hanging.URL)
			fast := createWebhook(t, svc, other, prompt.URL)
			createLetters(t, svc, acct, waiting)
			for i := range workers {
				if a := next(fmt.Sprintf("attempt %d of the hanging account", i+1)); a != acct {
					t.Fatalf("request %d came for %s, want %s", i+1, a, acct)
				}
			}
			createLetters(t, svc, other, 1)
			if a := next("the other account's event, while the first account's receiver hangs"); a != other {
				t.Fatalf("the next request came for %s while %d attempts hang: want the other account's, and no more than %d attempts of a hanging account at once",
					a, workers, workers)
			}
			d := settled(t, svc, other, fast.ID, 1)
			if len(d) != 1 || d[0].Status != lettershop.DeliverySucceeded {
				t.Errorf("the other account's delivery: %+v, want succeeded", d)
			}
			attempted, untried := 0, 0
			for _, d := range deliveriesOf(t, svc, acct, slow.ID) {
				switch {
				case d.Status != lettershop.DeliveryPending:
					t.Errorf("delivery %s is %s while its receiver hangs", d.ID, d.Status)
				case d.Attempt == 1:
					attempted++
				case d.Attempt == 0:
					untried++
				}
			}
			if attempted != workers || untried != waiting-workers {
				t.Errorf("the hanging account's deliveries: %d under way, %d not yet tried; want %d and %d", attempted, untried, workers, waiting-workers)
			}

			// Let go, the hanging account's events all go out.
			letGo()
			for i := workers; i < waiting; i++ {
				if a := next("the hanging account's events, let go"); a != acct {
					t.Fatalf("request for %s, want %s", a, acct)
				}
			}
			settled(t, svc, acct, slow.ID, waiting)
		})
	}
}

// WithHosts matches hosts as the egress policy's list does: a listed name
// with a final dot or in capitals, an address in brackets and a network
// are matched; an empty entry is skipped, but a list of nothing else
// allows no host (a setting read empty never opens every host), while
// WithHosts with no entry, as the default, allows any.
func TestWithHostsMatchesAsEgress(t *testing.T) {
	var d *lettershop.Deliveries
	newService(t).UseDeliverer(func(ds *lettershop.Deliveries) lettershop.Deliverer { d = ds; return idle{} })
	for _, c := range []struct {
		hosts   []string
		allowed []string
		refused []string
	}{
		{[]string{"Hooks.Example.COM.", "[::1]", "10.1.0.0/16"}, []string{"hooks.example.com", "HOOKS.example.com.", "::1", "[::1]", "10.1.2.3"}, []string{"example.com", "::2", "10.2.0.1"}},
		{[]string{"", "hooks.example.com"}, []string{"hooks.example.com"}, []string{"example.com"}},
		{[]string{""}, nil, []string{"anywhere.example.net", "127.0.0.1"}},
		{[]string{" ", ""}, nil, []string{"hooks.example.com"}},
		{nil, []string{"anywhere.example.net", "127.0.0.1"}, nil},
	} {
		open := delivery.OpenWith(delivery.WithHosts(c.hosts...))(d)
		for _, h := range c.allowed {
			if err := open.(lettershop.HostChecker).CheckHost(h); err != nil {
				t.Errorf("WithHosts(%q): %s refused: %v", c.hosts, h, err)
			}
		}
		for _, h := range c.refused {
			if err := open.(lettershop.HostChecker).CheckHost(h); err == nil {
				t.Errorf("WithHosts(%q): %s allowed", c.hosts, h)
			}
		}
		open.Close()
	}
}

// WithHosts with a malformed entry (a network of 33 bits, which is no
// host name either) allows no host, the listed ones included, and the
// refusal names the entry as egress.ListHosts does.
func TestWithHostsMalformedAllowsNone(t *testing.T) {
	var d *lettershop.Deliveries
	newService(t).UseDeliverer(func(ds *lettershop.Deliveries) lettershop.Deliverer { d = ds; return idle{} })
	open := delivery.OpenWith(delivery.WithHosts("hooks.example.com", "10.0.0.0/33"))(d)
	defer open.Close()
	for _, h := range []string{"hooks.example.com", "10.0.0.0/33", "10.0.0.1"} {
		err := open.(lettershop.HostChecker).CheckHost(h)
		if err == nil || !strings.Contains(err.Error(), `"10.0.0.0/33": want a network`) {
			t.Errorf("CheckHost(%q) = %v, want a refusal naming the malformed entry", h, err)
		}
	}
}

// table is a resolver answering from a map, so that no lookup leaves the
// machine; any other name is not found.
type table map[string]string

func (t table) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := t[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// An attempt's error is sorted as the egress client sorts it: a name not
// found says so, a refused address is not sent, and a client's own
// timeout, shorter than the attempt's, is no answer within it. (A url with
// a user name or password is refused when the webhook is made.)
func TestAttemptErrorsSortedAsEgress(t *testing.T) {
	svc := newService(t, lettershop.WithEgress(egress.Default(), egress.WithResolver(table{"meta.test": "169.254.169.254"})),
		lettershop.WithDeliverer(delivery.OpenWith(delivery.WithTimeout(time.Second))))
	w := createWebhook(t, svc, acct, "http://nowhere.test/in")
	meta := createWebhook(t, svc, acct, "http://meta.test/in")
	createLetters(t, svc, acct, 1)
	if d := settled(t, svc, acct, w.ID, 1)[0]; d.Error == nil || *d.Error != "the host nowhere.test is not found" {
		t.Errorf("a name not found: %s, error %s", d.Status, errText(d))
	}
	if d := settled(t, svc, acct, meta.ID, 1)[0]; d.Error == nil || !strings.HasPrefix(*d.Error, "not sent: meta.test resolves to 169.254.169.254") {
		t.Errorf("a refused address: %s, error %s", d.Status, errText(d))
	}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	svc = newService(t, lettershop.WithDeliverer(delivery.OpenWith(delivery.WithTimeout(time.Minute),
		delivery.WithClient(&http.Client{Timeout: 50 * time.Millisecond}))))
	w = createWebhook(t, svc, acct, slow.URL)
	createLetters(t, svc, acct, 1)
	if d := settled(t, svc, acct, w.ID, 1)[0]; d.Error == nil || *d.Error != "no answer within 50ms" {
		t.Errorf("the client's timeout: %s, error %s", d.Status, errText(d))
	}
}

// errText is the delivery's error, quoted, or "none".
func errText(d *lettershop.WebhookDelivery) string {
	if d.Error == nil {
		return "none"
	}
	return strconv.Quote(*d.Error)
}
