package egress

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// HostDown reports whether err, from the Client, says the URL's host is
// down rather than that the URL alone is wrong: no answer in time, no
// connection, no such host (KindTimeout, KindUnreachable). A caller
// fetching several URLs of the host may ask it nothing more for now.
func HostDown(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Kind == KindTimeout || e.Kind == KindUnreachable)
}

// TimedOut reports whether err says no complete answer came in time: an
// Error of KindTimeout, or a context's deadline passed.
func TimedOut(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindTimeout || errors.Is(err, context.DeadlineExceeded)
}

// Describe words a failed fetch for a person, to follow "could not be
// fetched from URL: ": one that timed out (TimedOut) as no complete answer
// within timeout, the bound the caller set; any other by its text.
func Describe(err error, timeout time.Duration) string {
	if TimedOut(err) {
		return fmt.Sprintf("no complete answer within %s", timeout)
	}
	return err.Error()
}
