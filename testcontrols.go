package lettershop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/postal"
)

// This file holds the Service's controls for tests, in one place: running
// what fell due after a test moved its clock (the clock itself is
// WithClock's), moving one letter along its timeline now, or the clock
// until the letter gets somewhere, and registering the moves NCOA
// follows. httpadapter/testroutes.go serves them under /_test.

// RunDue brings every letter whose next lifecycle step is due at the
// clock's current time up to date, each step stamped with the time it fell
// due, and returns how many letters moved. Tests that move a clock.Mock call
// it (or any read, which catches up first) to see the effect.
func (s *Service) RunDue(ctx context.Context) (int, error) {
	n, err := s.life.Run(ctx)
	// Webhook attempts fall due on the clock too.
	s.deliveries.deliverer.Wake()
	return n, err
}

// SimulateTarget is where Simulate moves a letter: a letter status, or a
// tracking event status (inTransit, inLocalArea, processedForDelivery,
// delivered, reRouted, returnedToSender). Exactly one is set.
type SimulateTarget struct {
	Status LetterStatus `json:"status,omitempty"`
	Event  EventStatus  `json:"event,omitempty"`
}

// stage checks t into f and returns the stage it names.
func (t SimulateTarget) stage(f fieldErrors) postal.Stage {
	switch {
	case t.Status == "" && t.Event == "":
		f.add("status", "give status or event: where to move the letter")
		f.add("event", "give status or event: where to move the letter")
	case t.Status != "" && t.Event != "":
		f.add("status", "give status or event, not both")
		f.add("event", "give status or event, not both")
	case t.Status != "":
		if !slices.Contains(letterStatuses, t.Status) {
			f.add("status", "must be one of %s, got %s", joinEnum(letterStatuses), echo.Quote(string(t.Status)))
		}
	default:
		if !postal.Stage(t.Event).Tracking() {
			f.add("event", "must be one of %s, got %s", joinEnum(postal.TrackingStages), echo.Quote(string(t.Event)))
		}
	}
	if t.Status != "" {
		return postal.Stage(t.Status)
	}
	return postal.Stage(t.Event)
}

// Simulate moves one letter to target now, without moving the clock, for
// tests that care about one letter: through every step before target, each
// stamped now, in order. Where the letter's own way does not lead to target
// (a reRouted or returnedToSender event for a letter without that test
// input, or delivered for one with it) it turns off that way where it must.
// Afterwards the letter goes on from there on the clock. A letter already at
// target is returned unchanged; canceled cancels a letter queued, ready or
// at issue, as CancelLetter does. A target it has passed, or cannot reach
// (any target of a canceled letter; any but canceled of one at issue; queued
// or issue for any letter; canceled after ready) is a CodeConflict; an
// unknown target is CodeInvalid naming status or event. A letter whose
// printing fetches content is checked first, as the lifecycle checks it
// before production: content that can not be fetched puts it at issue, and
// is a CodeConflict.
func (s *Service) Simulate(ctx context.Context, account, id string, target SimulateTarget) (*Letter, error) {
	f := fieldErrors{}
	want := target.stage(f)
	if err := f.err(); err != nil {
		return nil, err
	}
	if err := s.checkToSimulate(ctx, account, id, want); err != nil {
		return nil, err
	}
	return s.modifyLetter(ctx, account, id, func(l *Letter) error {
		return s.life.simulate(l, want, s.now(account))
	})
}

func (lc *lifecycle) simulate(l *Letter, target postal.Stage, now time.Time) error {
	c := courseOf(l)
	history := make([]postal.Stage, len(l.Events))
	for i, e := range l.Events {
		history[i] = postal.Stage(e.Status)
	}
	err := lc.s.postal.Move(c, target, now, history)
	var refused *postal.RefusedError
	switch {
	case errors.Is(err, postal.ErrUnchanged):
		return errUnchanged
	case errors.As(err, &refused):
		return errorf(CodeConflict, "%s", refused.Message)
	case err != nil:
		return fmt.Errorf("simulate: %w", err)
	}
	applyCourse(c, l)
	lc.NoteDue(l.dueAt)
	return nil
}

// AwaitOptions say how far Await may move the clock, and which.
type AwaitOptions struct {
	// Within is how much time may pass on the clock; it must be positive.
	Within time.Duration
	// SharedClock moves the Service's clock, which every account follows,
	// instead of the account's own.
	SharedClock bool
}

// Await moves the account's clock on, to each next lifecycle step of the
// letter in turn, until the letter has reached target, and returns it: a
// letter status it is at or passed through (an event of its history says
// so), or a tracking event it has. Only as much time passes as the letter
// needs. Where the letter will not get there (canceled, at issue, nothing
// more to come) or not within o.Within, it is a CodeConflict saying where
// the letter stands, the clock left at the step it reached (or at
// o.Within, when the next step is later); an unknown target is CodeInvalid
// naming status or event.
func (s *Service) Await(ctx context.Context, account, id string, target SimulateTarget, o AwaitOptions) (*Letter, error) {
	f := fieldErrors{}
	want := target.stage(f)
	if o.Within <= 0 {
		f.add("within", "how long the clock may move is required, and positive, such as \"720h\"")
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	set := func(at time.Time) (err error) {
		if o.SharedClock {
			_, err = s.SetClock(ctx, at)
		} else {
			_, err = s.SetAccountClock(ctx, account, at)
		}
		return err
	}
	deadline := s.now(account).Add(o.Within)
	for stalled := 0; ; {
		l, err := s.GetLetter(ctx, account, id)
		if err != nil || reached(l, target) {
			return l, err
		}
		now, next := s.now(account), l.dueAt
		switch {
		case l.Status == StatusCanceled || l.Status == StatusIssue:
			return nil, errorf(CodeConflict, "letter %s is %s and will never reach %s", id, l.Status, want)
		case next.IsZero():
			return nil, errorf(CodeConflict, "letter %s is %s with nothing more to come (its last event: %s), and never reached %s", id, l.Status, lastEvent(l), want)
		case !now.Before(deadline) || next.After(deadline):
			if now.Before(deadline) {
				if err := set(deadline); err != nil {
					return nil, err
				}
			}
			return nil, errorf(CodeConflict, "letter %s is %s at %s, not at %s after %s on the clock (its next step is at %s)",
				id, l.Status, deadline.UTC().Format(time.RFC3339), want, o.Within, next.UTC().Format(time.RFC3339))
		case next.After(now):
			stalled = 0
			if err := set(next); err != nil {
				return nil, err
			}
		default:
			// Due already, which the next read runs; twice in a row means
			// the step does not run.
			if stalled++; stalled > 2 {
				return nil, internal("await", fmt.Errorf("letter %s is %s with a step due at %s that does not run", id, l.Status, next.UTC().Format(time.RFC3339)))
			}
		}
	}
}

// reached reports whether l has reached target: a status it is at or an
// event of its history names, or a tracking event it has.
func reached(l *Letter, target SimulateTarget) bool {
	if target.Status != "" && l.Status == target.Status {
		return true
	}
	return slices.ContainsFunc(l.Events, func(e Event) bool {
		if target.Status != "" {
			return e.Type == EventTypeStatus && e.Status == EventStatus(target.Status)
		}
		return e.Type == EventTypeTracking && e.Status == target.Event
	})
}

// lastEvent says what the letter's last event was, for a message.
func lastEvent(l *Letter) string {
	if len(l.Events) == 0 {
		return "none"
	}
	e := l.Events[len(l.Events)-1]
	return fmt.Sprintf("%s %s at %s", e.Type, e.Status, e.Timestamp.UTC().Format(time.RFC3339))
}

// MoveRegistry is implemented by an AddressProcessor that takes the moves
// NCOA forwards recipients by; Service.RegisterMove hands moves to it.
type MoveRegistry interface {
	RegisterMove(ctx context.Context, account string, m Move) error
}

// Move is a change of address filed with the postal service, used by NCOA:
// a recipient at From (compared after standardization: delivery line and
// ZIP Code) is forwarded to To. Name, when set, limits the move to a
// recipient of that name (individual full name or organization, in any
// case); without it everyone at From has moved.
//
// JSON: {"name": "Jane Doe", "from": {"addressLine1": "...", "lastLine":
// "..."}, "to": {...}}, the addresses in the form a letter's are given.
type Move struct {
	Name string       `json:"name,omitempty"`
	From AddressInput `json:"from"`
	To   AddressInput `json:"to"`
}

// RegisterMove records a move for NCOA in the account, for letters created
// (or whose recipient is updated) after it. A move registered again for the
// same address and name replaces the earlier one. It is a CodeConflict when
// the Service's address processor does not take moves (see MoveRegistry),
// and CodeInvalid, naming the field (from.lastLine, name), when the move is
// not usable.
func (s *Service) RegisterMove(ctx context.Context, account string, m Move) error {
	r, ok := s.address.(MoveRegistry)
	if !ok {
		return errorf(CodeConflict, "the address processor in use does not take moves (it is not a lettershop.MoveRegistry), so NCOA moves cannot be registered")
	}
	return r.RegisterMove(ctx, account, m)
}
