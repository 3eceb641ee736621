package client_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/client"
)

// TestFaultsAndJournal: the server loses the answer to a create once; the
// client retries with the same Idempotency-Key, and the journal shows it.
func TestFaultsAndJournal(t *testing.T) {
	s := newServer(t)
	c := newClient(s, newWaits())
	f, err := c.Test.AddFault(ctx, &client.Fault{Method: "POST", Path: "/assets", AfterWrite: true, Times: 1})
	if err != nil || f.ID == "" || f.Times != 1 {
		t.Fatalf("AddFault: %+v, %v", f, err)
	}
	if faults, err := c.Test.Faults(ctx); err != nil || len(faults) != 1 || faults[0].ID != f.ID {
		t.Fatalf("Faults: %+v, %v", faults, err)
	}
	if _, err := c.CreateAsset(ctx, &client.CreateAssetRequest{Name: "Invoice"}); err != nil {
		t.Fatalf("CreateAsset after a lost answer: %v", err)
	}
	reqs, err := c.Test.Requests(ctx)
	if err != nil || len(reqs) != 2 {
		t.Fatalf("Requests: %+v, %v", reqs, err)
	}
	if reqs[0].Status != 500 || reqs[0].Fault != f.ID || reqs[1].Status != 201 || !reqs[1].Replayed ||
		reqs[0].IdempotencyKey == "" || reqs[1].IdempotencyKey != reqs[0].IdempotencyKey {
		t.Errorf("journal %+v", reqs)
	}
	if !reqs[0].Time.Equal(testStart) {
		t.Errorf("journal time %v, want the test clock's %v", reqs[0].Time, testStart)
	}
	if err := c.Test.ClearRequests(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Test.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	if reqs, err := c.Test.Requests(ctx); err != nil || len(reqs) != 0 {
		t.Errorf("Requests after ClearRequests: %+v, %v", reqs, err)
	}
}

// TestFaultDurations: a fault's durations set and read as time.Duration
// go on the wire as the Go durations they were, a text the server takes,
// and come back as the durations given, at the server's limits too.
func TestFaultDurations(t *testing.T) {
	var f client.Fault
	if d, err := f.LatencyDuration(); d != 0 || err != nil {
		t.Errorf("LatencyDuration of none: %v, %v; want 0, nil", d, err)
	}
	f = client.Fault{Path: "/letters", Status: 503, Times: 1}
	f.SetLatency(1500 * time.Millisecond)
	f.SetRetryAfter(30 * time.Second)
	if b, err := json.Marshal(f); err != nil || string(b) != `{"path":"/letters","status":503,"latency":"1.5s","times":1,"retryAfter":"30s"}` {
		t.Errorf("on the wire: %s, %v", b, err)
	}
	f.SetLatency(0)
	if f.Latency != "" {
		t.Errorf("SetLatency(0): Latency %q, want it left out", f.Latency)
	}
	for _, bad := range []string{"soon", "5"} {
		if d, err := (client.Fault{Latency: bad}).LatencyDuration(); err == nil || !strings.Contains(err.Error(), "latency") {
			t.Errorf("LatencyDuration of %q: %v, %v; want an error naming latency", bad, d, err)
		}
		if d, err := (client.Fault{RetryAfter: bad}).RetryAfterDuration(); err == nil || !strings.Contains(err.Error(), "retryAfter") {
			t.Errorf("RetryAfterDuration of %q: %v, %v; want an error naming retryAfter", bad, d, err)
		}
	}

	s := newServer(t)
	c := newClient(s, newWaits())
	for _, tt := range []struct{ latency, retryAfter time.Duration }{
		{time.Minute, 24 * time.Hour}, // the server's limits
		{150 * time.Millisecond, time.Second},
		{time.Microsecond, 90 * time.Minute},
	} {
		in := client.Fault{Path: "/nothing", Status: 503}
		in.SetLatency(tt.latency)
		in.SetRetryAfter(tt.retryAfter)
		out, err := c.Test.AddFault(ctx, &in)
		if err != nil {
			t.Fatalf("AddFault(%+v): %v", in, err)
		}
		latency, err1 := out.LatencyDuration()
		retryAfter, err2 := out.RetryAfterDuration()
		if latency != tt.latency || retryAfter != tt.retryAfter || err1 != nil || err2 != nil {
			t.Errorf("set %v and %v, the server answered %q and %q, read as %v (%v) and %v (%v)",
				tt.latency, tt.retryAfter, out.Latency, out.RetryAfter, latency, err1, retryAfter, err2)
		}
	}
	// Past the limits: sent as given, refused naming the field.
	for _, tt := range []struct {
		set   func(*client.Fault)
		field string
	}{
		{func(f *client.Fault) { f.SetLatency(time.Minute + time.Millisecond) }, "latency"},
		{func(f *client.Fault) { f.SetLatency(-time.Second) }, "latency"},
		{func(f *client.Fault) { f.SetRetryAfter(24*time.Hour + time.Second) }, "retryAfter"},
	} {
		f := client.Fault{Path: "/nothing", Status: 503}
		tt.set(&f)
		_, err := c.Test.AddFault(ctx, &f)
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeInvalidRequest || e.Fields[tt.field] == "" {
			t.Errorf("AddFault(%+v): %v; want a 400 naming %s", f, err, tt.field)
		}
	}
}
