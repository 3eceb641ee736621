package lettershop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/internal/erasemark"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// This file holds the Service's controls for tests, in one place: running
// what fell due after a test moved its clock (the clock itself is
// WithClock's), moving one letter along its timeline, and registering the
// moves NCOA follows (package await moves the clock until a letter gets
// somewhere). httpadapter/testroutes.go serves them under /_test.

// RunDue brings every letter whose next lifecycle step is due at the
// clock's current time up to date, each step stamped with the time it fell
// due, and returns how many letters moved. Tests that move a clock.Mock call
// it (or any read, which catches up first) to see the effect.
func (s *Service) RunDue(ctx context.Context) (int, error) {
	n, err := s.life.Run(ctx)
	// Webhook attempts fall due on the clock too.
	s.deliveries.wakeAfterMove(ctx)
	return n, err
}

// SimulateTarget is where Simulate moves a letter: a letter status, or a
// tracking event status (inTransit, inLocalArea, processedForDelivery,
// delivered, reRouted, returnedToSender). Exactly one is set.
type SimulateTarget struct {
	Status LetterStatus `json:"status,omitempty"`
	Event  EventStatus  `json:"event,omitempty"`
}

// Check reports what is wrong with t, a CodeInvalid naming status or
// event, or nil when it names one place a letter can be moved to.
func (t SimulateTarget) Check() error {
	f := fieldErrors{}
	t.stage(f)
	return f.err()
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

// MoveForgetter is a MoveRegistry that forgets an account's moves, as
// EraseAccount asks it to.
type MoveForgetter interface {
	ForgetMoves(ctx context.Context, account string) error
}

// EraseAccount empties the account, for a suite whose tests share one
// account (a fixed API key): its letters, assets with their versions and
// content, webhooks with their deliveries, and idempotency keys go in one
// step of the store (a storage.Eraser; CodeConflict otherwise), and with
// them what the Service keeps of the account beside the store: the moves
// registered (when the address processor is a MoveForgetter) and its
// letters' renderings. Its clock stays where it stands, frozen or not: a
// clock never goes back. Erase while nothing else runs in the account.
func (s *Service) EraseAccount(ctx context.Context, account string) error {
	if err := accountErr(account); err != nil {
		return err
	}
	e, ok := s.rawStore.(storage.Eraser)
	if !ok {
		return errorf(CodeConflict, "the store in use can not erase an account (it is no storage.Eraser): take a new account instead")
	}
	if err := e.EraseAccount(ctx, account); err != nil {
		return storeErr("erase account", err)
	}
	s.erasures.Erased(account)
	if err := s.clocks.Touch(ctx, account); err != nil {
		return clockErr(err, "")
	}
	s.render.cache.Forget(account)
	s.idem.Forget(account)
	if m, ok := s.address.(MoveForgetter); ok {
		return m.ForgetMoves(ctx, account)
	}
	return nil
}

// Erasures returns a mark of the account's erasures (EraseAccount),
// through this Service or, on a test clock, another on the same store, as
// the operation of ctx reads them: it reads the accounts' clocks first,
// which an erase moves, and returns ctx for the operation's reads. A
// record read at one mark and again at the same mark (in any account) is
// of the same account, not erased between. What keeps something made of an
// account's records (package wire's encodings, by id and revision) drops
// what it made at another mark: an erased account's ids may come back,
// restored, at revisions they had.
func (s *Service) Erasures(ctx context.Context, account string) (context.Context, uint64) {
	ctx = s.clocks.Read(ctx)
	return ctx, erasemark.WithStamp(s.erasures.Of(account), s.clocks.Stamp(account))
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
	if err := accountErr(account); err != nil {
		return err
	}
	return r.RegisterMove(ctx, account, m)
}
