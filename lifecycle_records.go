package lettershop

import (
	"slices"
	"sync"
	"time"

	"github.com/lettershop/lettershop/internal/ids"
	"github.com/lettershop/lettershop/internal/jsonsplice"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// A run moves many letters, and a step changes only a letter's life facts,
// its status and due time, and adds events: so a run reads the facts of
// each letter's stored document, takes the steps on them, and hands the
// document the new facts and the events added, which it takes in whatever
// form it is in (stepper) without decoding the rest: a typed document is
// changed in place, a store's own form (storage.LetterStepper) is made
// again by the store from the old one's parts, a serialized one has its
// life replaced and its events appended (package jsonsplice). Decoding
// and encoding each letter whole would cost most of a run's time.

// stepper is a stored letter document a run steps.
type stepper interface {
	// facts writes the letter's life facts into f, and reports false when
	// it cannot read them.
	facts(f *postal.Facts) bool
	// stepped returns the document after steps that left the life facts
	// f and added the events added (their ids made from the letter's id),
	// with notices appended their notices. It reports false, changing
	// nothing, when it cannot take them in its form.
	stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool)
}

// courses are the postal courses of letters being advanced, reused: a run
// moves many letters, one at a time.
var courses = sync.Pool{New: func() any { return &postal.Course{} }}

// advanceRecord takes in place the steps of a stored letter due up to now.
// It reports false, changing nothing, when the document is neither typed
// nor laid out as expected; the caller then decodes the whole letter. A
// serialized document is replaced by a new slice: a store may hold on to it
// until it writes a whole batch.
func (lc *lifecycle) advanceRecord(r *storage.Letter, now time.Time) bool {
	switch d := r.Doc.(type) {
	case *letterDoc:
		return step(lc, r, d, now)
	case storage.LetterStepper:
		// A store's own form never changes: the store makes a new one
		// from the old one's parts, or else the run advances a document
		// of its own, which the store keeps in its form again.
		k := keptSteppers.Get().(*keptStepper)
		k.doc = d
		ok := step(lc, r, k, now)
		// What the pool holds must not keep the letter's strings alive.
		clear(k.events)
		k.doc, k.added, k.life = nil, nil, storage.LetterLife{}
		keptSteppers.Put(k)
		if ok {
			return true
		}
		var doc letterDoc
		if rd, isReader := d.(storage.LetterReader); !isReader || readLetterDoc(rd, &doc) != nil {
			return false
		}
		return step(lc, r, &doc, now)
	case storage.Encoded:
		return step(lc, r, encodedLetter(d), now)
	}
	return false
}

// step takes the steps of r, whose document is d, due up to now, and
// reports false, changing nothing, when d cannot take them.
func step[D stepper](lc *lifecycle, r *storage.Letter, d D, now time.Time) bool {
	c := courses.Get().(*postal.Course)
	defer courses.Put(c)
	*c = postal.Course{ID: r.ID, Status: postal.Stage(r.Status), Due: r.DueAt, Modified: r.ModifiedAt, Added: c.Added[:0]}
	if !d.facts(&c.Facts) {
		return false
	}
	lc.advance(c, now)
	doc, notices, ok := d.stepped(r.ID, &c.Facts, c.Added, r.Notices)
	if !ok {
		return false
	}
	r.Doc, r.Notices = doc, notices
	r.Status, r.DueAt, r.ModifiedAt = string(c.Status), c.Due, c.Modified
	return true
}

// keptStepper steps a letter a store keeps in a form of its own
// (storage.LetterStepper) through storage's values: the life facts read
// as a storage.LetterLife, the new events handed over as
// storage.LetterEvents, whose ids it appends (storage.LetterEventIDs) for
// the store to write in place. Its buffers are reused from letter to
// letter.
type keptStepper struct {
	doc    storage.LetterStepper
	life   storage.LetterLife
	events []storage.LetterEvent
	// id and added are the letter's id and the postal events of the step
	// being taken, which AppendEventID makes the ids of.
	id    string
	added []postal.Event
}

var keptSteppers = sync.Pool{New: func() any { return new(keptStepper) }}

func (k *keptStepper) facts(f *postal.Facts) bool {
	if !k.doc.LetterLife(&k.life) {
		return false
	}
	*f = lifeOf(&k.life)
	return true
}

func (k *keptStepper) stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
	if len(added) == 0 {
		return k.doc, notices, true
	}
	k.life = lifeValues(f)
	k.events = k.events[:0]
	for i := range added {
		k.events = append(k.events, eventValues(&added[i]))
	}
	k.id, k.added = id, added
	doc, ok := k.doc.StepLetter(&k.life, k.events, k)
	if !ok {
		return nil, nil, false
	}
	notices = slices.Grow(notices, len(added))
	for i := range added {
		e := &added[i]
		notices = append(notices, storage.Notice{
			EventID: k.events[i].ID, Type: noticeType(EventStatus(e.Status), e.N),
			Seq: e.N, At: e.At, RetryUntil: e.At.Add(WebhookRetryPeriod),
		})
	}
	return doc, notices, true
}

// AppendEventID implements storage.LetterEventIDs.
func (k *keptStepper) AppendEventID(dst []byte, i int) []byte {
	e := &k.added[i]
	return ids.AppendEvent(dst, eventPrefix, k.id, e.N, e.At)
}

// eventValues is the letter event of a postal step (eventOf) as values,
// but for its id.
func eventValues(e *postal.Event) storage.LetterEvent {
	v := storage.LetterEvent{
		CreatedAt: e.At, ModifiedAt: e.At, Timestamp: e.At,
		Type: string(eventStatus), Status: string(e.Status), Description: e.Description,
	}
	if e.Tracking {
		v.Type, v.HasTracking = string(eventTracking), true
		v.OperationCode, v.Location, v.ActionRequired = e.OperationCode, e.Location, e.ActionRequired
		v.Notes, v.Facility, v.FacilityType, v.FacilityZip = e.Notes, e.Facility, e.FacilityType, e.FacilityZip
	}
	return v
}

func (d *letterDoc) facts(f *postal.Facts) bool {
	*f = d.Life
	return true
}

// stepped changes d itself, which is the caller's own.
func (d *letterDoc) stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
	d.Life = *f
	if d.Events == nil {
		d.Events = []Event{}
	}
	for _, pe := range added {
		ev := eventOf(id, pe)
		d.Events = append(d.Events, ev)
		notices = append(notices, noticeOf(ev, pe.N))
	}
	return d, notices, true
}

// encodedLetter is a serialized letter document (see letterDoc in
// records.go):
//
//	{"life":{...},"sender":...,"events":[...]}
type encodedLetter []byte

// eventSize is room enough for most encoded events.
const eventSize = 640

func (e encodedLetter) facts(f *postal.Facts) bool {
	o, ok := jsonsplice.Split(e, "life")
	return ok && decodeDoc(o.First(), f) == nil
}

func (e encodedLetter) stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
	o, ok := jsonsplice.Split(e, "life")
	if !ok {
		return nil, nil, false
	}
	life, err := encodeDoc(f)
	if err != nil {
		return nil, nil, false
	}
	out := notices
	a := o.Begin(make([]byte, 0, o.Len()+len(life)+eventSize*len(added)), life)
	for _, pe := range added {
		ev := eventOf(id, pe)
		b, err := encodeDoc(&ev)
		if err != nil {
			return nil, nil, false
		}
		a.Element(b)
		out = append(out, noticeOf(ev, pe.N))
	}
	return storage.Encoded(a.End()), out, true
}
