package wire_test

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/wire"
)

// testStart is where every test clock starts: a Monday morning.
var testStart = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

const acct = "acct_test"

type env struct {
	svc     *lettershop.Service
	letters *wire.Letters
	clock   *clock.Mock
	store   *memstore.Store
	ctx     context.Context
}

// newEnv returns a Service over a fresh memstore with a mock clock at
// testStart and seeded ids, and Letters serving it; the Service is closed
// when the test ends.
func newEnv(t testing.TB, opts ...lettershop.Option) *env {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(testStart)
	st := memstore.New()
	opts = append([]lettershop.Option{
		lettershop.WithClock(mc),
		lettershop.WithEntropy(rand.New(rand.NewSource(1))),
		lettershop.WithTokenKey([]byte("test token key")),
	}, opts...)
	svc := lettershop.New(st, opts...)
	t.Cleanup(func() { svc.Close() })
	return &env{svc: svc, letters: wire.NewLetters(svc), clock: mc, store: st, ctx: context.Background()}
}

// publishedTemplate makes a template asset with one published version, and
// returns the asset's id.
func (e *env) publishedTemplate(t testing.TB, account string) string {
	t.Helper()
	a, err := e.svc.CreateAsset(e.ctx, account, lettershop.CreateAssetInput{Name: "Welcome", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatalf("CreateAsset: %v", err)
	}
	_, err = e.svc.CreateVersion(e.ctx, account, a.ID, lettershop.CreateVersionInput{
		Content: &lettershop.VersionContent{Type: "text/html", Content: `<h1>Hello {{name}}</h1><p>Your order {{order}} has shipped.</p>`},
		VariableDefinitions: []lettershop.VariableDefinition{
			{Name: "name", Type: "value", Behavior: lettershop.VariableRequired},
			{Name: "order", Type: "value", Behavior: lettershop.VariableOptional},
		},
		Publish: true,
	})
	if err != nil {
		t.Fatalf("CreateVersion: %v", err)
	}
	return a.ID
}

func str(s string) *string { return &s }

// letterInput is a valid request for a letter made from the asset.
func letterInput(assetID string) lettershop.CreateLetterInput {
	return lettershop.CreateLetterInput{
		Sender: &lettershop.PartyInput{
			Organization: "Acme Corp",
			Address:      lettershop.AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"},
		},
		Recipient: &lettershop.PartyInput{
			Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe"},
			Address:    lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"},
		},
		Content:   &lettershop.LetterContent{Type: "asset", AssetID: assetID},
		UseType:   lettershop.UseTransactional,
		Variables: []lettershop.Variable{{Name: "name", Value: str("Jane")}},
	}
}
