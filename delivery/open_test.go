package delivery_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
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

// createLetter makes a letter in the account: its letter.created event is
// a delivery to each of the account's webhooks.
func createLetter(t *testing.T, svc *lettershop.Service) {
	t.Helper()
	ctx := context.Background()
	asset, err := svc.CreateAsset(ctx, acct, lettershop.CreateAssetInput{Name: "Notice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, acct, asset.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Your order has shipped.</p>"}, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateLetter(ctx, acct, lettershop.CreateLetterInput{
		Sender:    &lettershop.PartyInput{Organization: "Acme Corp", Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &lettershop.PartyInput{Organization: "Globex", Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
		Content:   &lettershop.LetterContent{Type: lettershop.LetterContentAsset, AssetID: asset.ID},
		UseType:   lettershop.UseTransactional,
	}); err != nil {
		t.Fatal(err)
	}
}

// settled waits until the webhook's one delivery is attempted and no
// longer pending, and returns it.
func settled(t *testing.T, svc *lettershop.Service, webhookID string) *lettershop.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, err := svc.ListDeliveries(context.Background(), acct, webhookID, lettershop.ListDeliveriesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) == 1 && p.Items[0].Status != lettershop.DeliveryPending {
			return p.Items[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery did not settle: %+v", p.Items)
		}
		time.Sleep(time.Millisecond)
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
	w, err := svc.CreateWebhook(context.Background(), acct, lettershop.CreateWebhookInput{URL: "https://hooks.example.com/in"})
	if err != nil {
		t.Fatal(err)
	}
	createLetter(t, svc)
	if d := settled(t, svc, w.ID); d.Status != lettershop.DeliverySucceeded || d.StatusCode == nil || *d.StatusCode != 204 {
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
