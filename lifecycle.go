package lettershop

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lettershop/lettershop/internal/ids"
	"github.com/lettershop/lettershop/internal/waker"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// Event types.
const (
	eventStatus   = EventTypeStatus
	eventTracking = EventTypeTracking
)

const (
	// runBatch is how many due letters one ProcessDueLetters call takes.
	runBatch = 500
	// catchUpEvery throttles the catch-up of reads on a real clock: a
	// letter that fell due within it may be a moment late in a list, never
	// in a fetch (getLetter settles the letter it reads).
	catchUpEvery = time.Second
	// maxSleep bounds the background loop's sleep, so letters written by
	// other servers sharing the store are not left waiting long.
	maxSleep = time.Minute
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
//
// On a TestClock nothing runs in the background (a ticker on a clock.Mock
// would make every Add crawl, the Mock pausing after each tick): every read
// and write first runs whatever is due, and RunDue does the same on demand. On
// a real clock a waker (internal/waker) runs what is due whenever the next
// due time this process knows of comes, and at least every maxSleep, and
// reads catch up at most once per catchUpEvery.
type lifecycle struct {
	s    *Service
	mock bool

	// runMu makes the runs of this process take turns, so a read that
	// catches up never returns while another run still holds letters that
	// are due.
	runMu   sync.Mutex
	lastRun atomic.Int64 // clock time of the latest run's start, UnixNano
	// held are the letters the batch running left due, held before
	// production (lifecycle_fetch.go); runMu guards it.
	held []heldLetter

	// waker runs the background runs, told of every future due time this
	// process writes; nil on a TestClock.
	waker *waker.Waker
}

func newLifecycle(s *Service) *lifecycle {
	lc := &lifecycle{s: s}
	_, lc.mock = s.clock.(TestClock)
	if !lc.mock {
		lc.waker = waker.New(s.clock, maxSleep, func(ctx context.Context) {
			if _, err := lc.run(ctx); err != nil && ctx.Err() == nil {
				lc.s.logger.Error("lifecycle: run due letters", "err", err)
			}
		})
		lc.waker.Start()
	}
	return lc
}

// stop ends the background work and waits for it. It may be called more
// than once.
func (lc *lifecycle) stop() { lc.waker.Stop() }

// noteDue tells the background runs that a letter falls due at t.
func (lc *lifecycle) noteDue(t time.Time) { lc.waker.Note(t) }

// catchUp brings every letter of the account whose next step fell due up
// to now, so a read after a test clock moved sees every letter where it
// should be: an account on a clock of its own at its time, any other with
// every letter due on the Service's clock. It reads the accounts' clocks
// from the store first (acctclock.Clocks.Refresh), unless the operation it is part of
// has. On a real clock it runs at most once per catchUpEvery.
func (lc *lifecycle) catchUp(ctx context.Context, account string) error {
	if !lc.mock {
		last := lc.lastRun.Load()
		if last != 0 && lc.s.clock.Now().UnixNano()-last < int64(catchUpEvery) {
			return nil
		}
	} else if !lc.s.clocks.WasRead(ctx) {
		lc.s.clocks.Refresh(ctx)
	}
	if lc.mock && lc.s.clocks.Apart() {
		if _, own := lc.s.clocks.Lookup(account); own {
			_, err := lc.runAccount(ctx, account)
			return err
		}
	}
	_, err := lc.runServer(ctx)
	return err
}

// run processes every letter due, each at the time of its account's clock,
// and returns how many it moved.
func (lc *lifecycle) run(ctx context.Context) (int, error) {
	lc.s.clocks.Refresh(ctx)
	return lc.runServer(ctx)
}

// runServer processes every letter due at the Service's clock's current
// time, each at its account's time: the store orders the letters by when
// they fall due on the Service's clock, each account's by its own clock
// (storage.DueQuery), so one walk of what is due finds them all. Frozen
// clocks stand still while the Service's moves: their accounts' letters
// are left to their own runs.
func (lc *lifecycle) runServer(ctx context.Context) (int, error) {
	return lc.runChecked(ctx, func(checked map[string]bool) (int, []heldLetter, error) {
		lc.runMu.Lock()
		defer lc.runMu.Unlock()
		now := lc.s.clocks.ServerNow()
		lc.lastRun.Store(now.UnixNano())
		lc.waker.Reached(now)
		return lc.drain(ctx, storage.DueQuery{Now: now}, func(account string) time.Time { return lc.s.clocks.Time(account, now) }, checked)
	})
}

// runAccount processes the account's letters due at the time of its clock.
func (lc *lifecycle) runAccount(ctx context.Context, account string) (int, error) {
	return lc.runChecked(ctx, func(checked map[string]bool) (int, []heldLetter, error) {
		lc.runMu.Lock()
		defer lc.runMu.Unlock()
		now := lc.s.now(account)
		return lc.drain(ctx, storage.DueQuery{Now: now, Account: account}, func(string) time.Time { return now }, checked)
	})
}

// drain processes the letters q selects, a batch at a time, until none is
// left due, and returns how many it moved. at is the time of a letter's
// account, which its steps are taken up to.
//
// A store hands out letters by its own clocks. A clock another Service
// moved since this one read the clocks can make a letter due by the
// store's reading and not by this Service's: such a letter is written
// back unchanged (which also sets its place in the store's order again),
// the clocks are read again, and a batch of nothing but such letters, read
// again, ends the run.
//
// A letter held before production for its content (lifecycle_fetch.go) is
// not one moved either; drain stops after a batch that held letters not yet
// checked, and returns them, for its caller to fetch their content outside
// the run's lock.
func (lc *lifecycle) drain(ctx context.Context, q storage.DueQuery, at func(account string) time.Time, checked map[string]bool) (int, []heldLetter, error) {
	q.Limit = runBatch
	total, reread := 0, false
	for {
		early := 0
		n, err := lc.s.store.ProcessDueLetters(ctx, q, func(r *storage.Letter) error {
			t := at(r.Account)
			if r.DueAt.After(t) {
				early++
			}
			lc.process(r, t)
			if !r.DueAt.IsZero() && !r.DueAt.After(t) {
				lc.held = append(lc.held, heldLetter{r.Account, r.ID})
			}
			return nil
		})
		held, pending := len(lc.held), toCheck(lc.held, checked)
		lc.held = lc.held[:0]
		total += n - min(early+held, n)
		if err != nil {
			return total, nil, storeErr("run due letters", err)
		}
		// Stop only when nothing moved: a short batch may have passed over
		// letters changed while it ran, which are due still.
		if n == 0 || len(pending) > 0 || n == early+held && (early == 0 || reread) {
			if total > 0 {
				lc.s.deliveries.changed()
			}
			return total, pending, nil
		}
		reread = early > 0
		if reread {
			lc.s.clocks.Refresh(ctx)
		}
	}
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
			lc.noteDue(r.DueAt)
		}
		return
	}
	l, err := letterFromRecord(*r)
	if err == nil {
		lc.settle(l, now)
		var rec storage.Letter
		if rec, err = letterRecord(r.Account, l); err == nil {
			*r = rec
			return
		}
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
		lc.noteDue(l.dueAt)
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
	lc.noteDue(l.dueAt)
}

// requeuedDescription is the description of the status event of a letter
// at issue that an update made mailable again.
const requeuedDescription = "Issue resolved: letter queued again"

// transition moves l to status at time at, recording a status event.
func (lc *lifecycle) transition(l *Letter, status LetterStatus, at time.Time, description string) {
	l.Status = status
	l.Events = append(l.Events, newEvent(l.ID, len(l.Events), at, eventStatus, EventStatus(status), description))
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
		if e := l.Events[i]; e.Type == eventTracking {
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
		return newEvent(letterID, e.N, e.At, eventStatus, EventStatus(e.Status), e.Description)
	}
	ev := newEvent(letterID, e.N, e.At, eventTracking, EventStatus(e.Status), e.Description)
	ev.TrackingEventDetails = &TrackingEventDetails{
		Facility: e.Facility, FacilityType: e.FacilityType, FacilityZip: e.FacilityZip, Notes: e.Notes,
	}
	ev.OperationCode = e.OperationCode
	ev.ActionRequired = e.ActionRequired
	ev.Location = e.Location
	return ev
}
