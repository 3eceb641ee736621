// Package docstep takes a lifecycle run's steps on stored letter documents
// in place, in whatever form the document is in, without decoding the
// rest of it.
//
// A run moves many letters, and a step changes only a letter's life facts,
// its status and due time, and adds events: so a run reads the facts of
// each letter's stored document, takes the steps on them, and hands the
// document the new facts and the events added, which it takes in its form
// (Doc) without decoding the rest: a typed document (the caller's) is
// changed in place, a store's own form (storage.LetterStepper) is made
// again by the store from the old one's parts (Stepper.Kept), a serialized
// one has its life replaced and its events appended (Stepper.Encoded,
// through package jsonsplice). Decoding and encoding each letter whole
// would cost most of a run's time.
//
// What a step is (the course's advance), and what its events and their
// notices hold, are the caller's: a Stepper is given them.
package docstep

import (
	"slices"
	"sync"
	"time"

	"github.com/lettershop/lettershop/internal/ids"
	"github.com/lettershop/lettershop/internal/jsonsplice"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// Doc is a stored letter document a run steps.
type Doc interface {
	// Facts writes the letter's life facts into f, and reports false when
	// it cannot read them.
	Facts(f *postal.Facts) bool
	// Stepped returns the document after steps that left the life facts
	// f and added the events added (their ids made from the letter's id),
	// with notices appended their notices. It reports false, changing
	// nothing, when it cannot take them in its form.
	Stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool)
}

// A Stepper steps stored letter documents, with what its caller gives of
// steps, events and encodings. Its fields are set once; it may then be
// used by any number of runs at once.
type Stepper struct {
	// Advance takes c's steps due by now.
	Advance func(c *postal.Course, now time.Time)
	// EventPrefix is the prefix of the events' ids (ids.AppendEvent).
	EventPrefix string
	// StatusType and TrackingType are the types of the events of a status
	// step and of a tracking one, as the caller's own events have them.
	StatusType, TrackingType string
	// NoticeType is the type of the notice of an event, the n-th of its
	// letter, that reached status; RetryPeriod is how long after the event
	// its deliveries are tried.
	NoticeType  func(status postal.Stage, n int) string
	RetryPeriod time.Duration
	// LifeValues and LifeFacts map life facts to storage's values and
	// back, for a store's own form.
	LifeValues func(f *postal.Facts) storage.LetterLife
	LifeFacts  func(l *storage.LetterLife) postal.Facts
	// Encode and Decode are the encoding of a serialized document's parts:
	// its life facts (a *postal.Facts) read and written.
	Encode func(v any) ([]byte, error)
	Decode func(data []byte, v any) error
	// EncodeEvent is the encoding of the event the letter's step e added,
	// and its id, as the caller's typed document holds it.
	EncodeEvent func(letterID string, e *postal.Event) (data []byte, eventID string, err error)
}

// courses are the postal courses of letters being advanced, reused: a run
// moves many letters, one at a time.
var courses = sync.Pool{New: func() any { return &postal.Course{} }}

// Step takes the steps of r, whose document is d, due up to now, and
// reports false, changing nothing, when d cannot take them.
func Step[D Doc](s *Stepper, r *storage.Letter, d D, now time.Time) bool {
	c := courses.Get().(*postal.Course)
	defer courses.Put(c)
	*c = postal.Course{ID: r.ID, Status: postal.Stage(r.Status), Due: r.DueAt, Modified: r.ModifiedAt, Added: c.Added[:0]}
	if !d.Facts(&c.Facts) {
		return false
	}
	s.Advance(c, now)
	doc, notices, ok := d.Stepped(r.ID, &c.Facts, c.Added, r.Notices)
	if !ok {
		return false
	}
	r.Doc, r.Notices = doc, notices
	r.Status, r.DueAt, r.ModifiedAt = string(c.Status), c.Due, c.Modified
	return true
}

// Kept takes in place the steps of r, whose document d is a store's own
// form, due up to now. A store's own form never changes: the store makes a
// new one from the old one's parts. Kept reports false, changing nothing,
// when the store cannot; the caller then advances a document of its own,
// which the store keeps in its form again.
func (s *Stepper) Kept(r *storage.Letter, d storage.LetterStepper, now time.Time) bool {
	k := keptSteppers.Get().(*keptStepper)
	k.s, k.doc = s, d
	ok := Step(s, r, k, now)
	// What the pool holds must not keep the letter's strings alive.
	clear(k.events)
	k.s, k.doc, k.added, k.life = nil, nil, nil, storage.LetterLife{}
	keptSteppers.Put(k)
	return ok
}

// keptStepper steps a letter a store keeps in a form of its own
// (storage.LetterStepper) through storage's values: the life facts read
// as a storage.LetterLife, the new events handed over as
// storage.LetterEvents, whose ids it appends (storage.LetterEventIDs) for
// the store to write in place. Its buffers are reused from letter to
// letter.
type keptStepper struct {
	s      *Stepper
	doc    storage.LetterStepper
	life   storage.LetterLife
	events []storage.LetterEvent
	// id and added are the letter's id and the postal events of the step
	// being taken, which AppendEventID makes the ids of.
	id    string
	added []postal.Event
}

var keptSteppers = sync.Pool{New: func() any { return new(keptStepper) }}

func (k *keptStepper) Facts(f *postal.Facts) bool {
	if !k.doc.LetterLife(&k.life) {
		return false
	}
	*f = k.s.LifeFacts(&k.life)
	return true
}

func (k *keptStepper) Stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
	if len(added) == 0 {
		return k.doc, notices, true
	}
	k.life = k.s.LifeValues(f)
	k.events = k.events[:0]
	for i := range added {
		k.events = append(k.events, k.s.eventValues(&added[i]))
	}
	k.id, k.added = id, added
	doc, ok := k.doc.StepLetter(&k.life, k.events, k)
	if !ok {
		return nil, nil, false
	}
	notices = slices.Grow(notices, len(added))
	for i := range added {
		notices = append(notices, k.s.notice(k.events[i].ID, &added[i]))
	}
	return doc, notices, true
}

// notice is the notice of the event with the id given, which step e added.
func (s *Stepper) notice(eventID string, e *postal.Event) storage.Notice {
	return storage.Notice{EventID: eventID, Type: s.NoticeType(e.Status, e.N), Seq: e.N, At: e.At, RetryUntil: e.At.Add(s.RetryPeriod)}
}

// AppendEventID implements storage.LetterEventIDs.
func (k *keptStepper) AppendEventID(dst []byte, i int) []byte {
	e := &k.added[i]
	return ids.AppendEvent(dst, k.s.EventPrefix, k.id, e.N, e.At)
}

// eventValues is the event of a postal step as values, but for its id.
func (s *Stepper) eventValues(e *postal.Event) storage.LetterEvent {
	v := storage.LetterEvent{
		CreatedAt: e.At, ModifiedAt: e.At, Timestamp: e.At,
		Type: s.StatusType, Status: string(e.Status), Description: e.Description,
	}
	if e.Tracking {
		v.Type, v.HasTracking = s.TrackingType, true
		v.OperationCode, v.Location, v.ActionRequired = e.OperationCode, e.Location, e.ActionRequired
		v.Notes, v.Facility, v.FacilityType, v.FacilityZip = e.Notes, e.Facility, e.FacilityType, e.FacilityZip
	}
	return v
}

// Encoded takes in place the steps of r, whose document d is serialized
// as an object whose first member is the life facts and whose last is
// the array of events:
//
//	{"life":{...},"sender":...,"events":[...]}
//
// It reports false, changing nothing, when d is not laid out so; the
// caller then decodes the whole letter. The document stepped is a new
// slice: a store may hold on to d until it writes a whole batch.
//
// It is not inlined: a caller in another package would then call Step's
// instantiation itself, whose escape analysis it does not have, and move
// its record to the heap on every call.
//
//go:noinline
func (s *Stepper) Encoded(r *storage.Letter, d storage.Encoded, now time.Time) bool {
	return Step(s, r, encoded{s, d}, now)
}

// encoded is a serialized letter document stepped by Encoded.
type encoded struct {
	s   *Stepper
	doc storage.Encoded
}

// eventSize is room enough for most encoded events.
const eventSize = 640

func (e encoded) Facts(f *postal.Facts) bool {
	o, ok := jsonsplice.Split(e.doc, "life")
	return ok && e.s.Decode(o.First(), f) == nil
}

func (e encoded) Stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
	o, ok := jsonsplice.Split(e.doc, "life")
	if !ok {
		return nil, nil, false
	}
	life, err := e.s.Encode(f)
	if err != nil {
		return nil, nil, false
	}
	out := notices
	a := o.Begin(make([]byte, 0, o.Len()+len(life)+eventSize*len(added)), life)
	for i := range added {
		b, eventID, err := e.s.EncodeEvent(id, &added[i])
		if err != nil {
			return nil, nil, false
		}
		a.Element(b)
		out = append(out, e.s.notice(eventID, &added[i]))
	}
	return storage.Encoded(a.End()), out, true
}
