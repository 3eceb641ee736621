package lettershoptest_test

import (
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/lettershoptest"
)

// faultPattern runs 24 requests into a fault met with probability 0.5 on
// a server seeded with seed, and returns which of them the fault met.
func faultPattern(t *testing.T, seed int64) []bool {
	t.Helper()
	srv := lettershoptest.New(t, lettershoptest.WithFaultSeed(seed))
	acct := srv.NewAccount()
	acct.Fault(client.Fault{Path: "/letters", Status: http.StatusServiceUnavailable, Probability: 0.5})
	var met []bool
	for range 24 {
		req, _ := http.NewRequest("GET", srv.URL+"/letters", nil)
		req.Header.Set("X-Api-Key", acct.APIKey)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		met = append(met, resp.StatusCode == http.StatusServiceUnavailable)
	}
	return met
}

// WithFaultSeed replays a run's decisions: the same seed meets the same
// requests, another seed others.
func TestWithFaultSeed(t *testing.T) {
	first, again, other := faultPattern(t, 7), faultPattern(t, 7), faultPattern(t, 8)
	if !slices.Equal(first, again) {
		t.Errorf("seed 7 twice met %v, then %v", first, again)
	}
	if slices.Equal(first, other) {
		t.Errorf("seeds 7 and 8 met the same requests %v", first)
	}
	if !slices.Contains(first, true) || !slices.Contains(first, false) {
		t.Errorf("a fault of probability 0.5 met %v", first)
	}
}

// WithAdapterOptions reaches httpadapter.New: a metrics handler given
// there is served.
func TestWithAdapterOptions(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "letters_total 0\n") })
	for _, c := range []struct {
		opts []lettershoptest.Option
		want int
	}{
		{nil, http.StatusNotFound},
		{[]lettershoptest.Option{lettershoptest.WithAdapterOptions(httpadapter.WithMetricsHandler("/metrics", metrics))}, http.StatusOK},
	} {
		srv := lettershoptest.New(t, c.opts...)
		resp, err := srv.Client().Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want || (c.want == http.StatusOK && string(body) != "letters_total 0\n") {
			t.Errorf("GET /metrics with %d options: %d %q, want %d", len(c.opts), resp.StatusCode, body, c.want)
		}
	}
}

// A Service's Advance moves its clock and every account's, and runs what
// fell due; Clock reads the same time.
func TestServiceAdvance(t *testing.T) {
	svc := lettershoptest.NewService(t)
	acct := svc.NewAccount()
	id := sendWelcome(t, svc.Service, acct.ID, "Jane")
	svc.Advance(30 * 24 * time.Hour)
	want := lettershoptest.DefaultStart.Add(30 * 24 * time.Hour)
	if got := svc.Clock().Now(); !got.Equal(want) {
		t.Errorf("Clock reads %s, want %s", got, want)
	}
	if got := acct.Now(); !got.Equal(want) {
		t.Errorf("the account reads %s, want %s", got, want)
	}
	l := acct.Letter(id)
	if last := l.Events[len(l.Events)-1]; l.Status != client.StatusMailed || last.Status != client.EventDelivered {
		t.Errorf("a month on, the letter is %s with last event %s; want mailed and delivered", l.Status, last.Status)
	}
}
