package pgstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/pgstore"
)

func TestPing(t *testing.T) {
	s, err := pgstore.Open(t.Context(), testDSN(t), pgstore.WithSchema(newSchema(t)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	svc := lettershop.New(s)
	defer svc.Close()
	if err := svc.Ping(t.Context()); err != nil {
		t.Errorf("Service.Ping: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Ping(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Ping with a cancelled context: %v, want context.Canceled", err)
	}
	s.Close()
	if err := svc.Ping(t.Context()); !errors.Is(err, lettershop.ErrNotReady) {
		t.Errorf("Service.Ping on a closed pool: %v, want ErrNotReady", err)
	}
}
