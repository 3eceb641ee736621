package postal

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Facts is what the timeline needs to know of a letter besides its id,
// status and due time: where it is, how many events it has, and the inputs
// of its timing. The lettershop root derives it from the letter and stores
// it first in the letter's document, so that a run reads it without
// decoding the rest; its JSON encoding is therefore part of the stored
// format.
type Facts struct {
	Stage Stage `json:"stage"`
	// Events counts the letter's events: a few dozen at most. An int32,
	// so that Fetch takes no room of its own: the facts are part of every
	// letter a run reads and writes.
	Events int32 `json:"events"`
	// Fetch says the letter prints content fetched from a URL when it is
	// printed. The timeline carries it and does not read it: the caller,
	// which fetches, holds such a letter at ready until its content is
	// fetched, and then lets it into production.
	Fetch    bool    `json:"fetch,omitempty"`
	SendDate string  `json:"sendDate,omitempty"`
	Outcome  Outcome `json:"outcome,omitempty"`
	From     Place   `json:"from"`
	To       Place   `json:"to"`
}

// Course is a letter on its way through the timeline: what the steps read
// and what they change, apart from the rest of the letter. Advance and
// Move take steps; the caller writes Status, Due, Modified and the Added
// events back into its letter.
type Course struct {
	ID       string    // the letter's id, the seed of its variation
	Status   Stage     // the letter's status: one of Queued to Canceled
	Facts    Facts     // where the letter is, and the inputs of its timing
	Due      time.Time // when its next step is due; zero when none is
	Modified time.Time // when the letter last changed
	Added    []Event   // the events of the steps taken, in order

	hash   letterHash // of ID, made when first needed
	hashed bool
}

func (c *Course) varied() *letterHash {
	if !c.hashed {
		c.hash, c.hashed = hashLetter(c.ID), true
	}
	return &c.hash
}

// Event is what a step records: a status event, or once the letter is
// mailed a tracking scan, with where it was scanned.
type Event struct {
	N           int       // the letter's n-th event, counting from 0
	At          time.Time // when the step happened
	Tracking    bool      // a tracking scan, else a status change
	Status      Stage     // the status the letter or the scan reached
	Description string

	// Of tracking scans only.
	OperationCode  string // a USPS-style three-digit scan code
	ActionRequired bool   // the sender should act on it
	Location       string // "CITY, ST 12345", the parts known
	Facility       string
	FacilityType   string
	FacilityZip    string
	Notes          string
}

// Timeline is the simulated postal world: it moves a Course along the
// schedule docs/lifecycle.md describes. The zero value is ready to use.
type Timeline struct{}

// Advance takes every step of c due up to now, each stamped with the time
// it fell due.
func (Timeline) Advance(c *Course, now time.Time) {
	for !c.Due.IsZero() && !c.Due.After(now) {
		next := successors(c.Facts.Stage, c.Facts.Outcome)
		if len(next) == 0 {
			c.Due = time.Time{}
			return
		}
		c.enter(next[0], c.Due)
	}
}

// ErrUnchanged is Move's answer for a letter already at its target.
var ErrUnchanged = errors.New("postal: letter already at target")

// RefusedError is Move's answer for a target the letter has passed or
// cannot reach. Its message is fit to show the sender.
type RefusedError struct{ Message string }

// Error returns the message.
func (e *RefusedError) Error() string { return e.Message }

func refused(format string, args ...any) error {
	return &RefusedError{Message: fmt.Sprintf(format, args...)}
}

// Move takes c to target at now, through every step before it, each
// stamped now. Where the letter's own way does not lead to target it turns
// off that way where it must. history holds the statuses of the letter's
// events, to tell a target passed from one out of reach. It returns
// ErrUnchanged for a letter already at target, and a *RefusedError for a
// target passed or out of reach: any target but canceled of a letter at
// issue; any target of a canceled letter; queued or issue for any letter;
// canceled after ready.
func (Timeline) Move(c *Course, target Stage, now time.Time, history []Stage) error {
	cur := c.Facts.Stage
	if cur == target || c.Status == target {
		return ErrUnchanged
	}
	switch {
	case target == Canceled:
		if cur != Queued && cur != Ready && cur != Issue {
			return refused("letter %s is %s and can no longer be canceled", c.ID, c.Status)
		}
		c.enter(Canceled, now)
		return nil
	case target == Queued:
		return refused("letter %s is %s: no move reaches queued; a letter is queued when it is made, or when an update fixes a letter at issue", c.ID, c.Status)
	case target == Issue:
		return refused("letter %s is %s: no move reaches issue; a letter is at issue when it is made or updated with a recipient its deliverability threshold refuses (cassRecipient and the test address \"undeliverable no match\", docs/addresses.md), or with content that can not be printed", c.ID, c.Status)
	case cur == Canceled || cur == Issue:
		return refused("letter %s is %s and does not move", c.ID, c.Status)
	}
	path := pathTo(cur, target, c.Facts.Outcome)
	if path == nil {
		if slices.Contains(history, target) {
			return refused("letter %s has already passed %s: it is at %s", c.ID, target, cur)
		}
		return refused("letter %s is at %s, from where it can not reach %s", c.ID, cur, target)
	}
	for _, st := range path {
		c.enter(st, now)
	}
	return nil
}

// enter records c reaching st at time at and schedules its next step.
func (c *Course) enter(st Stage, at time.Time) {
	var e Event
	if st.Tracking() {
		e = trackingEvent(c, st, at)
	} else {
		c.Status = st
		e = Event{N: int(c.Facts.Events), At: at, Status: st, Description: Describe(st)}
	}
	if c.Added == nil {
		c.Added = make([]Event, 0, 4) // a day's run takes one to three steps
	}
	c.Added = append(c.Added, e)
	c.Facts.Stage = st
	c.Facts.Events++
	if at.After(c.Modified) {
		c.Modified = at
	}
	c.Due = time.Time{}
	if next := successors(st, c.Facts.Outcome); len(next) > 0 {
		c.Due = dueAfter(c, st, next[0], at)
	}
}

var statusDescriptions = map[Stage]string{
	Ready:        "Letter processed and ready for printing",
	InProduction: "Letter is being printed and enclosed",
	Mailed:       "Letter handed to the postal service",
	Canceled:     "Canceled at the sender's request",
}

// Describe is the description of the status event of a letter reaching
// status st; "" for a status the timeline does not set.
func Describe(st Stage) string { return statusDescriptions[st] }
