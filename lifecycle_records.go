package lettershop

import (
	"bytes"
	"slices"
	"sync"
	"time"

	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// A run moves many letters. A typed letter document (a store that keeps
// records in memory hands out its copy) is advanced in place: its life
// facts are stepped and the new events appended, nothing else is touched.
// Decoding and encoding each serialized letter's whole document would cost
// most of a run's time. A serialized letter document (see letterDoc in
// records.go) is
//
//	{"life":{...},"sender":...,"events":[...]}
//
// so a run decodes the life document at the start, takes the steps, and
// writes the new life document, the bytes in between unchanged, and the
// events array with the new events appended.

// eventSize is room enough for most encoded events.
const eventSize = 640

var (
	lifeStart   = []byte(`{"life":`)
	eventsEnd   = []byte(`]}`)
	eventsEmpty = []byte(`"events":[]}`)
)

// advanceRecord takes in place the steps of a stored letter due up to now.
// It reports false, changing nothing, when the document is neither typed
// nor laid out as expected; the caller then decodes the whole letter. A
// serialized document is replaced by a new slice: a store may hold on to it
// until it writes a whole batch.
func (lc *lifecycle) advanceRecord(r *storage.Letter, now time.Time) bool {
	switch d := r.Doc.(type) {
	case *letterDoc:
		lc.advanceDoc(r, d, now)
		return true
	case *keptLetter:
		// The kept form never changes: the run makes a new one, from the
		// old one's parts, or else advances a document of its own, which
		// the store keeps in that form again.
		if lc.advanceKept(r, d, now) {
			return true
		}
		var doc letterDoc
		if d.unpack(&doc) != nil {
			return false
		}
		lc.advanceDoc(r, &doc, now)
		r.Doc = &doc
		return true
	case storage.Encoded:
		return lc.advanceEncoded(r, d, now)
	}
	return false
}

// advanceDoc takes the steps of a letter with a typed document, which is
// the caller's own.
func (lc *lifecycle) advanceDoc(r *storage.Letter, d *letterDoc, now time.Time) {
	c := &postal.Course{ID: r.ID, Status: postal.Stage(r.Status), Due: r.DueAt, Modified: r.ModifiedAt, Facts: d.Life}
	lc.advance(c, now)
	d.Life = c.Facts
	if d.Events == nil {
		d.Events = []Event{}
	}
	for _, pe := range c.Added {
		ev := eventOf(c.ID, pe)
		d.Events = append(d.Events, ev)
		r.Notices = append(r.Notices, noticeOf(ev, pe.N))
	}
	r.Status, r.DueAt, r.ModifiedAt = string(c.Status), c.Due, c.Modified
}

// advanceEncoded takes in place the steps of a letter whose document is
// serialized, as advanceRecord says.
func (lc *lifecycle) advanceEncoded(r *storage.Letter, data []byte, now time.Time) bool {
	if !bytes.HasPrefix(data, lifeStart) {
		return false
	}
	end := objectEnd(data[len(lifeStart):])
	if end < 0 {
		return false
	}
	end += len(lifeStart)
	rest := data[end:]
	if !bytes.HasPrefix(rest, []byte(`,"`)) || !bytes.HasSuffix(rest, eventsEnd) {
		return false
	}
	c := &postal.Course{ID: r.ID, Status: postal.Stage(r.Status), Due: r.DueAt, Modified: r.ModifiedAt}
	if decodeDoc(data[len(lifeStart):end], &c.Facts) != nil {
		return false
	}
	lc.advance(c, now)
	life, err := encodeDoc(&c.Facts)
	if err != nil {
		return false
	}
	b := make([]byte, 0, len(data)+len(life)+eventSize*len(c.Added))
	b = append(b, lifeStart...)
	b = append(b, life...)
	b = append(b, rest[:len(rest)-len(eventsEnd)]...)
	sep := !bytes.HasSuffix(rest, eventsEmpty)
	for _, pe := range c.Added {
		if sep {
			b = append(b, ',')
		}
		ev := eventOf(c.ID, pe)
		e, err := encodeDoc(&ev)
		if err != nil {
			return false
		}
		r.Notices = append(r.Notices, noticeOf(ev, pe.N))
		b = append(b, e...)
		sep = true
	}
	b = append(b, eventsEnd...)
	r.Doc, r.Status, r.DueAt, r.ModifiedAt = storage.Encoded(b), string(c.Status), c.Due, c.Modified
	return true
}

// objectEnd returns the length of the JSON object at the start of b, or -1.
// It only matches brackets outside strings; the caller decodes the object,
// which checks it.
func objectEnd(b []byte) int {
	if len(b) == 0 || b[0] != '{' {
		return -1
	}
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// courses are the postal courses of kept letters being advanced, reused:
// a run moves many letters, one at a time.
var courses = sync.Pool{New: func() any { return &postal.Course{} }}

// advanceKept takes the steps of a letter kept packed (keptLetter) due up to
// now, making the new kept form from the old one's parts: the life facts
// stepped, the middle part copied as it is, the old events copied and the
// new ones packed after them, straight from the postal events. Nothing of
// the letter is unpacked but its life facts, and the new events' ids and
// the notices' are parts of the one new string. It reports false, changing
// nothing, for a form it cannot read or an event it cannot pack; the
// caller then unpacks the letter.
func (lc *lifecycle) advanceKept(r *storage.Letter, k *keptLetter, now time.Time) bool {
	u := pack.NewReader(k.data, keptWords)
	c := courses.Get().(*postal.Course)
	defer courses.Put(c)
	*c = postal.Course{ID: r.ID, Status: postal.Stage(r.Status), Due: r.DueAt, Modified: r.ModifiedAt, Added: c.Added[:0]}
	unpackLife(&u, &c.Facts)
	mid := u.Uvarint()
	midStart := u.Pos()
	if u.Err() != nil || !u.Skip(mid) {
		return false
	}
	old, _ := u.Count()
	if u.Err() != nil {
		return false
	}
	oldEvents := u.Rest()
	lc.advance(c, now)
	if len(c.Added) == 0 {
		r.Status, r.DueAt, r.ModifiedAt = string(c.Status), c.Due, c.Modified
		return true
	}
	p := pack.Get(keptWords)
	defer p.Release()
	packLife(p, &c.Facts)
	p.Uvarint(mid)
	p.B = append(p.B, k.data[midStart:midStart+int(mid)]...)
	p.Uvarint(uint64(old+len(c.Added)) + 1)
	p.B = append(p.B, oldEvents...)
	var ids [16]int // where each new event's id starts in p.B
	if len(c.Added) > len(ids) {
		return false
	}
	for i := range c.Added {
		e := &c.Added[i]
		if e.At.Location() != time.UTC {
			return false
		}
		p.Byte(pack.Flags(e.Tracking, e.ActionRequired))
		p.Uvarint(uint64(eventIDLen) << 1)
		ids[i] = len(p.B)
		p.B = appendEventID(p.B, r.ID, e.N, e.At)
		p.Time(e.At)
		if e.Tracking {
			p.Str(string(eventTracking))
		} else {
			p.Str(string(eventStatus))
		}
		p.Str(string(e.Status))
		p.Str(e.Description)
		p.Str(e.OperationCode)
		p.Str(e.Location)
		if e.Tracking {
			p.Str(e.Notes)
			p.Str(e.Facility)
			p.Str(e.FacilityType)
			p.Str(e.FacilityZip)
		}
	}
	if p.Err() != nil {
		return false
	}
	data := p.String()
	r.Notices = slices.Grow(r.Notices, len(c.Added))
	for i := range c.Added {
		e := &c.Added[i]
		r.Notices = append(r.Notices, storage.Notice{
			EventID: data[ids[i] : ids[i]+eventIDLen], Type: noticeType(EventStatus(e.Status), e.N),
			Seq: e.N, At: e.At, RetryUntil: e.At.Add(WebhookRetryPeriod),
		})
	}
	r.Doc = &keptLetter{data: data, shared: k.shared}
	r.Status, r.DueAt, r.ModifiedAt = string(c.Status), c.Due, c.Modified
	return true
}
