package lettershop_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/memstore"
)

// newExampleService is a Service on a stopped clock with repeatable ids,
// which sends its webhook events with package delivery's Deliverer.
func newExampleService() *lettershop.Service {
	mc := clock.NewMock()
	mc.Set(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC))
	return lettershop.New(memstore.New(),
		lettershop.WithClock(mc),
		lettershop.WithEntropy(rand.New(rand.NewSource(42))),
		lettershop.WithDeliverer(delivery.Open),
	)
}

func ExampleService_CreateVersion() {
	ctx := context.Background()
	svc := newExampleService()
	defer svc.Close()

	asset, err := svc.CreateAsset(ctx, "acct_1", lettershop.CreateAssetInput{Name: "Welcome letter"})
	if err != nil {
		panic(err)
	}
	version, err := svc.CreateVersion(ctx, "acct_1", asset.ID, lettershop.CreateVersionInput{
		Notes:   "first draft",
		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Dear {{name}},</p><p>Welcome aboard.</p>"},
		VariableDefinitions: []lettershop.VariableDefinition{
			{Name: "name", Type: "value", Behavior: lettershop.VariableRequired},
		},
		Publish: true,
	})
	if err != nil {
		panic(err)
	}
	asset, _ = svc.GetAsset(ctx, "acct_1", asset.ID)
	fmt.Println(version.Status, version.ContentLength, asset.Status, asset.PublishedVersionID == version.ID)
	// Output: published 43 published true
}

func ExampleService_CreateLetter() {
	ctx := context.Background()
	svc := newExampleService()
	defer svc.Close()

	asset, _ := svc.CreateAsset(ctx, "acct_1", lettershop.CreateAssetInput{Name: "Welcome letter"})
	_, _ = svc.CreateVersion(ctx, "acct_1", asset.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Dear {{name}},</p>"},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name", Behavior: lettershop.VariableRequired}},
		Publish:             true,
	})
	name := "Zoë"
	letter, err := svc.CreateLetter(ctx, "acct_1", lettershop.CreateLetterInput{
		Sender: &lettershop.PartyInput{
			Organization: "Acme Corp",
			Address:      lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"},
		},
		Recipient: &lettershop.PartyInput{
			Individual: &lettershop.Individual{FirstName: "Zoë", LastName: "Łukasiewicz"},
			Address:    lettershop.AddressInput{AddressLine1: "200 Oak Ave", City: "Chicago", State: "IL", ZipCode: "60601"},
		},
		Content:   &lettershop.LetterContent{Type: lettershop.LetterContentAsset, AssetID: asset.ID},
		UseType:   lettershop.UseTransactional,
		Variables: []lettershop.Variable{{Name: "name", Value: &name}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(letter.Status, letter.Recipient.Individual.FullName, "/", letter.Recipient.Address.LastLine)
	fmt.Println(letter.Events[0].Type, letter.Events[0].Status, letter.Events[0].Timestamp.Format(time.RFC3339))

	// Invalid input names every field at fault.
	_, err = svc.CreateLetter(ctx, "acct_1", lettershop.CreateLetterInput{UseType: "junk"})
	var e *lettershop.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, len(e.Fields), e.Fields["useType"])
	}
	// Output:
	// queued Zoë Łukasiewicz / Chicago, IL 60601
	// status queued 2026-03-02T15:00:00Z
	// invalid 4 must be one of marketing, transactional, got "junk"
}

func ExampleWithIdempotencyKey() {
	ctx := context.Background()
	svc := newExampleService()
	defer svc.Close()

	// A retried request with the same key returns the first outcome.
	keyed := lettershop.WithIdempotencyKey(ctx, "7d1f0c2e-retry-safe")
	first, _ := svc.CreateAsset(keyed, "acct_1", lettershop.CreateAssetInput{Name: "Invoice"})
	retry, _ := svc.CreateAsset(keyed, "acct_1", lettershop.CreateAssetInput{Name: "Invoice"})
	fmt.Println(first.ID == retry.ID)

	// The same key for a different request is refused.
	_, err := svc.CreateAsset(keyed, "acct_1", lettershop.CreateAssetInput{Name: "Receipt"})
	fmt.Println(lettershop.ErrorCode(err))
	// Output:
	// true
	// idempotency mismatch
}

// A function of the process takes the account's letter events, each
// letter's in order, as a webhook would be posted them; moving the
// account's clock moves the letter, and so makes events.
func ExampleService_SubscribeFunc() {
	ctx := context.Background()
	svc := newExampleService()
	defer svc.Close()

	events := make(chan string, 16)
	_, err := svc.SubscribeFunc(ctx, "acct_1", []lettershop.WebhookEventType{lettershop.WebhookLetterCreated, lettershop.WebhookLetterMailed},
		func(_ context.Context, e *lettershop.WebhookEvent, _ []byte) error {
			events <- fmt.Sprintf("%s %s %s", e.Type, e.Data.Object.Status, e.CreatedAt.Format(time.RFC3339))
			return nil
		})
	if err != nil {
		panic(err)
	}
	asset, _ := svc.CreateAsset(ctx, "acct_1", lettershop.CreateAssetInput{Name: "Notice"})
	_, _ = svc.CreateVersion(ctx, "acct_1", asset.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Your order has shipped.</p>"}, Publish: true,
	})
	_, err = svc.CreateLetter(ctx, "acct_1", lettershop.CreateLetterInput{
		Sender:    &lettershop.PartyInput{Organization: "Acme Corp", Address: lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &lettershop.PartyInput{Organization: "Globex", Address: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
		Content:   &lettershop.LetterContent{Type: lettershop.LetterContentAsset, AssetID: asset.ID},
		UseType:   lettershop.UseTransactional,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	if _, err := svc.AdvanceAccountClock(ctx, "acct_1", 7*24*time.Hour); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	// Output:
	// letter.created queued 2026-03-02T15:00:00Z
	// letter.mailed mailed 2026-03-04T21:00:00Z
}
