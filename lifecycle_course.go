package lettershop

import (
	"slices"
	"time"
)

// lifeDoc is what the schedule needs to know of a letter besides its id,
// status and due time: where it is, how many events it has, and the inputs
// of its timing. It is derived from the letter, and stored first in the
// letter's document so that a run reads it without decoding the rest
// (lifecycle_records.go).
type lifeDoc struct {
	Stage    stage   `json:"stage"`
	Events   int     `json:"events"`
	SendDate string  `json:"sendDate,omitempty"`
	Outcome  outcome `json:"outcome,omitempty"`
	From     place   `json:"from"`
	To       place   `json:"to"`
}

func lifeOf(l *Letter) lifeDoc {
	return lifeDoc{
		Stage:    stageOf(l),
		Events:   len(l.Events),
		SendDate: l.SendDate,
		Outcome:  outcomeOf(l),
		From:     placeOf(l.Sender),
		To:       placeOf(l.Recipient),
	}
}

// course is a letter on its way through the schedule: what the steps read
// and what they change, apart from the rest of the letter.
type course struct {
	id       string
	status   LetterStatus
	life     lifeDoc
	due      time.Time
	modified time.Time
	added    []Event
	hash     *letterHash // of id, made when first needed
}

func (c *course) varied() *letterHash {
	if c.hash == nil {
		h := hashLetter(c.id)
		c.hash = &h
	}
	return c.hash
}

func courseOf(l *Letter) *course {
	return &course{id: l.ID, status: l.Status, life: lifeOf(l), due: l.dueAt, modified: l.ModifiedAt}
}

// applyTo writes c's steps into l, the letter c was made from.
func (c *course) applyTo(l *Letter) {
	l.Events = append(l.Events, c.added...)
	l.Status, l.dueAt, l.ModifiedAt = c.status, c.due, c.modified
}

// advance takes every step due up to now, each stamped with the time it
// fell due.
func (c *course) advance(now time.Time) {
	for !c.due.IsZero() && !c.due.After(now) {
		next := successors(c.life.Stage, c.life.Outcome)
		if len(next) == 0 {
			c.due = time.Time{}
			return
		}
		c.enter(next[0], c.due)
	}
}

// enter records c reaching st at time at and schedules its next step.
func (c *course) enter(st stage, at time.Time) {
	var e Event
	if st.tracking() {
		e = trackingEvent(c, st, at)
	} else {
		c.status = LetterStatus(st)
		e = newEvent(c.id, c.life.Events, at, eventStatus, EventStatus(st), statusDescriptions[st])
	}
	if c.added == nil {
		c.added = make([]Event, 0, 4) // a day's run takes one to three steps
	}
	c.added = append(c.added, e)
	c.life.Stage = st
	c.life.Events++
	if at.After(c.modified) {
		c.modified = at
	}
	c.due = time.Time{}
	if next := successors(st, c.life.Outcome); len(next) > 0 {
		c.due = dueAfter(c, st, next[0], at)
	}
}

var statusDescriptions = map[stage]string{
	stageReady:        "Letter processed and ready for printing",
	stageInProduction: "Letter is being printed and enclosed",
	stageMailed:       "Letter handed to the postal service",
	stageCanceled:     canceledDescription,
}

const canceledDescription = "Canceled at the sender's request"

// simulate moves c to target now, through every step before it; history
// is the letter's events, to tell a target passed from one out of reach.
func (c *course) simulate(target stage, now time.Time, history []Event) error {
	cur := c.life.Stage
	if cur == target || stage(c.status) == target {
		return errUnchanged
	}
	switch {
	case target == stageCanceled:
		if cur != stageQueued && cur != stageReady {
			return errorf(CodeConflict, "letter %s is %s and can no longer be canceled", c.id, c.status)
		}
		c.enter(stageCanceled, now)
		return nil
	case target == stageQueued || target == stageIssue:
		return errorf(CodeConflict, "letter %s is %s: a letter is %s only from its creation", c.id, c.status, target)
	case cur == stageCanceled || cur == stageIssue:
		return errorf(CodeConflict, "letter %s is %s and does not move", c.id, c.status)
	}
	path := pathTo(cur, target, c.life.Outcome)
	if path == nil {
		if slices.ContainsFunc(history, func(e Event) bool { return e.Status == EventStatus(target) }) {
			return errorf(CodeConflict, "letter %s has already passed %s: it is at %s", c.id, target, cur)
		}
		return errorf(CodeConflict, "letter %s is at %s, from where it can not reach %s", c.id, cur, target)
	}
	for _, st := range path {
		c.enter(st, now)
	}
	return nil
}
