package storage

import "context"

// Eraser is a Storage that erases an account's records in one step: what
// empties an account for a test suite (Service.EraseAccount). A store
// without it can not be emptied.
type Eraser interface {
	// EraseAccount removes every record of the account: its letters,
	// assets, versions and content, webhooks and their deliveries, and
	// idempotency records, completed or in flight, and its moves (a
	// MoveStorage's); all or none, so no
	// reader sees some gone and others not. Its clock (ClockStorage) stays
	// as it is. Other accounts' records are untouched. An account with no
	// records is erased without error.
	//
	// Work under way on a record it removes does not write the record
	// back: a letter taken by ProcessDueLetters, or a delivery by
	// ProcessDueDeliveries, before the erase is not written when reached
	// after it, an UpdateLetter or UpdateDelivery of one is ErrNotFound,
	// and a write carrying the Completion of a claim it removed is
	// ErrClaimLost. A write that starts after the erase writes into the
	// empty account as into any other.
	EraseAccount(ctx context.Context, account string) error
}
