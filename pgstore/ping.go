package pgstore

import (
	"context"
	"fmt"

	"github.com/lettershop/lettershop/storage"
)

var _ storage.Pinger = (*Store)(nil)

// Ping checks that the database answers, on a connection of the pool.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("pgstore: ping: %w", err)
	}
	return nil
}
