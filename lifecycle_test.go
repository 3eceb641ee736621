package lettershop_test

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// step is one event of a letter's history, as the schedule tests see it.
type step struct {
	Type   string
	Status string
	At     time.Time
}

func stepsOf(l *lettershop.Letter, types ...string) []step {
	var out []step
	for _, e := range l.Events {
		if len(types) == 0 || slices.Contains(types, string(e.Type)) {
			out = append(out, step{string(e.Type), string(e.Status), e.Timestamp})
		}
	}
	return out
}

func statusesOf(l *lettershop.Letter, typ string) []string {
	var out []string
	for _, e := range l.Events {
		if string(e.Type) == typ {
			out = append(out, string(e.Status))
		}
	}
	return out
}

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		panic(err)
	}
	return t
}

// templates holds each env's template for newLetter: publishing one is
// costly (its content is rendered to check it prints).
var templates sync.Map // *env -> asset id

// newLetter creates a letter at the current clock time from the env's
// template, after change has adjusted the input.
func (e *env) newLetter(t testing.TB, change func(*lettershop.CreateLetterInput)) *lettershop.Letter {
	t.Helper()
	id, ok := templates.Load(e)
	if !ok {
		a, _ := e.publishedTemplate(t, acct)
		id = a.ID
		templates.Store(e, id)
		t.Cleanup(func() { templates.Delete(e) })
	}
	in := letterInput(id.(string))
	if change != nil {
		change(&in)
	}
	l, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatalf("CreateLetter: %v", err)
	}
	return l
}

func (e *env) get(t testing.TB, id string) *lettershop.Letter {
	t.Helper()
	l, err := e.svc.GetLetter(e.ctx, acct, id)
	if err != nil {
		t.Fatalf("GetLetter: %v", err)
	}
	return l
}

func withSendDate(d string) func(*lettershop.CreateLetterInput) {
	return func(in *lettershop.CreateLetterInput) { in.SendDate = d }
}

func withNonAddressData(v string) func(*lettershop.CreateLetterInput) {
	return func(in *lettershop.CreateLetterInput) { in.Recipient.NonAddressData = v }
}

func withRoute(from, to string) func(*lettershop.CreateLetterInput) {
	return func(in *lettershop.CreateLetterInput) {
		in.Sender.Address.LastLine = from
		in.Recipient.Address.LastLine = to
	}
}

// TestScheduleStatuses checks when a letter becomes ready, goes into
// production and is mailed, around weekends, holidays and send dates, and
// that each step happens exactly at its time: not a second before.
func TestScheduleStatuses(t *testing.T) {
	tests := []struct {
		name     string
		created  time.Time
		sendDate string
		want     []step // after queued
	}{
		{"monday afternoon", at("2026-03-02 15:00"), "", []step{
			{"status", "ready", at("2026-03-02 15:05")},
			{"status", "inProduction", at("2026-03-03 14:00")},
			{"status", "mailed", at("2026-03-04 21:00")},
		}},
		{"monday before the production hour still waits a day", at("2026-03-02 09:00"), "", []step{
			{"status", "ready", at("2026-03-02 09:05")},
			{"status", "inProduction", at("2026-03-03 14:00")},
			{"status", "mailed", at("2026-03-04 21:00")},
		}},
		{"thursday: mailed after the weekend", at("2026-03-05 15:00"), "", []step{
			{"status", "ready", at("2026-03-05 15:05")},
			{"status", "inProduction", at("2026-03-06 14:00")},
			{"status", "mailed", at("2026-03-09 21:00")},
		}},
		{"friday: produced after the weekend", at("2026-03-06 15:00"), "", []step{
			{"status", "ready", at("2026-03-06 15:05")},
			{"status", "inProduction", at("2026-03-09 14:00")},
			{"status", "mailed", at("2026-03-10 21:00")},
		}},
		{"saturday", at("2026-03-07 10:00"), "", []step{
			{"status", "ready", at("2026-03-07 10:05")},
			{"status", "inProduction", at("2026-03-09 14:00")},
			{"status", "mailed", at("2026-03-10 21:00")},
		}},
		{"sunday", at("2026-03-08 23:00"), "", []step{
			{"status", "ready", at("2026-03-08 23:05")},
			{"status", "inProduction", at("2026-03-09 14:00")},
			{"status", "mailed", at("2026-03-10 21:00")},
		}},
		{"ready after midnight counts from the day it became ready", at("2026-03-02 23:58"), "", []step{
			{"status", "ready", at("2026-03-03 00:03")},
			{"status", "inProduction", at("2026-03-04 14:00")},
			{"status", "mailed", at("2026-03-05 21:00")},
		}},
		{"observed Independence Day (friday 3 July 2026)", at("2026-07-02 15:00"), "", []step{
			{"status", "ready", at("2026-07-02 15:05")},
			{"status", "inProduction", at("2026-07-06 14:00")},
			{"status", "mailed", at("2026-07-07 21:00")},
		}},
		{"Thanksgiving", at("2026-11-25 15:00"), "", []step{
			{"status", "ready", at("2026-11-25 15:05")},
			{"status", "inProduction", at("2026-11-27 14:00")},
			{"status", "mailed", at("2026-11-30 21:00")},
		}},
		{"New Year's Day 2028 observed on friday 31 December 2027", at("2027-12-30 15:00"), "", []step{
			{"status", "ready", at("2027-12-30 15:05")},
			{"status", "inProduction", at("2028-01-03 14:00")},
			{"status", "mailed", at("2028-01-04 21:00")},
		}},
		{"future send date", at("2026-03-02 15:00"), "2026-03-10", []step{
			{"status", "ready", at("2026-03-02 15:05")},
			{"status", "inProduction", at("2026-03-10 14:00")},
			{"status", "mailed", at("2026-03-11 21:00")},
		}},
		{"send date on a saturday moves to monday", at("2026-03-02 15:00"), "2026-03-07", []step{
			{"status", "ready", at("2026-03-02 15:05")},
			{"status", "inProduction", at("2026-03-09 14:00")},
			{"status", "mailed", at("2026-03-10 21:00")},
		}},
		{"send date today, before the production hour", at("2026-03-02 10:00"), "2026-03-02", []step{
			{"status", "ready", at("2026-03-02 10:05")},
			{"status", "inProduction", at("2026-03-02 14:00")},
			{"status", "mailed", at("2026-03-03 21:00")},
		}},
		{"send date today, after the production hour", at("2026-03-02 15:00"), "2026-03-02", []step{
			{"status", "ready", at("2026-03-02 15:05")},
			{"status", "inProduction", at("2026-03-03 14:00")},
			{"status", "mailed", at("2026-03-04 21:00")},
		}},
		{"send date tomorrow, a business day", at("2026-03-02 15:00"), "2026-03-03", []step{
			{"status", "ready", at("2026-03-02 15:05")},
			{"status", "inProduction", at("2026-03-03 14:00")},
			{"status", "mailed", at("2026-03-04 21:00")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.clock.Set(tt.created)
			l := e.newLetter(t, withSendDate(tt.sendDate))
			prev := "queued"
			for _, s := range tt.want {
				e.clock.Set(s.At.Add(-time.Second))
				if got := e.get(t, l.ID).Status; string(got) != prev {
					t.Fatalf("a second before %s at %v: status %s, want %s", s.Status, s.At, got, prev)
				}
				e.clock.Set(s.At)
				if got := e.get(t, l.ID).Status; string(got) != s.Status {
					t.Fatalf("at %v: status %s, want %s", s.At, got, s.Status)
				}
				prev = s.Status
			}
			got := stepsOf(e.get(t, l.ID), "status")
			want := append([]step{{"status", "queued", tt.created}}, tt.want...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status events (-want +got):\n%s", diff)
			}
		})
	}
}

// window is where a tracking event may fall: days after the previous
// event's day, and a time-of-day range [from, to).
type window struct {
	status   string
	days     []int
	from, to time.Duration
}

// TestScheduleTracking checks every tracking event of letters on three
// routes against the documented windows, and that deliveries skip Sundays.
func TestScheduleTracking(t *testing.T) {
	h := time.Hour
	routes := []struct {
		name        string
		from, to    string
		transitDays []int
	}{
		{"same three-digit ZIP area", "Chicago, IL 60601", "Chicago, IL 60614-1234", []int{0, 1}},
		{"same region", "Springfield, IL 62701", "Chicago, IL 60601", []int{1, 2}},
		{"across the country", "New York NY 10001", "San Francisco, CA 94103", []int{2, 3}},
	}
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			var ids []string
			for i := 0; i < 16; i++ {
				ids = append(ids, e.newLetter(t, withRoute(r.from, r.to)).ID)
			}
			e.clock.Add(30 * 24 * time.Hour)
			for _, id := range ids {
				l := e.get(t, id)
				tr := stepsOf(l, "tracking")
				wins := []window{
					{"inTransit", []int{0, 1}, 0, 48 * h}, // checked against mailed below
					{"inLocalArea", r.transitDays, 9 * h, 12 * h},
					{"processedForDelivery", []int{1, 2, 3}, 5 * h, 7 * h},
					{"delivered", []int{0}, 16 * h, 20 * h},
				}
				if len(tr) != len(wins) {
					t.Fatalf("%s: tracking events %v, want %d", id, tr, len(wins))
				}
				mailed := stepsOf(l, "status")[3]
				if d := tr[0].At.Sub(mailed.At); d < 4*h || d >= 6*h {
					t.Errorf("%s: inTransit %v after mailing, want 4h to 6h", id, d)
				}
				for i := 1; i < len(tr); i++ {
					w, s := wins[i], tr[i]
					if s.Status != w.status {
						t.Fatalf("%s: event %d is %s, want %s", id, i, s.Status, w.status)
					}
					days := int(midnight(s.At).Sub(midnight(tr[i-1].At)) / (24 * h))
					if tod := s.At.Sub(midnight(s.At)); !slices.Contains(w.days, days) || tod < w.from || tod >= w.to {
						t.Errorf("%s: %s at %v, %d days after %s: want %v days, between %v and %v",
							id, s.Status, s.At, days, tr[i-1].Status, w.days, w.from, w.to)
					}
					if w.status == "processedForDelivery" && days > 1 && midnight(s.At).AddDate(0, 0, -1).Weekday() != time.Sunday {
						t.Errorf("%s: processedForDelivery %d days after inLocalArea without a Sunday between", id, days)
					}
					if s.At.Weekday() == time.Sunday && w.status != "inLocalArea" {
						t.Errorf("%s: %s on a Sunday", id, s.Status)
					}
				}
			}
		})
	}
}

func midnight(t time.Time) time.Time { return t.Truncate(24 * time.Hour) }

// TestTrackingEventDetails checks what each tracking event says and where.
func TestTrackingEventDetails(t *testing.T) {
	tests := []struct {
		name      string
		recipient lettershop.AddressInput
		input     string
		want      []lettershop.Event
	}{
		{
			"delivered, recipient given as a last line",
			lettershop.AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}, "",
			[]lettershop.Event{
				trackingWant("inTransit", "919", false, "SPRINGFIELD IL PROCESSING AND DISTRIBUTION CENTER", "Processing and Distribution Center", "62799", "SPRINGFIELD, IL 62799"),
				trackingWant("inLocalArea", "271", false, "CHICAGO IL PROCESSING AND DISTRIBUTION CENTER", "Processing and Distribution Center", "60699", "CHICAGO, IL 60699"),
				trackingWant("processedForDelivery", "918", false, "CHICAGO IL POST OFFICE", "Post Office", "60601", "CHICAGO, IL 60601"),
				trackingWant("delivered", "960", false, "CHICAGO IL POST OFFICE", "Post Office", "60601", "CHICAGO, IL 60601"),
			},
		},
		{
			"re-routed, recipient given in parts",
			lettershop.AddressInput{AddressLine1: "1 Market St", City: "San Francisco", State: "CA", ZipCode: "94103", Plus4Code: "1234"}, "reRouted",
			[]lettershop.Event{
				trackingWant("inTransit", "919", false, "SPRINGFIELD IL PROCESSING AND DISTRIBUTION CENTER", "Processing and Distribution Center", "62799", "SPRINGFIELD, IL 62799"),
				trackingWant("inLocalArea", "271", false, "SAN FRANCISCO CA PROCESSING AND DISTRIBUTION CENTER", "Processing and Distribution Center", "94199", "SAN FRANCISCO, CA 94199"),
				trackingWant("reRouted", "865", true, "SAN FRANCISCO CA PROCESSING AND DISTRIBUTION CENTER", "Processing and Distribution Center", "94199", "SAN FRANCISCO, CA 94199"),
				trackingWant("processedForDelivery", "918", false, "SAN FRANCISCO CA POST OFFICE", "Post Office", "94103", "SAN FRANCISCO, CA 94103"),
				trackingWant("delivered", "960", false, "SAN FRANCISCO CA POST OFFICE", "Post Office", "94103", "SAN FRANCISCO, CA 94103"),
			},
		},
		{
			"returned, recipient without a ZIP code",
			lettershop.AddressInput{AddressLine1: "1 Main St", LastLine: "Nowhere"}, "returnedToSender",
			[]lettershop.Event{
				trackingWant("inTransit", "919", false, "SPRINGFIELD IL PROCESSING AND DISTRIBUTION CENTER", "Processing and Distribution Center", "62799", "SPRINGFIELD, IL 62799"),
				trackingWant("inLocalArea", "271", false, "NOWHERE PROCESSING AND DISTRIBUTION CENTER", "Processing and Distribution Center", "", "NOWHERE"),
				trackingWant("processedForDelivery", "918", false, "NOWHERE POST OFFICE", "Post Office", "", "NOWHERE"),
				trackingWant("returnedToSender", "879", true, "NOWHERE POST OFFICE", "Post Office", "", "NOWHERE"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			l := e.newLetter(t, func(in *lettershop.CreateLetterInput) {
				in.Recipient.Address = tt.recipient
				in.Recipient.NonAddressData = tt.input
			})
			e.clock.Add(30 * 24 * time.Hour)
			var got []lettershop.Event
			for _, ev := range e.get(t, l.ID).Events {
				if ev.Type == "tracking" {
					if ev.Description == "" || ev.TrackingEventDetails == nil || ev.TrackingEventDetails.Notes == "" {
						t.Errorf("%s: no description or notes: %+v", ev.Status, ev)
					}
					got = append(got, ev)
				}
			}
			opts := cmp.Options{
				cmpopts.IgnoreFields(lettershop.Event{}, "ID", "CreatedAt", "ModifiedAt", "Timestamp", "Description"),
				cmpopts.IgnoreFields(lettershop.TrackingEventDetails{}, "Notes"),
			}
			if diff := cmp.Diff(tt.want, got, opts); diff != "" {
				t.Errorf("tracking events (-want +got):\n%s", diff)
			}
		})
	}
}

func trackingWant(status, code string, action bool, facility, facilityType, zip, location string) lettershop.Event {
	return lettershop.Event{
		Type: "tracking", Status: lettershop.EventStatus(status), OperationCode: code, ActionRequired: action, Location: location,
		TrackingEventDetails: &lettershop.TrackingEventDetails{Facility: facility, FacilityType: facilityType, FacilityZip: zip},
	}
}

// TestThirtyDayAdvance checks the whole history a 30-day advance produces
// on the first read, with no RunDue: every step in order, each stamped
// with the time it fell due, ids unique, and the letter at rest afterwards.
func TestThirtyDayAdvance(t *testing.T) {
	e := newEnv(t)
	l := e.newLetter(t, nil)
	e.clock.Add(30 * 24 * time.Hour)
	got := e.get(t, l.ID)
	if got.Status != lettershop.StatusMailed {
		t.Fatalf("status %s, want mailed", got.Status)
	}
	wantKinds := []string{"status/queued", "status/ready", "status/inProduction", "status/mailed",
		"tracking/inTransit", "tracking/inLocalArea", "tracking/processedForDelivery", "tracking/delivered"}
	var kinds []string
	ids := map[string]bool{}
	for i, ev := range got.Events {
		kinds = append(kinds, string(ev.Type)+"/"+string(ev.Status))
		if ids[ev.ID] || !lettershop.ValidID("evt_", ev.ID) {
			t.Errorf("event %d: id %q repeated or malformed", i, ev.ID)
		}
		ids[ev.ID] = true
		if !ev.CreatedAt.Equal(ev.Timestamp) || !ev.ModifiedAt.Equal(ev.Timestamp) {
			t.Errorf("event %d: createdAt %v, modifiedAt %v, timestamp %v differ", i, ev.CreatedAt, ev.ModifiedAt, ev.Timestamp)
		}
		if i > 0 && !ev.Timestamp.After(got.Events[i-1].Timestamp) {
			t.Errorf("event %d (%s) at %v is not after the one before (%v)", i, ev.Status, ev.Timestamp, got.Events[i-1].Timestamp)
		}
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
	if want := testStart.Add(30 * 24 * time.Hour); !got.Events[len(got.Events)-1].Timestamp.Before(testStart.Add(10 * 24 * time.Hour)) {
		t.Errorf("delivered at %v: stamped near the advance (%v), not when it fell due", got.Events[len(got.Events)-1].Timestamp, want)
	}
	if last := got.Events[len(got.Events)-1].Timestamp; !got.ModifiedAt.Equal(last) {
		t.Errorf("modifiedAt %v, want the last step's time %v", got.ModifiedAt, last)
	}
	e.clock.Add(30 * 24 * time.Hour)
	if n, err := e.svc.RunDue(e.ctx); err != nil || n != 0 {
		t.Errorf("RunDue after delivery = %d, %v; want 0, nil", n, err)
	}
	if again := e.get(t, l.ID); len(again.Events) != len(got.Events) {
		t.Errorf("a delivered letter moved on: %v", statusesOf(again, "tracking"))
	}
}

// TestCatchUpIsTheSameHowEverTimeMoves checks that the history does not
// depend on how the clock was moved or who caught up: one jump, hourly
// steps with a read each time, or RunDue alone; and that two services with
// the same inputs agree to the event id.
func TestCatchUpIsTheSameHowEverTimeMoves(t *testing.T) {
	inputs := []func(*lettershop.CreateLetterInput){nil, withNonAddressData("reRouted"), withNonAddressData("returnedToSender"), withSendDate("2026-03-06")}
	histories := func(t *testing.T, move func(*testing.T, *env, []string)) [][]lettershop.Event {
		e := newEnv(t)
		var ids []string
		for _, in := range inputs {
			ids = append(ids, e.newLetter(t, in).ID)
		}
		move(t, e, ids)
		var out [][]lettershop.Event
		for _, id := range ids {
			out = append(out, e.get(t, id).Events)
		}
		return out
	}
	jump := histories(t, func(_ *testing.T, e *env, _ []string) { e.clock.Add(30 * 24 * time.Hour) })
	moves := map[string]func(*testing.T, *env, []string){
		"same jump again": func(_ *testing.T, e *env, _ []string) { e.clock.Add(30 * 24 * time.Hour) },
		"hourly reads": func(t *testing.T, e *env, ids []string) {
			for i := 0; i < 30*24; i++ {
				e.clock.Add(time.Hour)
				e.get(t, ids[i%len(ids)])
			}
		},
		"RunDue daily": func(t *testing.T, e *env, _ []string) {
			for i := 0; i < 30; i++ {
				e.clock.Add(24 * time.Hour)
				if _, err := e.svc.RunDue(e.ctx); err != nil {
					t.Fatal(err)
				}
			}
		},
	}
	for name, move := range moves {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(jump, histories(t, move)); diff != "" {
				t.Errorf("histories differ from a single 30-day jump (-jump +%s):\n%s", name, diff)
			}
		})
	}
}

func TestRunDue(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, e.newLetter(t, nil).ID)
	}
	issue := e.newLetter(t, nil)
	if _, err := e.svc.CancelLetter(e.ctx, acct, issue.ID); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(5*time.Minute - time.Second)
	if n, err := e.svc.RunDue(e.ctx); err != nil || n != 0 {
		t.Fatalf("RunDue before anything is due = %d, %v; want 0", n, err)
	}
	e.clock.Add(time.Second)
	if n, err := e.svc.RunDue(e.ctx); err != nil || n != 3 {
		t.Fatalf("RunDue = %d, %v; want 3 (the canceled letter does not move)", n, err)
	}
	if n, err := e.svc.RunDue(e.ctx); err != nil || n != 0 {
		t.Fatalf("RunDue again = %d, %v; want 0", n, err)
	}
	// The store itself holds the new status: RunDue wrote it.
	for _, id := range ids {
		rec, err := e.store.GetLetter(e.ctx, acct, id)
		if err != nil || rec.Status != "ready" {
			t.Errorf("stored %s: status %q, %v; want ready", id, rec.Status, err)
		}
	}
	page, err := e.svc.ListLetters(e.ctx, acct, lettershop.ListLettersInput{Status: lettershop.StatusInProduction})
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("inProduction before the day: %d letters, %v", len(page.Items), err)
	}
	e.clock.Add(24 * time.Hour)
	// A list catches up before it filters.
	page, err = e.svc.ListLetters(e.ctx, acct, lettershop.ListLettersInput{Status: lettershop.StatusInProduction})
	if err != nil || len(page.Items) != 3 {
		t.Fatalf("inProduction a day later: %d letters, %v; want 3", len(page.Items), err)
	}
}

func TestCancelAtEachStage(t *testing.T) {
	tests := []struct {
		target lettershop.SimulateTarget
		ok     bool
	}{
		{lettershop.SimulateTarget{}, true}, // queued
		{lettershop.SimulateTarget{Status: "ready"}, true},
		{lettershop.SimulateTarget{Status: "canceled"}, true},
		{lettershop.SimulateTarget{Status: "inProduction"}, false},
		{lettershop.SimulateTarget{Status: "mailed"}, false},
		{lettershop.SimulateTarget{Event: "inTransit"}, false},
		{lettershop.SimulateTarget{Event: "delivered"}, false},
		{lettershop.SimulateTarget{Event: "returnedToSender"}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s%s", tt.target.Status, tt.target.Event), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			l := e.newLetter(t, nil)
			if tt.target != (lettershop.SimulateTarget{}) {
				if _, err := e.svc.Simulate(e.ctx, acct, l.ID, tt.target); err != nil {
					t.Fatal(err)
				}
			}
			before := e.get(t, l.ID)
			e.clock.Add(time.Minute)
			got, err := e.svc.CancelLetter(e.ctx, acct, l.ID)
			if !tt.ok {
				wantCode(t, err, lettershop.CodeConflict)
				if after := e.get(t, l.ID); len(after.Events) != len(before.Events) || after.Status != before.Status {
					t.Errorf("a refused cancel changed the letter: %s -> %s", before.Status, after.Status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != lettershop.StatusCanceled {
				t.Fatalf("status %s, want canceled", got.Status)
			}
			n := len(got.Events)
			e.clock.Add(30 * 24 * time.Hour)
			after := e.get(t, l.ID)
			if after.Status != lettershop.StatusCanceled || len(after.Events) != n {
				t.Errorf("a canceled letter moved on: %s, %v", after.Status, stepsOf(after))
			}
			if _, err := e.svc.CancelLetter(e.ctx, acct, l.ID); err != nil {
				t.Errorf("canceling again: %v, want success", err)
			}
		})
	}
}

func TestCancelRacesTheSchedule(t *testing.T) {
	e := newEnv(t)
	l := e.newLetter(t, nil)
	// Production is due on Tuesday at 14:00; no read catches up before the
	// cancel, which must still see the letter in production.
	e.clock.Set(at("2026-03-03 14:00"))
	_, err := e.svc.CancelLetter(e.ctx, acct, l.ID)
	wantCode(t, err, lettershop.CodeConflict)
	e2 := newEnv(t)
	l2 := e2.newLetter(t, nil)
	e2.clock.Set(at("2026-03-03 13:59"))
	if _, err := e2.svc.CancelLetter(e2.ctx, acct, l2.ID); err != nil {
		t.Fatalf("cancel a minute before production: %v", err)
	}
}

func TestUpdateOnlyWhileQueued(t *testing.T) {
	e := newEnv(t)
	l := e.newLetter(t, nil)
	// A change to a queued letter restarts its processing.
	e.clock.Add(4 * time.Minute)
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{SendDate: str("2026-03-04")}); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(5*time.Minute - time.Second)
	if got := e.get(t, l.ID).Status; got != lettershop.StatusQueued {
		t.Fatalf("4:59 after the update: %s, want queued", got)
	}
	e.clock.Add(time.Second)
	if got := e.get(t, l.ID).Status; got != lettershop.StatusReady {
		t.Fatalf("5:00 after the update: %s, want ready", got)
	}
	_, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{SendDate: str("2026-03-05")})
	wantCode(t, err, lettershop.CodeConflict)
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Description: str("still fine")}); err != nil {
		t.Fatalf("description of a ready letter: %v", err)
	}
	// The send date set while queued holds.
	e.clock.Set(at("2026-03-04 14:00"))
	if got := e.get(t, l.ID); got.Status != lettershop.StatusInProduction || got.Description != "still fine" {
		t.Errorf("on the send date: %s %q, want inProduction with the description", got.Status, got.Description)
	}
}

// An update's empty sendDate removes the send date; one left out keeps it.
func TestUpdateRemovesSendDate(t *testing.T) {
	e := newEnv(t)
	l := e.newLetter(t, withSendDate("2026-03-10"))
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Description: str("kept")}); err != nil {
		t.Fatal(err)
	}
	if got := e.get(t, l.ID).SendDate; got != "2026-03-10" {
		t.Fatalf("send date left out of an update: %q, want kept", got)
	}
	if _, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{SendDate: str("")}); err != nil {
		t.Fatal(err)
	}
	if got := e.get(t, l.ID).SendDate; got != "" {
		t.Fatalf("send date after an empty one: %q, want none", got)
	}
	// Produced as a letter without one: the next day at 14:00.
	e.clock.Set(at("2026-03-03 14:00"))
	if got := e.get(t, l.ID).Status; got != lettershop.StatusInProduction {
		t.Errorf("the next day at 14:00: %s, want inProduction", got)
	}
}

func TestTestInputs(t *testing.T) {
	tests := []struct {
		input string
		want  []string
	}{
		{"", []string{"inTransit", "inLocalArea", "processedForDelivery", "delivered"}},
		{"returnedToSender", []string{"inTransit", "inLocalArea", "processedForDelivery", "returnedToSender"}},
		{"  RETURNEDTOSENDER ", []string{"inTransit", "inLocalArea", "processedForDelivery", "returnedToSender"}},
		{"reRouted", []string{"inTransit", "inLocalArea", "reRouted", "processedForDelivery", "delivered"}},
		{"rerouted", []string{"inTransit", "inLocalArea", "reRouted", "processedForDelivery", "delivered"}},
		{"please reRouted", []string{"inTransit", "inLocalArea", "processedForDelivery", "delivered"}},
		{"Apt buzzer 12", []string{"inTransit", "inLocalArea", "processedForDelivery", "delivered"}},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			l := e.newLetter(t, withNonAddressData(tt.input))
			e.clock.Add(30 * 24 * time.Hour)
			got := e.get(t, l.ID)
			if diff := cmp.Diff(tt.want, statusesOf(got, "tracking")); diff != "" {
				t.Errorf("tracking (-want +got):\n%s", diff)
			}
			for _, ev := range got.Events {
				want := ev.Status == "reRouted" || ev.Status == "returnedToSender"
				if ev.ActionRequired != want {
					t.Errorf("%s: actionRequired %v, want %v", ev.Status, ev.ActionRequired, want)
				}
			}
		})
	}
}

// issueOptions check the recipient's address, so that a recipient that is
// not deliverable puts the letter at issue.
func issueOptions(in *lettershop.CreateLetterInput) {
	in.Options = &lettershop.LetterOptions{
		AddressProcessing: &lettershop.AddressProcessing{CassRecipient: &lettershop.CassOptions{Type: "basic"}},
	}
	in.Recipient.Address = lettershop.AddressInput{AddressLine1: "5 Main St", LastLine: "Boston CA 02108"}
}

// TestIssueLetterIsFixed checks a letter at issue that an update makes
// mailable is queued again and goes on through its lifecycle from then,
// and that one still not mailable stays at issue with the new message.
func TestIssueLetterIsFixed(t *testing.T) {
	e := newEnv(t)
	l := e.newLetter(t, issueOptions)
	if l.Status != lettershop.StatusIssue || !strings.Contains(l.IssueMessage, "ZIP Code 02108 is in MA, not in CA") {
		t.Fatalf("status %s, issue %q; want issue", l.Status, l.IssueMessage)
	}
	e.clock.Add(time.Hour)

	// Still not deliverable: at issue, the message new, no event added.
	u, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Recipient: &lettershop.PartyInput{
		Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe"},
		Address:    lettershop.AddressInput{AddressLine1: "undeliverable no match", LastLine: "Springfield IL 62701"},
	}})
	if err != nil {
		t.Fatalf("UpdateLetter: %v", err)
	}
	if u.Status != lettershop.StatusIssue || u.IssueMessage == l.IssueMessage || !strings.Contains(u.IssueMessage, "undeliverable") {
		t.Errorf("after another bad recipient: status %s, issue %q", u.Status, u.IssueMessage)
	}
	if diff := cmp.Diff(stepsOf(l), stepsOf(u)); diff != "" {
		t.Errorf("events changed while the letter stayed at issue (-before +after):\n%s", diff)
	}
	if got := e.get(t, l.ID); got.IssueMessage != u.IssueMessage || got.Status != lettershop.StatusIssue {
		t.Errorf("stored: status %s, issue %q", got.Status, got.IssueMessage)
	}

	// Deliverable: queued again now, the lifecycle resumes from then.
	e.clock.Add(time.Hour)
	fixed := e.clock.Now()
	u, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Recipient: &lettershop.PartyInput{
		Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe"},
		Address:    lettershop.AddressInput{AddressLine1: "residential house", LastLine: "Springfield IL 62704"},
	}})
	if err != nil {
		t.Fatalf("UpdateLetter: %v", err)
	}
	if u.Status != lettershop.StatusQueued || u.IssueMessage != "" {
		t.Fatalf("after a good recipient: status %s, issue %q; want queued", u.Status, u.IssueMessage)
	}
	if u.Recipient.Address.AddressLine1 != "742 Evergreen Ter" {
		t.Errorf("recipient not processed: %+v", u.Recipient.Address)
	}
	e.clock.Add(5*time.Minute - time.Second)
	if got := e.get(t, l.ID); got.Status != lettershop.StatusQueued {
		t.Fatalf("a second before the processing delay: %s, want queued", got.Status)
	}
	e.clock.Set(at("2026-03-04 22:00"))
	want := []step{
		{"status", "queued", testStart},
		{"status", "issue", testStart},
		{"status", "queued", fixed},
		{"status", "ready", fixed.Add(5 * time.Minute)},
		{"status", "inProduction", at("2026-03-03 14:00")},
		{"status", "mailed", at("2026-03-04 21:00")},
	}
	got := e.get(t, l.ID)
	if diff := cmp.Diff(want, stepsOf(got, "status")); diff != "" {
		t.Errorf("history after the fix (-want +got):\n%s", diff)
	}
	if len(got.Events) < 2 || got.Events[2].Description != "Issue resolved: letter queued again" {
		t.Errorf("the queued event's description: %+v", got.Events)
	}
	// The stored record holds it too: a run wrote it.
	if rec, err := e.store.GetLetter(e.ctx, acct, l.ID); err != nil || rec.Status != "mailed" {
		t.Errorf("stored status %q, %v; want mailed", rec.Status, err)
	}
	// Once it has moved on, its recipient is fixed.
	_, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Recipient: &lettershop.PartyInput{
		Individual: &lettershop.Individual{FirstName: "Jane", LastName: "Doe"},
		Address:    lettershop.AddressInput{AddressLine1: "5 Main St", LastLine: "Boston MA 02108"},
	}})
	wantCode(t, err, lettershop.CodeConflict)
}

// TestIssueLetterFixedByOptions checks that a change of options alone
// judges the recipient again: deliverabilityValues that accept it queue
// the letter.
func TestIssueLetterFixedByOptions(t *testing.T) {
	e := newEnv(t)
	l := e.newLetter(t, issueOptions)
	if l.Status != lettershop.StatusIssue {
		t.Fatalf("status %s, want issue", l.Status)
	}
	// Variables alone leave the recipient as judged: still at issue.
	u, err := e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Variables: &[]lettershop.Variable{{Name: "name", Value: str("Janet")}}})
	if err != nil || u.Status != lettershop.StatusIssue || u.IssueMessage != l.IssueMessage || len(u.Events) != len(l.Events) {
		t.Fatalf("after new variables: %v; want still at issue as before", err)
	}
	opts := &lettershop.LetterOptions{
		AddressProcessing:    &lettershop.AddressProcessing{CassRecipient: &lettershop.CassOptions{Type: "basic"}},
		DeliverabilityValues: []lettershop.Deliverability{lettershop.Deliverable, lettershop.Undeliverable},
	}
	u, err = e.svc.UpdateLetter(e.ctx, acct, l.ID, lettershop.UpdateLetterInput{Options: opts})
	if err != nil {
		t.Fatalf("UpdateLetter: %v", err)
	}
	if u.Status != lettershop.StatusQueued || u.IssueMessage != "" {
		t.Errorf("after relaxing the threshold: status %s, issue %q; want queued", u.Status, u.IssueMessage)
	}
}

// undeliverable is an address processor that finds every recipient undeliverable.
type undeliverable struct{}

func (undeliverable) Process(_ context.Context, req lettershop.AddressRequest) (lettershop.AddressResult, error) {
	d := lettershop.Deliverable
	if req.Role == lettershop.RoleRecipient {
		d = lettershop.Undeliverable
	}
	return lettershop.AddressResult{Party: req.Party, Deliverability: d}, nil
}

// wrappedClock hides a clock.Mock's Set, so the Service treats it as a
// real clock (not a lettershop.TestClock) and runs its background loop,
// whose timers the test fires.
type wrappedClock struct{ clock.Clock }

func TestBackgroundLoop(t *testing.T) {
	before := runtime.NumGoroutine()
	mc := clock.NewMock()
	mc.Set(testStart)
	st := memstore.New()
	svc := lettershop.New(st, lettershop.WithClock(wrappedClock{mc}), lettershop.WithEntropy(rand.New(rand.NewSource(1))))
	e := &env{svc: svc, clock: mc, store: st, ctx: context.Background()}
	l := e.newLetter(t, nil)
	// Let time pass as it does on a real clock, firing the loop's timers,
	// until the loop (not a read, which would catch up itself) has stored
	// the move.
	if !eventually(func() bool {
		mc.Add(time.Minute)
		rec, err := st.GetLetter(e.ctx, acct, l.ID)
		return err == nil && rec.Status == "ready"
	}) {
		t.Fatal("the background loop did not move the letter")
	}
	rec, _ := st.GetLetter(e.ctx, acct, l.ID)
	if !rec.ModifiedAt.Equal(testStart.Add(5 * time.Minute)) {
		t.Errorf("stored modifiedAt %v, want the ready step's time %v", rec.ModifiedAt, testStart.Add(5*time.Minute))
	}
	svc.Close()
	svc.Close() // a second Close is harmless
	if !eventually(func() bool { return runtime.NumGoroutine() <= before }) {
		t.Errorf("goroutines: %d before New, %d after Close", before, runtime.NumGoroutine())
	}
}

// eventually polls cond for up to ten seconds. It waits for another
// goroutine to finish its work; it asserts nothing about speed.
func eventually(cond func() bool) bool {
	for i := 0; i < 1000; i++ {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

func TestServicesOnRealClocksStopOnClose(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 5; i++ {
		svc := lettershop.New(memstore.New())
		if _, err := svc.RunDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		svc.Close()
	}
	if !eventually(func() bool { return runtime.NumGoroutine() <= before }) {
		t.Errorf("goroutines: %d before, %d after five New and Close", before, runtime.NumGoroutine())
	}
}

// TestRunDueSkipsABrokenLetter checks that a stored letter the service
// cannot read is taken off the schedule instead of failing every run.
func TestRunDueSkipsABrokenLetter(t *testing.T) {
	e := newEnv(t)
	good := e.newLetter(t, nil)
	broken := storage.Letter{ID: "ltr_broken", Account: acct, Status: "queued", CreatedAt: testStart, ModifiedAt: testStart,
		DueAt: testStart.Add(time.Minute), Doc: storage.Encoded(`{"sender":`)}
	if _, err := e.store.CreateLetter(e.ctx, broken, nil); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(10 * time.Minute)
	if n, err := e.svc.RunDue(e.ctx); err != nil || n != 2 {
		t.Fatalf("RunDue = %d, %v; want 2 (the good letter moved, the broken one written off the schedule)", n, err)
	}
	if rec, err := e.store.GetLetter(e.ctx, acct, broken.ID); err != nil || !rec.DueAt.IsZero() || string(encoded(t, rec.Doc)) != string(encoded(t, broken.Doc)) {
		t.Errorf("broken letter after the run: %+v, %v", rec, err)
	}
	if got := e.get(t, good.ID).Status; got != lettershop.StatusReady {
		t.Errorf("good letter %s, want ready", got)
	}
	e.clock.Add(24 * time.Hour)
	if n, err := e.svc.RunDue(e.ctx); err != nil || n != 1 {
		t.Errorf("next run = %d, %v; want 1", n, err)
	}
}

// benchLetters are 100,000 letters in flight, as stored records: created
// (one in ten with the reRouted test input) over the week before
// benchStart, and run up to it. Benchmarks share them.
func benchLetters(b *testing.B) []storage.Letter {
	b.Helper()
	if benchRecs != nil {
		return benchRecs
	}
	const n = 100_000
	e := newEnv(b)
	a, _ := e.publishedTemplate(b, acct)
	routes := []func(*lettershop.CreateLetterInput){
		withRoute("Springfield, IL 62701", "Chicago, IL 60601"),
		withRoute("New York NY 10001", "San Francisco, CA 94103"),
		withRoute("Chicago, IL 60601", "Chicago, IL 60614"),
	}
	const batches = 200
	for i := 0; i < n; i++ {
		if i%(n/batches) == 0 {
			e.clock.Add(benchStart.Sub(testStart) / batches)
		}
		in := letterInput(a.ID)
		routes[i%len(routes)](&in)
		if i%10 == 0 {
			in.Recipient.NonAddressData = "reRouted"
		}
		if _, err := e.svc.CreateLetter(e.ctx, acct, in); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := e.svc.RunDue(e.ctx); err != nil {
		b.Fatal(err)
	}
	var recs []storage.Letter
	before := ""
	for {
		page, err := e.store.ListLetters(e.ctx, storage.LetterQuery{Account: acct, Before: before, Limit: 1000})
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, page...)
		if len(page) < 1000 {
			break
		}
		before = page[len(page)-1].ID
	}
	if len(recs) != n {
		b.Fatalf("%d letters stored, want %d", len(recs), n)
	}
	benchRecs = recs
	return recs
}

var (
	benchStart = testStart.Add(7 * 24 * time.Hour)
	benchRecs  []storage.Letter
)

// benchService is a Service on a fresh memstore holding recs, its mock
// clock at benchStart.
func benchService(b *testing.B, recs []storage.Letter) (*lettershop.Service, *clock.Mock) {
	b.Helper()
	st := memstore.New()
	for _, r := range recs {
		if _, err := st.CreateLetter(context.Background(), r, nil); err != nil {
			b.Fatal(err)
		}
	}
	mc := clock.NewMock()
	mc.Set(benchStart)
	return lettershop.New(st, lettershop.WithClock(mc)), mc
}

// BenchmarkAdvanceDay100k: 100,000 letters in flight, at every stage; each
// op runs what moving the clock one day made due (about half of them move,
// by one to three steps each).
func BenchmarkAdvanceDay100k(b *testing.B) {
	recs := benchLetters(b)
	moved := 0
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		svc, mc := benchService(b, recs)
		mc.Add(24 * time.Hour)
		runtime.GC() // the previous op's store is garbage: not this op's cost
		c0 := processCPU()
		b.StartTimer()
		m, err := svc.RunDue(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		moved = m
		b.StopTimer()
		cpu += processCPU() - c0
		svc.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(moved), "letters-moved/op")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process has used (all threads, the
// garbage collector's included): on a busy machine a steadier figure than
// the time on the wall.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCatchUpNothingDue is what every read pays first on a clock.Mock
// when nothing is due, with 100,000 letters waiting on later steps.
func BenchmarkCatchUpNothingDue(b *testing.B) {
	svc, _ := benchService(b, benchLetters(b))
	defer svc.Close()
	for b.Loop() {
		if n, err := svc.RunDue(context.Background()); err != nil || n != 0 {
			b.Fatalf("RunDue = %d, %v; want nothing due", n, err)
		}
	}
}

// heldStore is a memstore that keeps the documents ProcessDueLetters's
// callback leaves in each letter, as a store that writes a whole batch
// after the callbacks (as pgstore does) holds them.
type heldStore struct {
	*memstore.Store
	held map[string]heldDoc
}

// heldDoc is a document as fn left it, and its encoding then.
type heldDoc struct {
	doc     storage.Document
	encoded []byte
}

func (s *heldStore) ProcessDueLetters(ctx context.Context, q storage.DueQuery, fn func(*storage.Letter) error) (int, error) {
	return s.Store.ProcessDueLetters(ctx, q, func(l *storage.Letter) error {
		err := fn(l)
		enc, encErr := storage.EncodeDocument(l.Doc)
		if encErr != nil {
			return encErr
		}
		s.held[l.ID] = heldDoc{doc: l.Doc, encoded: enc} // doc is not a copy
		return err
	})
}

func encoded(t *testing.T, d storage.Document) []byte {
	t.Helper()
	b, err := storage.EncodeDocument(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunDueHandsEachLetterItsOwnDocument(t *testing.T) {
	st := &heldStore{Store: memstore.New(), held: map[string]heldDoc{}}
	mc := clock.NewMock()
	mc.Set(testStart)
	svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithEntropy(rand.New(rand.NewSource(1))))
	t.Cleanup(func() { svc.Close() })
	e := &env{svc: svc, clock: mc, store: st.Store, ctx: context.Background()}
	for i := 0; i < 5; i++ {
		e.newLetter(t, nil)
	}
	mc.Add(3 * 24 * time.Hour)
	if n, err := svc.RunDue(e.ctx); err != nil || n != 5 {
		t.Fatalf("RunDue = %d, %v; want 5", n, err)
	}
	for id, h := range st.held {
		rec, err := st.GetLetter(e.ctx, acct, id)
		if err != nil {
			t.Fatal(err)
		}
		if string(encoded(t, rec.Doc)) != string(h.encoded) || string(encoded(t, h.doc)) != string(h.encoded) {
			t.Errorf("%s: the document handed to the store changed after the callback returned", id)
		}
	}
}
