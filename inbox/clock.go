package inbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
)

// accountClock is everything the inbox asks of time: what time it is for an
// account, and moving it on. Today there is one clock per server (the
// Service's, a *clock.Mock under --test-clock); a clock per account
// replaces this one type and nothing else.
type accountClock interface {
	// now is the time on the account's clock.
	now(ctx context.Context, account string) time.Time
	// test reports whether the clock is a test clock, which can be advanced.
	test() bool
	// advance moves the account's clock on by d and runs what fell due.
	advance(ctx context.Context, account string, d time.Duration) error
}

// lastTestTime is as far as the test clock goes, as in httpadapter: JSON
// writes no year past 9999, and schedules run days past the clock.
var lastTestTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// errNoTestClock is what advance returns on a clock that is not a test clock.
var errNoTestClock = errors.New("the clock is not a test clock")

// serviceClock is the Service's own clock, which only the Service moves.
type serviceClock struct{ svc *lettershop.Service }

func (c serviceClock) now(context.Context, string) time.Time { return c.svc.Now() }
func (serviceClock) test() bool                              { return false }
func (serviceClock) advance(context.Context, string, time.Duration) error {
	return errNoTestClock
}

// serverTestClock is the server's one test clock, shared by every account.
type serverTestClock struct {
	svc  *lettershop.Service
	mock *clock.Mock
}

func (c serverTestClock) now(context.Context, string) time.Time { return c.mock.Now().UTC() }
func (serverTestClock) test() bool                              { return true }

// advance moves the clock, then runs everything that fell due, so the page
// shown next describes a world that has caught up.
func (c serverTestClock) advance(ctx context.Context, _ string, d time.Duration) error {
	if d <= 0 {
		return &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the clock only moves forward"}
	}
	if c.mock.Now().Add(d).After(lastTestTime) {
		return &lettershop.Error{Code: lettershop.CodeInvalid,
			Message: fmt.Sprintf("the clock goes no further than %s", lastTestTime.Format(time.RFC3339))}
	}
	c.mock.Add(d)
	_, err := c.svc.RunDue(ctx)
	return err
}
