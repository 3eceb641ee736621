package lettershop

import (
	"time"

	"github.com/lettershop/lettershop/internal/docstep"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// A run takes a letter's steps in its stored document, in whatever form
// that is in, without decoding the rest (package docstep): a typed
// document (letterDoc) is changed in place, a store's own form is made
// again by the store, a serialized one has its life replaced and its
// events appended. The steps, and the events and notices they add, are
// the lifecycle's.

// stepper is what docstep is given of the lifecycle: its steps (advance),
// and its events, their notices and encodings as a letter's own.
func (lc *lifecycle) stepper() docstep.Stepper {
	return docstep.Stepper{
		Advance:     lc.advance,
		EventPrefix: eventPrefix, StatusType: string(EventTypeStatus), TrackingType: string(EventTypeTracking),
		RetryPeriod: WebhookRetryPeriod,
		NoticeType:  func(status postal.Stage, n int) string { return noticeType(EventStatus(status), n) },
		LifeValues:  lifeValues, LifeFacts: lifeOf,
		Encode: encodeDoc, Decode: decodeDoc,
		EncodeEvent: func(letterID string, e *postal.Event) ([]byte, string, error) {
			ev := eventOf(letterID, *e)
			b, err := encodeDoc(&ev)
			return b, ev.ID, err
		},
	}
}

// advanceRecord takes in place the steps of a stored letter due up to now.
// It reports false, changing nothing, when the document is neither typed
// nor laid out as expected; the caller then decodes the whole letter.
func (lc *lifecycle) advanceRecord(r *storage.Letter, now time.Time) bool {
	switch d := r.Doc.(type) {
	case *letterDoc:
		return docstep.Step(&lc.steps, r, d, now)
	case storage.LetterStepper:
		if lc.steps.Kept(r, d, now) {
			return true
		}
		// The store could not make its form again: the run advances a
		// document of its own, which the store keeps in its form again.
		var doc letterDoc
		if rd, isReader := d.(storage.LetterReader); !isReader || readLetterDoc(rd, &doc) != nil {
			return false
		}
		return docstep.Step(&lc.steps, r, &doc, now)
	case storage.Encoded:
		return lc.steps.Encoded(r, d, now)
	}
	return false
}

// Facts implements docstep.Doc.
func (d *letterDoc) Facts(f *postal.Facts) bool {
	*f = d.Life
	return true
}

// Stepped implements docstep.Doc: it changes d itself, which is the
// caller's own.
func (d *letterDoc) Stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
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
