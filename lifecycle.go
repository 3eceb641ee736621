package lettershop

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// lifecycle moves letters through their statuses on the Service's clock.
type lifecycle struct {
	s *Service
}

func newLifecycle(s *Service) *lifecycle { return &lifecycle{s: s} }

// stop ends the background work.
func (lc *lifecycle) stop() {}

// catchUp brings every letter whose next step fell due up to now.
func (lc *lifecycle) catchUp(ctx context.Context) error { return nil }

// begin starts a new letter's history: queued, or at issue at once when its
// recipient cannot be mailed.
func (lc *lifecycle) begin(l *Letter, now time.Time) {
	lc.transition(l, StatusQueued, now, "Letter received")
	lc.rescheduled(l, now)
}

// rescheduled settles a queued letter after its mail fields changed.
func (lc *lifecycle) rescheduled(l *Letter, now time.Time) {
	if l.IssueMessage != "" {
		lc.transition(l, StatusIssue, now, l.IssueMessage)
		return
	}
	l.dueAt = time.Time{}
}

// transition moves l to status at time at, recording a status event.
func (lc *lifecycle) transition(l *Letter, status LetterStatus, at time.Time, description string) {
	l.Status = status
	l.Events = append(l.Events, Event{
		ID:          eventID(l.ID, len(l.Events), at),
		CreatedAt:   at,
		ModifiedAt:  at,
		Timestamp:   at,
		Type:        "status",
		Status:      string(status),
		Description: description,
	})
	switch status {
	case StatusCanceled, StatusIssue:
		l.dueAt = time.Time{}
	}
}

// eventID is the id of a letter's n-th event: a ULID of the event's time
// whose random part comes from the letter id and n, so the same history
// always has the same ids, whichever server or catch-up wrote it.
func eventID(letterID string, n int, at time.Time) string {
	seed := sha256.Sum256(binary.BigEndian.AppendUint64([]byte(letterID), uint64(n)))
	id := ulid.MustNew(ulid.Timestamp(at), bytes.NewReader(seed[:]))
	return eventPrefix + strings.ToLower(id.String())
}

// RunDue brings every letter whose next lifecycle step is due at the
// clock's current time up to date, each step stamped with the time it fell
// due, and returns how many letters moved. Tests that move a clock.Mock call
// it (or any read, which catches up first) to see the effect.
func (s *Service) RunDue(ctx context.Context) (int, error) {
	return 0, errorf(CodeInternal, "not implemented")
}

// SimulateTarget is where Simulate moves a letter: a letter status, or a
// tracking event status (inTransit, inLocalArea, processedForDelivery,
// delivered, reRouted, returnedToSender). Exactly one is set.
type SimulateTarget struct {
	Status LetterStatus `json:"status,omitempty"`
	Event  string       `json:"event,omitempty"`
}

// Simulate moves one letter to target now, through every step before it,
// without moving the clock: for tests that care about one letter.
func (s *Service) Simulate(ctx context.Context, account, id string, target SimulateTarget) (*Letter, error) {
	return nil, errorf(CodeInternal, "not implemented")
}
