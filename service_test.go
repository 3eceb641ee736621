package lettershop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/storage"
)

type openedStore struct{ storage.Storage }

// New without a store panics saying so, where it panicked on a nil
// pointer deep inside.
func TestNewWithoutAStore(t *testing.T) {
	var failed *openedStore // as pgstore.Open returns one beside its error
	for name, store := range map[string]storage.Storage{"nil": nil, "nil pointer": failed} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, "New needs a store") {
					t.Errorf("New panicked with %v; want it to say a store is needed", msg)
				}
			}()
			lettershop.New(store)
		})
	}
}

// A write given no account ("") is refused naming account, and nothing is
// stored under it.
func TestNoAccountRefused(t *testing.T) {
	e := newEnv(t)
	asset, _ := e.publishedTemplate(t, acct)
	for name, write := range map[string]func() error{
		"CreateAsset": func() error {
			_, err := e.svc.CreateAsset(e.ctx, "", lettershop.CreateAssetInput{Name: "x"})
			return err
		},
		"CreateLetter": func() error {
			_, err := e.svc.CreateLetter(e.ctx, "", letterInput(asset.ID))
			return err
		},
		"CreateWebhook": func() error {
			_, err := e.svc.CreateWebhook(e.ctx, "", lettershop.CreateWebhookInput{URL: "https://example.com/hook"})
			return err
		},
		"SubscribeFunc": func() error {
			_, err := e.svc.SubscribeFunc(e.ctx, "", nil, func(context.Context, *lettershop.WebhookEvent, []byte) error { return nil })
			return err
		},
		"RegisterMove": func() error {
			return e.svc.RegisterMove(e.ctx, "", lettershop.Move{Name: "Jane Doe",
				From: lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"},
				To:   lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}})
		},
		"idempotent CreateAsset": func() error {
			_, err := e.svc.CreateAsset(lettershop.WithIdempotencyKey(e.ctx, "k1"), "", lettershop.CreateAssetInput{Name: "x"})
			return err
		},
	} {
		if err := write(); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			wantFields(t, err, "account")
		}
	}
	assets, err := e.svc.ListAssets(e.ctx, "", lettershop.ListAssetsInput{})
	webhooks, err2 := e.svc.ListWebhooks(e.ctx, "", lettershop.ListWebhooksInput{})
	if err != nil || err2 != nil || len(assets.Items) != 0 || len(webhooks.Items) != 0 {
		t.Errorf("stored under no account: %d assets, %d webhooks (%v, %v)", len(assets.Items), len(webhooks.Items), err, err2)
	}
}
