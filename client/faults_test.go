package client_test

import (
	"testing"

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
