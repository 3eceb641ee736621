package lettershop_test

import (
	"context"
	"errors"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/delivery"
	"github.com/lettershop/lettershop/memstore"
)

// testStart is where every test clock starts: a Monday morning.
var testStart = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

const acct = "acct_test"

type env struct {
	svc   *lettershop.Service
	clock *clock.Mock
	store *memstore.Store
	ctx   context.Context
}

// newEnv returns a Service over a fresh memstore with a mock clock at
// testStart and seeded ids, sending its webhook events with package
// delivery's Deliverer; it is closed when the test ends.
func newEnv(t testing.TB, opts ...lettershop.Option) *env {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(testStart)
	return newEnvOn(t, memstore.New(), mc, opts...)
}

// newEnvOn is a Service over st on mc, seeded as newEnv's; a second one over
// the same store and clock is a second server sharing a database.
func newEnvOn(t testing.TB, st *memstore.Store, mc *clock.Mock, opts ...lettershop.Option) *env {
	t.Helper()
	opts = append([]lettershop.Option{
		lettershop.WithDeliverer(delivery.Open),
		lettershop.WithClock(mc),
		lettershop.WithEntropy(rand.New(rand.NewSource(1))),
		lettershop.WithTokenKey([]byte("test token key")),
	}, opts...)
	svc := lettershop.New(st, opts...)
	t.Cleanup(func() { svc.Close() })
	return &env{svc: svc, clock: mc, store: st, ctx: context.Background()}
}

const testTemplate = `<h1>Hello {{name}}</h1><p>Your order {{order}} has shipped.</p>`

var testDefinitions = []lettershop.VariableDefinition{
	{Name: "name", Type: "value", Behavior: lettershop.VariableRequired},
	{Name: "order", Type: "value", Behavior: lettershop.VariableOptional},
}

// publishedTemplate makes a template asset with one published version.
func (e *env) publishedTemplate(t testing.TB, account string, defs ...lettershop.VariableDefinition) (*lettershop.Asset, *lettershop.AssetVersion) {
	t.Helper()
	a, err := e.svc.CreateAsset(e.ctx, account, lettershop.CreateAssetInput{Name: "Welcome", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatalf("CreateAsset: %v", err)
	}
	if defs == nil {
		defs = testDefinitions
	}
	v, err := e.svc.CreateVersion(e.ctx, account, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: "text/html", Content: testTemplate},
		VariableDefinitions: defs,
		Publish:             true,
	})
	if err != nil {
		t.Fatalf("CreateVersion: %v", err)
	}
	return a, v
}

func str(s string) *string { return &s }

func vars(kv ...string) []lettershop.Variable {
	var out []lettershop.Variable
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, lettershop.Variable{Name: kv[i], Value: str(kv[i+1])})
	}
	return out
}

// letterInput is a valid request for a letter made from asset.
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
		Variables: vars("name", "Jane"),
	}
}

// fieldsOf returns the field errors of err, failing unless err is an
// invalid-input error.
func fieldsOf(t testing.TB, err error) map[string]string {
	t.Helper()
	var e *lettershop.Error
	if !errors.As(err, &e) || e.Code != lettershop.CodeInvalid {
		t.Fatalf("want an invalid-input error, got %v", err)
	}
	return e.Fields
}

// wantCode fails unless err has the code.
func wantCode(t testing.TB, err error, code lettershop.Code) {
	t.Helper()
	if got := lettershop.ErrorCode(err); got != code {
		t.Fatalf("want %v error, got %v (%v)", code, got, err)
	}
}

// wantFields fails unless err is an invalid-input error naming exactly the
// given field paths.
func wantFields(t testing.TB, err error, paths ...string) {
	t.Helper()
	got := fieldsOf(t, err)
	var names []string
	for k := range got {
		names = append(names, k)
	}
	if diff := cmp.Diff(sorted(paths), sorted(names)); diff != "" {
		t.Fatalf("field errors (-want +got):\n%s\nall: %v", diff, got)
	}
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
