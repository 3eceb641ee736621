package inbox

import (
	"context"
	"errors"
	"time"

	"github.com/lettershop/lettershop"
)

// accountClock is everything the inbox asks of time: what time it is for an
// account, and moving it on: the account's own clock under a test clock
// (accountTestClock), or the server's one clock for every account
// (serverTestClock, with WithSharedTestClock).
type accountClock interface {
	// now is the time on the account's clock.
	now(ctx context.Context, account string) time.Time
	// test reports whether the clock is a test clock, which can be advanced.
	test() bool
	// advance moves the account's clock on by d and runs what fell due.
	advance(ctx context.Context, account string, d time.Duration) error
}

// errNoTestClock is what advance returns on a clock that is not a test clock.
var errNoTestClock = errors.New("the clock is not a test clock")

// serviceClock is the Service's own clock, which only the Service moves.
type serviceClock struct{ svc *lettershop.Service }

func (c serviceClock) now(context.Context, string) time.Time { return c.svc.Now() }
func (serviceClock) test() bool                              { return false }
func (serviceClock) advance(context.Context, string, time.Duration) error {
	return errNoTestClock
}

// accountTestClock is each account's own clock, on the Service's test clock.
type accountTestClock struct{ svc *lettershop.Service }

// now reads the clocks from the store: another server may have moved the
// account's.
func (c accountTestClock) now(ctx context.Context, account string) time.Time {
	return c.svc.ReadAccountClock(ctx, account).Now
}
func (accountTestClock) test() bool { return true }

// advance moves the account's clock and runs what fell due in it, so the
// page shown next describes a world that has caught up.
func (c accountTestClock) advance(ctx context.Context, account string, d time.Duration) error {
	if d <= 0 {
		return &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the clock only moves forward"}
	}
	_, err := c.svc.AdvanceAccountClock(ctx, account, d)
	return err
}

// serverTestClock is the server's one test clock, shared by every account.
type serverTestClock struct {
	svc   *lettershop.Service
	clock lettershop.TestClock
}

func (c serverTestClock) now(context.Context, string) time.Time { return c.clock.Now().UTC() }
func (serverTestClock) test() bool                              { return true }

// advance moves the clock, then runs everything that fell due, so the page
// shown next describes a world that has caught up.
func (c serverTestClock) advance(ctx context.Context, _ string, d time.Duration) error {
	if d <= 0 {
		return &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the clock only moves forward"}
	}
	_, err := c.svc.AdvanceClock(ctx, d)
	return err
}
