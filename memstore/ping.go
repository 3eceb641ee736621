package memstore

import (
	"context"

	"github.com/lettershop/lettershop/storage"
)

var _ storage.Pinger = (*Store)(nil)

// Ping reports that the store answers: memory is always there. It returns
// only the context's error.
func (s *Store) Ping(ctx context.Context) error { return ctx.Err() }
