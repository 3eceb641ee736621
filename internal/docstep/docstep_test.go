package docstep

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/internal/ids"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

var start = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// event is an event as the tests' typed document keeps it.
type event struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Status   postal.Stage `json:"status"`
	At       time.Time    `json:"at"`
	Facility string       `json:"facility,omitempty"`
}

func eventOf(letterID string, e *postal.Event, s *Stepper) event {
	typ := s.StatusType
	if e.Tracking {
		typ = s.TrackingType
	}
	return event{ID: string(ids.AppendEvent(nil, s.EventPrefix, letterID, e.N, e.At)), Type: typ, Status: e.Status, At: e.At, Facility: e.Facility}
}

func newStepper() *Stepper {
	s := &Stepper{
		Advance:     postal.Timeline{}.Advance,
		EventPrefix: "evt_", StatusType: "status", TrackingType: "tracking",
		NoticeType:  func(status postal.Stage, n int) string { return "letter." + string(status) },
		RetryPeriod: time.Hour,
		LifeValues: func(f *postal.Facts) storage.LetterLife {
			return storage.LetterLife{Stage: string(f.Stage), Events: f.Events, SendDate: f.SendDate,
				From: storage.LetterPlace(f.From), To: storage.LetterPlace(f.To)}
		},
		LifeFacts: func(l *storage.LetterLife) postal.Facts {
			return postal.Facts{Stage: postal.Stage(l.Stage), Events: l.Events, SendDate: l.SendDate,
				From: postal.Place(l.From), To: postal.Place(l.To)}
		},
		Encode: json.Marshal, Decode: json.Unmarshal,
	}
	s.EncodeEvent = func(letterID string, e *postal.Event) ([]byte, string, error) {
		ev := eventOf(letterID, e, s)
		b, err := json.Marshal(ev)
		return b, ev.ID, err
	}
	return s
}

// typed is a document of the caller's type, as the tests keep it.
type typed struct {
	Life   postal.Facts `json:"life"`
	Name   string       `json:"name"`
	Events []event      `json:"events"`

	s *Stepper
	// failFacts and failStep make it refuse to be read or stepped.
	failFacts, failStep bool
}

func (d *typed) CloneDocument() storage.Document {
	c := *d
	c.Events = slices.Clone(d.Events)
	return &c
}
func (d *typed) EncodeDocument() ([]byte, error) { return json.Marshal(d) }

func (d *typed) Facts(f *postal.Facts) bool {
	*f = d.Life
	return !d.failFacts
}

func (d *typed) Stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
	if d.failStep {
		return nil, nil, false
	}
	d.Life = *f
	for i := range added {
		ev := eventOf(id, &added[i], d.s)
		d.Events = append(d.Events, ev)
		notices = append(notices, d.s.notice(ev.ID, &added[i]))
	}
	return d, notices, true
}

const letterID = "ltr_abcdefghijklmnopqrstuvwxyz"

// queued is a letter just queued, whose processing falls due in a day.
func queued(s *Stepper) (storage.Letter, *typed) {
	place := postal.PlaceOf("Springfield", "IL", "62701", "")
	d := &typed{s: s, Name: "a \"quoted\" name", Events: []event{{ID: "evt_0", Type: "status", Status: postal.Queued, At: start}},
		Life: postal.Facts{Stage: postal.Queued, Events: 1, From: place, To: postal.PlaceOf("Chicago", "IL", "60601", "")}}
	return storage.Letter{ID: letterID, Account: "acct", Status: string(postal.Queued), DueAt: start.Add(postal.ProcessingDelay),
		ModifiedAt: start, Doc: d}, d
}

// A step takes every step due by now, and writes the letter's status, due
// time and modification with its document and notices.
func TestStep(t *testing.T) {
	s := newStepper()
	r, d := queued(s)
	now := start.Add(30 * 24 * time.Hour)
	if !Step(s, &r, d, now) {
		t.Fatal("not stepped")
	}
	if r.Status != string(postal.Mailed) || len(d.Events) < 8 || len(r.Notices) != len(d.Events)-1 {
		t.Fatalf("%s with %d events and %d notices: want mailed on, every step's event and notice", r.Status, len(d.Events), len(r.Notices))
	}
	for i, n := range r.Notices {
		e := d.Events[i+1]
		want := storage.Notice{EventID: e.ID, Type: "letter." + string(e.Status), Seq: i + 1, At: e.At, RetryUntil: e.At.Add(time.Hour)}
		if n != want {
			t.Errorf("notice %d: %+v, want %+v", i, n, want)
		}
	}
	if !r.DueAt.IsZero() && !r.DueAt.After(now) || r.ModifiedAt.After(now) || !r.ModifiedAt.Equal(d.Events[len(d.Events)-1].At) {
		t.Errorf("due %v, modified %v: want nothing due by %v, modified at the last event", r.DueAt, r.ModifiedAt, now)
	}

	// Nothing due yet: nothing changes but the record's copy of itself.
	r, d = queued(s)
	before := r
	if !Step(s, &r, d, start.Add(postal.ProcessingDelay-time.Nanosecond)) || len(d.Events) != 1 || r.Status != before.Status || !r.DueAt.Equal(before.DueAt) || len(r.Notices) != 0 {
		t.Errorf("before it is due: %+v, %d events", r, len(d.Events))
	}
}

// A document that cannot be read, or cannot take the steps, changes
// nothing.
func TestStepRefused(t *testing.T) {
	s := newStepper()
	for _, name := range []string{"facts", "stepped"} {
		r, d := queued(s)
		d.failFacts, d.failStep = name == "facts", name == "stepped"
		before := r
		if Step(s, &r, d, start.Add(30*24*time.Hour)) {
			t.Errorf("%s refused: stepped", name)
		}
		if r.Status != before.Status || !r.DueAt.Equal(before.DueAt) || !r.ModifiedAt.Equal(before.ModifiedAt) || r.Doc != before.Doc || r.Notices != nil {
			t.Errorf("%s refused: the record changed: %+v", name, r)
		}
	}
}

// A serialized document stepped in place is the typed one stepped, encoded:
// its life replaced, its events appended, the rest as it was; the bytes it
// was given are left as they were.
func TestEncodedMatchesTyped(t *testing.T) {
	s := newStepper()
	for _, now := range []time.Time{start.Add(postal.ProcessingDelay), start.Add(4 * 24 * time.Hour), start.Add(30 * 24 * time.Hour)} {
		r, d := queued(s)
		data, err := d.EncodeDocument()
		if err != nil {
			t.Fatal(err)
		}
		orig := string(data)
		enc := r
		enc.Doc = storage.Encoded(data)
		if !s.Encoded(&enc, storage.Encoded(data), now) {
			t.Fatalf("at %v: not stepped", now)
		}
		if string(data) != orig {
			t.Errorf("at %v: the bytes given changed", now)
		}
		if !Step(s, &r, d, now) {
			t.Fatal("typed: not stepped")
		}
		want, _ := d.EncodeDocument()
		if got := enc.Doc.(storage.Encoded); string(got) != string(want) {
			t.Errorf("at %v:\n got %s\nwant %s", now, got, want)
		}
		if enc.Status != r.Status || !enc.DueAt.Equal(r.DueAt) || !enc.ModifiedAt.Equal(r.ModifiedAt) || !slices.Equal(enc.Notices, r.Notices) {
			t.Errorf("at %v: encoded %s %v %v %v, typed %s %v %v %v", now, enc.Status, enc.DueAt, enc.ModifiedAt, enc.Notices, r.Status, r.DueAt, r.ModifiedAt, r.Notices)
		}
	}
}

// A serialized document not laid out as a letter's is left to the caller.
func TestEncodedFallsBack(t *testing.T) {
	s := newStepper()
	now := start.Add(30 * 24 * time.Hour)
	for name, data := range map[string]string{
		"no life first":        `{"name":"x","life":{"stage":"queued"},"events":[]}`,
		"life not an object":   `{"life":"queued","events":[]}`,
		"life not closed":      `{"life":{"stage":"queued","events":[]}`,
		"events not last":      `{"life":{"stage":"queued"},"events":[],"x":1}`,
		"nothing after life":   `{"life":{"stage":"queued"}}`,
		"life of another kind": `{"life":{"stage":7},"events":[]}`,
	} {
		r := storage.Letter{ID: letterID, Status: "queued", DueAt: start, Doc: storage.Encoded(data)}
		if s.Encoded(&r, storage.Encoded(data), now) {
			t.Errorf("%s: stepped %s", name, data)
		}
		if string(r.Doc.(storage.Encoded)) != data || r.Status != "queued" || !r.DueAt.Equal(start) {
			t.Errorf("%s: the record changed: %+v", name, r)
		}
	}
	// An empty events array takes the first event without a comma.
	data := `{"life":{"stage":"queued","events":0,"from":{},"to":{}},"events":[]}`
	r := storage.Letter{ID: letterID, Status: "queued", DueAt: start, Doc: storage.Encoded(data)}
	if !s.Encoded(&r, storage.Encoded(data), start) {
		t.Fatal("not stepped")
	}
	var got typed
	if err := json.Unmarshal(r.Doc.(storage.Encoded), &got); err != nil || len(got.Events) != 1 || got.Events[0].Status != postal.Ready {
		t.Errorf("after one step: %v, %s", err, r.Doc)
	}
}

// kept is a store's own form, as values: it takes a step by making a new
// one, the events' ids asked of the stepper.
type kept struct {
	life   storage.LetterLife
	events []storage.LetterEvent
	// failLife and failStep make it refuse to be read or stepped.
	failLife, failStep bool
}

func (k *kept) CloneDocument() storage.Document { return k }
func (k *kept) EncodeDocument() ([]byte, error) { return json.Marshal(k.events) }

func (k *kept) LetterLife(l *storage.LetterLife) bool {
	*l = k.life
	return !k.failLife
}

func (k *kept) StepLetter(l *storage.LetterLife, added []storage.LetterEvent, ids storage.LetterEventIDs) (storage.Document, bool) {
	if k.failStep {
		return nil, false
	}
	n := &kept{life: *l, events: slices.Clone(k.events)}
	for i := range added {
		added[i].ID = string(ids.AppendEventID(nil, i))
		n.events = append(n.events, added[i])
	}
	return n, true
}

// A store's own form stepped is made again by the store, of the life the
// steps left and their events as values, each with its id and notice as
// the typed document has them.
func TestKept(t *testing.T) {
	s := newStepper()
	now := start.Add(30 * 24 * time.Hour)
	r, d := queued(s)
	k := &kept{life: s.LifeValues(&d.Life)}
	kr := r
	if !s.Kept(&kr, k, now) {
		t.Fatal("not stepped")
	}
	if !Step(s, &r, d, now) {
		t.Fatal("typed: not stepped")
	}
	got := kr.Doc.(*kept)
	if got == k || len(k.events) != 0 {
		t.Fatal("the form given was changed rather than made again")
	}
	if got.life != s.LifeValues(&d.Life) {
		t.Errorf("life %+v, want %+v", got.life, s.LifeValues(&d.Life))
	}
	if len(got.events) != len(d.Events)-1 {
		t.Fatalf("%d events, want %d", len(got.events), len(d.Events)-1)
	}
	tracking := 0
	for i, e := range got.events {
		want := d.Events[i+1]
		if e.ID != want.ID || e.Type != want.Type || e.Status != string(want.Status) || !e.Timestamp.Equal(want.At) || e.Facility != want.Facility || e.HasTracking != (want.Type == "tracking") {
			t.Errorf("event %d: %+v, want %+v", i, e, want)
		}
		if e.HasTracking {
			tracking++
		}
	}
	if tracking == 0 {
		t.Error("no tracking event taken: the steps stop short of the mail stream")
	}
	if !slices.Equal(kr.Notices, r.Notices) || kr.Status != r.Status || !kr.DueAt.Equal(r.DueAt) || !kr.ModifiedAt.Equal(r.ModifiedAt) {
		t.Errorf("kept %s %v %v, typed %s %v %v", kr.Status, kr.DueAt, kr.Notices, r.Status, r.DueAt, r.Notices)
	}
	if !strings.HasPrefix(got.events[0].ID, "evt_") {
		t.Errorf("event id %q without its prefix", got.events[0].ID)
	}
}

// With no step due the form is kept as it is; a form the store cannot read
// or make again changes nothing.
func TestKeptUnchangedOrRefused(t *testing.T) {
	s := newStepper()
	r, d := queued(s)
	k := &kept{life: s.LifeValues(&d.Life)}
	if !s.Kept(&r, k, start) || r.Doc != storage.Document(k) || r.Notices != nil {
		t.Errorf("nothing due: %+v", r)
	}
	for _, name := range []string{"life", "step"} {
		r, d := queued(s)
		k := &kept{life: s.LifeValues(&d.Life), failLife: name == "life", failStep: name == "step"}
		before := r
		if s.Kept(&r, k, start.Add(30*24*time.Hour)) {
			t.Errorf("%s refused: stepped", name)
		}
		if r.Doc != before.Doc || r.Status != before.Status || !r.DueAt.Equal(before.DueAt) || r.Notices != nil {
			t.Errorf("%s refused: the record changed: %+v", name, r)
		}
	}
}
