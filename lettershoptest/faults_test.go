package lettershoptest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/lettershoptest"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

func TestFaultLatencyWithSleep(t *testing.T) {
	var mu sync.Mutex
	var waits []time.Duration
	srv := lettershoptest.New(t, lettershoptest.WithSleep(func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return nil
	}))
	acct := srv.NewAccount()
	id := acct.Fault(client.Fault{Path: "/letters", Latency: "3s", Times: 1})
	for range 2 {
		req, _ := http.NewRequest("GET", srv.URL+"/letters", nil)
		req.Header.Set("X-Api-Key", acct.APIKey)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if len(waits) != 1 || waits[0] != 3*time.Second {
		t.Errorf("waits %v, want one of 3s", waits)
	}
	reqs := acct.Requests()
	if len(reqs) != 2 || reqs[0].Fault != id || reqs[0].Status != http.StatusOK || reqs[1].Fault != "" {
		t.Errorf("journal %+v", reqs)
	}
	acct.ClearFaults()
}

// deadlineSeen is the built-in address processor, recording whether the
// context each letter's addresses are processed in has a deadline.
type deadlineSeen struct {
	lettershop.AddressProcessor
	mu   sync.Mutex
	seen []bool
}

func (d *deadlineSeen) Process(ctx context.Context, req lettershop.AddressRequest) (lettershop.AddressResult, error) {
	d.mu.Lock()
	_, ok := ctx.Deadline()
	d.seen = append(d.seen, ok)
	d.mu.Unlock()
	return d.AddressProcessor.Process(ctx, req)
}

// A server in memory puts no time bound on a request's work, as nothing
// in memory hangs and the bound's timer costs every request; a store given
// by WithStore keeps the adapter's default bound.
func TestRequestTimeoutOnlyWithAStoreOfYourOwn(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     []lettershoptest.Option
		deadline bool
	}{
		{"memstore", nil, false},
		{"own store", []lettershoptest.Option{lettershoptest.WithStore(func(testing.TB) storage.Storage { return memstore.New() })}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := &deadlineSeen{AddressProcessor: lettershop.NewAddressProcessor()}
			srv := lettershoptest.New(t, append(c.opts, lettershoptest.WithServiceOptions(lettershop.WithAddressProcessor(addr)))...)
			acct := srv.NewAccount()
			svc := srv.Service()
			asset, err := svc.CreateAsset(t.Context(), acct.ID, lettershop.CreateAssetInput{Name: "Note"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateVersion(t.Context(), acct.ID, asset.ID, lettershop.CreateVersionInput{
				Content: &lettershop.VersionContent{Type: lettershop.ContentHTML, Content: "<p>Hello</p>"}, Publish: true,
			}); err != nil {
				t.Fatal(err)
			}
			body := `{"sender": {"organization": "Acme Corp", "address": {"addressLine1": "100 Main St", "lastLine": "Springfield, IL 62701"}},
				"recipient": {"individual": {"firstName": "Jane", "lastName": "Doe"}, "address": {"addressLine1": "200 Oak Ave", "lastLine": "Chicago, IL 60601"}},
				"content": {"type": "asset", "assetId": "` + asset.ID + `"}, "useType": "transactional"}`
			req, _ := http.NewRequest("POST", srv.URL+"/letters", strings.NewReader(body))
			req.Header.Set("X-Api-Key", acct.APIKey)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated || len(addr.seen) == 0 || slices.Contains(addr.seen, !c.deadline) {
				t.Errorf("status %d, deadlines seen %v, want each %v", resp.StatusCode, addr.seen, c.deadline)
			}
		})
	}
}

func TestFaultInvalidFailsTheTest(t *testing.T) {
	ft := &fakeTB{TB: t}
	srv := lettershoptest.New(ft)
	acct := srv.NewAccount()
	func() {
		defer func() { _ = recover() }()
		acct.Fault(client.Fault{Status: 200})
	}()
	if !ft.failed {
		t.Error("a fault with status 200 was taken")
	}
}

// A fault Fault refuses fails the test with the words the server answers
// the same fault with over HTTP: a duration that is none, one too long, an
// id, and a check of the fault itself.
func TestFaultInvalidAsTheServerSaysIt(t *testing.T) {
	ft := &fakeTB{TB: t}
	srv := lettershoptest.New(ft)
	acct := srv.NewAccount()
	c := acct.Client()
	for _, f := range []client.Fault{
		{Path: "/letters", Latency: "soon"},
		{Path: "/letters", Status: 429, RetryAfter: "later"},
		{Path: "/letters", Latency: strings.Repeat("1", 65) + "s"},
		{ID: "flt_1", Path: "/letters", Status: 500},
		{Path: "/letters", Status: 200},
	} {
		msg := fails(t, ft, func() { acct.Fault(f) })
		_, err := c.Test.AddFault(context.Background(), &f)
		var ce *client.Error
		if !errors.As(err, &ce) || len(ce.Fields) != 1 {
			t.Errorf("%+v: the server answers %v, want one field at fault", f, err)
			continue
		}
		for field, text := range ce.Fields {
			if want := field + ": " + text; !strings.Contains(msg, want) {
				t.Errorf("%+v: Fault fails the test with %q, not the server's %q", f, msg, want)
			}
		}
	}
	if faults, err := c.Test.Faults(context.Background()); err != nil || len(faults) != 0 {
		t.Errorf("faults kept: %+v, %v", faults, err)
	}
}

func TestFaultNeedsAServer(t *testing.T) {
	ft := &fakeTB{TB: t}
	acct := lettershoptest.NewService(ft).NewAccount()
	func() {
		defer func() { _ = recover() }()
		acct.Requests()
	}()
	if !ft.failed {
		t.Error("Requests without a server did not fail the test")
	}
}

// ClearRequests empties the account's journal and no other's: what the
// test's setup sent over HTTP is out of the way of what it asserts on.
func TestClearRequests(t *testing.T) {
	srv := lettershoptest.New(t)
	acct, other := srv.NewAccount(), srv.NewAccount()
	ctx := context.Background()
	for _, a := range []*lettershoptest.Account{acct, other} {
		if _, err := a.Client().GetLetter(ctx, "ltr_01kjqh0cc0smtxa8nxbwa8tdgj"); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("get: %v", err)
		}
	}
	acct.ClearRequests()
	if got := acct.Requests(); len(got) != 0 {
		t.Errorf("after ClearRequests the journal has %d entries", len(got))
	}
	if got := other.Requests(); len(got) != 1 {
		t.Errorf("another account's journal has %d entries, want its 1", len(got))
	}
	if _, err := acct.Client().GetLetter(ctx, "ltr_01kjqh0cc0smtxa8nxbwa8tdgj"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	if got := acct.Requests(); len(got) != 1 || got[0].Status != http.StatusNotFound {
		t.Errorf("journal after a request: %+v", got)
	}
}
