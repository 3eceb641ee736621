package lettershop

import (
	"time"

	"github.com/lettershop/lettershop/internal/docstep"
	"github.com/lettershop/lettershop/internal/duerun"
	"github.com/lettershop/lettershop/internal/ids"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// Postal is the postal world a letter goes through once it is accepted:
// when it is processed, printed and mailed, and what the mail stream
// reports of it. Both methods are pure functions of the course and the
// time given, so every server and every catch-up computes the same
// history. postal.Timeline, a simulation, is the default; WithPostal puts
// a real provider in its place.
type Postal interface {
	// Advance takes every step of c due up to now, each stamped with the
	// time it fell due.
	Advance(c *postal.Course, now time.Time)
	// Move takes c to target at now, through every step before it. It
	// returns postal.ErrUnchanged for a letter already at target and a
	// *postal.RefusedError for a target passed or out of reach; history
	// holds the statuses of the letter's events.
	Move(c *postal.Course, target postal.Stage, now time.Time, history []postal.Stage) error
}

// lifecycle moves letters through their statuses on the Service's clock.
// The runs of what is due are driven by internal/duerun: on a TestClock on
// demand (every read and write first runs whatever is due, and RunDue), on
// a real clock in the background too. The lifecycle decides what a run does
// with each letter (process) and with the letters it holds for their
// content (check, lifecycle_fetch.go).
type lifecycle struct {
	*duerun.Runner
	s    *Service
	mock bool
	// steps takes a run's steps on stored documents in place
	// (lifecycle_records.go).
	steps docstep.Stepper
}

func newLifecycle(s *Service) *lifecycle {
	lc := &lifecycle{s: s}
	_, lc.mock = s.clock.(TestClock)
	lc.steps = lc.stepper()
	lc.Runner = duerun.New(duerun.Config{
		Store: s.store, Clocks: &s.clocks, Clock: s.clock, OnDemand: lc.mock,
		Process: lc.process, Check: lc.check, Moved: s.deliveries.deliverer.Wake,
		StoreErr: func(err error) error { return storeErr("run due letters", err) },
		Logger:   s.logger,
	})
	lc.Start()
	return lc
}

// process applies to a stored letter every step due up to now: in place
// in its stored document when that has the expected layout, else by
// decoding and encoding the whole letter. A letter that cannot be decoded
// is taken off the schedule, logged, rather than blocking every run.
func (lc *lifecycle) process(r *storage.Letter, now time.Time) {
	if lc.advanceRecord(r, now) {
		// A letter still due is held before production, and checked by
		// the run that holds it (lifecycle_fetch.go): the loop must not
		// wake for it.
		if r.DueAt.After(now) {
			lc.NoteDue(r.DueAt)
		}
		return
	}
	l, err := letterFromRecord(*r)
	if err == nil {
		lc.settle(l, now)
		*r = letterRecord(r.Account, l)
		return
	}
	lc.s.logger.Error("lifecycle: letter taken off the schedule", "letter", r.ID, "err", err)
	r.DueAt, r.Notices = time.Time{}, nil
}

// settle applies to l every step due up to now, each stamped with the time
// it fell due. getLetter calls it too, so a letter read between runs is
// already where it should be and a change to it is judged on its current
// status; the run that stores those steps writes the same ones.
func (lc *lifecycle) settle(l *Letter, now time.Time) {
	if l.dueAt.IsZero() || l.dueAt.After(now) {
		return
	}
	c := courseOf(l)
	lc.advance(c, now)
	applyCourse(c, l)
	if l.dueAt.After(now) {
		lc.NoteDue(l.dueAt)
	}
}

// begin starts a new letter's history: queued, or at issue at once when its
// recipient cannot be mailed.
func (lc *lifecycle) begin(l *Letter, now time.Time) {
	lc.transition(l, StatusQueued, now, "Letter received")
	lc.rescheduled(l, now)
}

// rescheduled settles a queued letter, or one at issue, after its mail
// fields changed and its addresses were processed again: it is processed
// again, postal.ProcessingDelay from now, or goes to issue when its recipient can
// no longer be mailed. A letter at issue whose recipient can now be mailed
// is queued again (a status event records it) and its lifecycle resumes
// from now; one that still can not stays at issue, with the new
// issueMessage and no new event.
func (lc *lifecycle) rescheduled(l *Letter, now time.Time) {
	switch {
	case l.IssueMessage != "" && l.Status == StatusIssue:
		return
	case l.IssueMessage != "":
		lc.transition(l, StatusIssue, now, l.IssueMessage)
		return
	case l.Status == StatusIssue:
		lc.transition(l, StatusQueued, now, requeuedDescription)
	}
	l.dueAt = now.Add(postal.ProcessingDelay)
	lc.NoteDue(l.dueAt)
}

// requeuedDescription is the description of the status event of a letter
// at issue that an update made mailable again.
const requeuedDescription = "Issue resolved: letter queued again"

// transition moves l to status at time at, recording a status event.
func (lc *lifecycle) transition(l *Letter, status LetterStatus, at time.Time, description string) {
	l.Status = status
	l.Events = append(l.Events, newEvent(l.ID, len(l.Events), at, EventTypeStatus, EventStatus(status), description))
	switch status {
	case StatusCanceled, StatusIssue:
		l.dueAt = time.Time{}
	}
}

// newEvent is a letter's n-th event, happening at time at: created,
// modified and stamped then, whoever writes it and whenever.
func newEvent(letterID string, n int, at time.Time, typ EventType, status EventStatus, description string) Event {
	return Event{
		ID: eventID(letterID, n, at), CreatedAt: at, ModifiedAt: at, Timestamp: at,
		Type: typ, Status: status, Description: description,
	}
}

// eventID is the id of a letter's n-th event: a ULID of the event's time
// whose random part comes from the letter id and n, so the same history
// always has the same ids, whichever server or catch-up wrote it.
func eventID(letterID string, n int, at time.Time) string {
	var buf [eventIDLen]byte
	return string(ids.AppendEvent(buf[:0], eventPrefix, letterID, n, at))
}

// eventIDLen is the length of an event id: the prefix and a ULID.
const eventIDLen = len(eventPrefix) + ids.EventLen

// courseOf is l as the postal timeline sees it.
func courseOf(l *Letter) *postal.Course {
	return &postal.Course{ID: l.ID, Status: postal.Stage(l.Status), Facts: factsOf(l), Due: l.dueAt, Modified: l.ModifiedAt}
}

// factsOf is what the postal timeline needs to know of l.
func factsOf(l *Letter) postal.Facts {
	return postal.Facts{
		Stage:    stageOf(l),
		Events:   int32(len(l.Events)),
		SendDate: l.SendDate,
		Outcome:  postal.OutcomeOf(l.Recipient.NonAddressData),
		From:     placeOf(l.Sender),
		To:       placeOf(l.Recipient),
		Fetch:    fetches(l),
	}
}

// stageOf is where l is: its status, or its latest tracking event once mailed.
func stageOf(l *Letter) postal.Stage {
	if l.Status != StatusMailed {
		return postal.Stage(l.Status)
	}
	for i := len(l.Events) - 1; i >= 0; i-- {
		if e := l.Events[i]; e.Type == EventTypeTracking {
			return postal.Stage(e.Status)
		}
	}
	return postal.Mailed
}

// placeOf is where a party's address is, from its parsed components or
// its last line.
func placeOf(p Party) postal.Place {
	var city, state, zip string
	if c := p.AddressComponents; c != nil {
		city, state, zip = c.City, c.State, c.ZipCode
	}
	return postal.PlaceOf(city, state, zip, p.Address.LastLine)
}

// applyCourse writes c's steps into l, the letter c was made from.
func applyCourse(c *postal.Course, l *Letter) {
	for _, e := range c.Added {
		l.Events = append(l.Events, eventOf(c.ID, e))
	}
	l.Status, l.dueAt, l.ModifiedAt = LetterStatus(c.Status), c.Due, c.Modified
}

// eventOf is the letter event of a postal step.
func eventOf(letterID string, e postal.Event) Event {
	if !e.Tracking {
		return newEvent(letterID, e.N, e.At, EventTypeStatus, EventStatus(e.Status), e.Description)
	}
	ev := newEvent(letterID, e.N, e.At, EventTypeTracking, EventStatus(e.Status), e.Description)
	ev.TrackingEventDetails = &TrackingEventDetails{
		Facility: e.Facility, FacilityType: e.FacilityType, FacilityZip: e.FacilityZip, Notes: e.Notes,
	}
	ev.OperationCode = e.OperationCode
	ev.ActionRequired = e.ActionRequired
	ev.Location = e.Location
	return ev
}
