package delivery

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
)

// idleDeliverer is a Deliverer that does nothing: the test runs the
// Source by hand.
type idleDeliverer struct{}

func (idleDeliverer) Wake()  {}
func (idleDeliverer) Close() {}

// A delivery whose attempt is still under way when its lease passes (the
// wall clock moved on) is not taken again alongside; once the attempt
// ends, its outcome is recorded and it is not under way any more.
func TestDeliveryUnderWayNotTakenAgain(t *testing.T) {
	mc, wall := clock.NewMock(), clock.NewMock()
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	mc.Set(start)
	wall.Set(start)
	svc := lettershop.New(memstore.New(), lettershop.WithClock(mc), lettershop.WithWallClock(wall))
	t.Cleanup(func() { svc.Close() })
	var d *lettershop.Deliveries
	svc.UseDeliverer(func(ds *lettershop.Deliveries) lettershop.Deliverer { d = ds; return idleDeliverer{} })
	ctx := context.Background()
	var calls atomic.Int32
	wh, err := svc.SubscribeFunc(ctx, "acct_1", []lettershop.WebhookEventType{lettershop.WebhookLetterCreated},
		func(context.Context, *lettershop.WebhookEvent, []byte) error { calls.Add(1); return nil })
	if err != nil {
		t.Fatal(err)
	}
	asset, err := svc.CreateAsset(ctx, "acct_1", lettershop.CreateAssetInput{Name: "Notice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVersion(ctx, "acct_1", asset.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Shipped.</p>"}, Publish: true,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateLetter(ctx, "acct_1", lettershop.CreateLetterInput{
		Sender:    &lettershop.PartyInput{Organization: "Acme Corp", Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &lettershop.PartyInput{Organization: "Globex", Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
		Content:   &lettershop.LetterContent{Type: lettershop.LetterContentAsset, AssetID: asset.ID},
		UseType:   lettershop.UseTransactional,
	}); err != nil {
		t.Fatal(err)
	}

	w := OpenWith(WithTimeout(time.Second))(d).(*webhooks)
	defer w.Close()
	tasks, err := w.Take(ctx, "acct_1", 4)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("Take: %d tasks, %v; want 1", len(tasks), err)
	}
	wall.Add(time.Second + leaseMargin) // the lease passes; the attempt goes on
	if again, err := w.Take(ctx, "acct_1", 4); err != nil || len(again) != 0 {
		t.Fatalf("Take while the attempt is under way: %d tasks, %v; want none", len(again), err)
	}
	tasks[0](ctx)
	if n := calls.Load(); n != 1 {
		t.Errorf("the function was called %d times, want once", n)
	}
	if len(w.inflight) != 0 {
		t.Errorf("under way after it ended: %v", w.inflight)
	}
	p, err := svc.ListDeliveries(ctx, "acct_1", wh.ID, lettershop.ListDeliveriesInput{})
	if err != nil || len(p.Items) != 1 || p.Items[0].Status != lettershop.DeliverySucceeded || p.Items[0].Attempt != 1 {
		t.Fatalf("deliveries %+v, %v; want one succeeded at its first attempt", p.Items, err)
	}
}

// BenchmarkCheckHost is the check of a webhook's host that every attempt
// makes before it posts, against a list of WithHosts.
func BenchmarkCheckHost(b *testing.B) {
	w := &webhooks{settings: settings{}}
	WithHosts("hooks.example.com", "*.example.org", "10.0.0.1", "::1")(&w.settings)
	for b.Loop() {
		for _, h := range []string{"hooks.example.com", "a.b.example.org", "10.0.0.1"} {
			if err := w.CheckHost(h); err != nil {
				b.Fatal(err)
			}
		}
	}
}
