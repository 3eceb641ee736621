package lettershop_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/postal"
)

// countingPostal is the simulated timeline, counting the calls it gets and
// refusing every move.
type countingPostal struct {
	postal.Timeline
	advanced atomic.Int64
}

func (p *countingPostal) Advance(c *postal.Course, now time.Time) {
	p.advanced.Add(1)
	p.Timeline.Advance(c, now)
}

func (p *countingPostal) Move(*postal.Course, postal.Stage, time.Time, []postal.Stage) error {
	return &postal.RefusedError{Message: "the provider does not move letters on request"}
}

// TestWithPostal checks that the Postal given to the Service moves the
// letters, and that its refusal reaches the caller as a conflict.
func TestWithPostal(t *testing.T) {
	p := &countingPostal{}
	e := newEnv(t, lettershop.WithPostal(p))
	l := e.newLetter(t, nil)
	e.clock.Add(5 * time.Minute)
	if got := e.get(t, l.ID); got.Status != lettershop.StatusReady {
		t.Errorf("status after 5 minutes = %s, want ready", got.Status)
	}
	if p.advanced.Load() == 0 {
		t.Error("the Postal given was never asked to advance a letter")
	}
	_, err := e.svc.Simulate(e.ctx, acct, l.ID, lettershop.SimulateTarget{Status: lettershop.StatusMailed})
	wantCode(t, err, lettershop.CodeConflict)
	var le *lettershop.Error
	if errors.As(err, &le) && le.Message != "the provider does not move letters on request" {
		t.Errorf("message %q, want the provider's", le.Message)
	}
}
