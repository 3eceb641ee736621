package storage

import "context"

// Pinger is implemented by a backend that can tell whether it answers: a
// readiness check calls Ping with a short deadline. A backend without it is
// taken to be always ready.
type Pinger interface {
	// Ping returns nil when the backend can serve requests, else why not.
	// It returns the context's error when ctx ends first.
	Ping(ctx context.Context) error
}
