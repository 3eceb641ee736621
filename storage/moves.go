package storage

import "context"

// MoveStorage is a Storage that keeps the NCOA moves registered in each
// account, so that every server on one store forwards a recipient by the
// same moves. A Service on a store without it keeps them in memory, each
// server its own. An Eraser's EraseAccount removes the account's moves
// with its records.
type MoveStorage interface {
	// PutMove stores move, which the store keeps as given, under key in
	// the account, replacing what the key held. It is ErrLimit, and
	// nothing written, when the account holds limit moves under other
	// keys (limit below 1: no limit), however many puts run at once.
	PutMove(ctx context.Context, account, key string, move []byte, limit int) error
	// Moves returns the account's moves by key; an empty map when it has
	// none.
	Moves(ctx context.Context, account string) (map[string][]byte, error)
}
