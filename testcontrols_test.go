package lettershop_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
)

// TestSimulate moves letters from every stage to every target.
func TestSimulate(t *testing.T) {
	type target = lettershop.SimulateTarget
	stages := []struct {
		name  string
		input string
		setup []target
	}{
		{"queued", "", nil},
		{"ready", "", []target{{Status: "ready"}}},
		{"inProduction", "", []target{{Status: "inProduction"}}},
		{"mailed", "", []target{{Status: "mailed"}}},
		{"inTransit", "", []target{{Event: "inTransit"}}},
		{"inLocalArea", "", []target{{Event: "inLocalArea"}}},
		{"processedForDelivery", "", []target{{Event: "processedForDelivery"}}},
		{"delivered", "", []target{{Event: "delivered"}}},
		{"canceled", "", []target{{Status: "canceled"}}},
		{"reRouted input, queued", "reRouted", nil},
		{"returnedToSender input, inLocalArea", "returnedToSender", []target{{Event: "inLocalArea"}}},
	}
	const (
		same     = "unchanged"
		conflict = "conflict"
	)
	all := []target{
		{Status: "queued"}, {Status: "ready"}, {Status: "inProduction"}, {Status: "mailed"}, {Status: "issue"}, {Status: "canceled"},
		{Event: "inTransit"}, {Event: "inLocalArea"}, {Event: "processedForDelivery"}, {Event: "delivered"},
		{Event: "reRouted"}, {Event: "returnedToSender"},
	}
	// want[stage][target]: the events added, "unchanged" or "conflict".
	want := map[string][]string{
		"queued": {same, "ready", "ready inProduction", "ready inProduction mailed", conflict, "canceled",
			"ready inProduction mailed inTransit", "ready inProduction mailed inTransit inLocalArea",
			"ready inProduction mailed inTransit inLocalArea processedForDelivery",
			"ready inProduction mailed inTransit inLocalArea processedForDelivery delivered",
			"ready inProduction mailed inTransit inLocalArea reRouted",
			"ready inProduction mailed inTransit inLocalArea processedForDelivery returnedToSender"},
		"ready": {conflict, same, "inProduction", "inProduction mailed", conflict, "canceled",
			"inProduction mailed inTransit", "inProduction mailed inTransit inLocalArea",
			"inProduction mailed inTransit inLocalArea processedForDelivery",
			"inProduction mailed inTransit inLocalArea processedForDelivery delivered",
			"inProduction mailed inTransit inLocalArea reRouted",
			"inProduction mailed inTransit inLocalArea processedForDelivery returnedToSender"},
		"inProduction": {conflict, conflict, same, "mailed", conflict, conflict,
			"mailed inTransit", "mailed inTransit inLocalArea", "mailed inTransit inLocalArea processedForDelivery",
			"mailed inTransit inLocalArea processedForDelivery delivered", "mailed inTransit inLocalArea reRouted",
			"mailed inTransit inLocalArea processedForDelivery returnedToSender"},
		"mailed": {conflict, conflict, conflict, same, conflict, conflict,
			"inTransit", "inTransit inLocalArea", "inTransit inLocalArea processedForDelivery",
			"inTransit inLocalArea processedForDelivery delivered", "inTransit inLocalArea reRouted",
			"inTransit inLocalArea processedForDelivery returnedToSender"},
		"inTransit": {conflict, conflict, conflict, same, conflict, conflict,
			same, "inLocalArea", "inLocalArea processedForDelivery", "inLocalArea processedForDelivery delivered",
			"inLocalArea reRouted", "inLocalArea processedForDelivery returnedToSender"},
		"inLocalArea": {conflict, conflict, conflict, same, conflict, conflict,
			conflict, same, "processedForDelivery", "processedForDelivery delivered", "reRouted",
			"processedForDelivery returnedToSender"},
		"processedForDelivery": {conflict, conflict, conflict, same, conflict, conflict,
			conflict, conflict, same, "delivered", conflict, "returnedToSender"},
		"delivered": {conflict, conflict, conflict, same, conflict, conflict,
			conflict, conflict, conflict, same, conflict, conflict},
		"canceled": {conflict, conflict, conflict, conflict, conflict, same,
			conflict, conflict, conflict, conflict, conflict, conflict},
		// The letter's own way leads through reRouted; it leaves that way
		// only for a target off it.
		"reRouted input, queued": {same, "ready", "ready inProduction", "ready inProduction mailed", conflict, "canceled",
			"ready inProduction mailed inTransit", "ready inProduction mailed inTransit inLocalArea",
			"ready inProduction mailed inTransit inLocalArea reRouted processedForDelivery",
			"ready inProduction mailed inTransit inLocalArea reRouted processedForDelivery delivered",
			"ready inProduction mailed inTransit inLocalArea reRouted",
			"ready inProduction mailed inTransit inLocalArea reRouted processedForDelivery returnedToSender"},
		"returnedToSender input, inLocalArea": {conflict, conflict, conflict, same, conflict, conflict,
			conflict, same, "processedForDelivery", "processedForDelivery delivered", "reRouted",
			"processedForDelivery returnedToSender"},
	}
	for _, st := range stages {
		for i, tg := range all {
			name := st.name + "/" + string(tg.Status) + string(tg.Event)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				l := e.newLetter(t, withNonAddressData(st.input))
				for _, s := range st.setup {
					if _, err := e.svc.Simulate(e.ctx, acct, l.ID, s); err != nil {
						t.Fatalf("setup %v: %v", s, err)
					}
				}
				e.clock.Add(time.Minute) // not long enough for anything to fall due
				before := e.get(t, l.ID)
				got, err := e.svc.Simulate(e.ctx, acct, l.ID, tg)
				after := e.get(t, l.ID)
				switch w := want[st.name][i]; w {
				case conflict:
					wantCode(t, err, lettershop.CodeConflict)
					if diff := cmp.Diff(before, after, ignoreUnexported); diff != "" {
						t.Errorf("a refused Simulate changed the letter:\n%s", diff)
					}
				case same:
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(before, after, ignoreUnexported); diff != "" {
						t.Errorf("Simulate to where the letter is changed it:\n%s", diff)
					}
				default:
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(got, after, ignoreUnexported); diff != "" {
						t.Errorf("Simulate returned a letter other than the stored one:\n%s", diff)
					}
					var added []string
					for _, ev := range after.Events[len(before.Events):] {
						added = append(added, string(ev.Status))
						if !ev.Timestamp.Equal(e.clock.Now()) {
							t.Errorf("%s stamped %v, want now (%v)", ev.Status, ev.Timestamp, e.clock.Now())
						}
					}
					if diff := cmp.Diff(w, strings.Join(added, " ")); diff != "" {
						t.Errorf("events added (-want +got):\n%s", diff)
					}
					if !after.ModifiedAt.Equal(e.clock.Now()) {
						t.Errorf("modifiedAt %v, want now", after.ModifiedAt)
					}
				}
			})
		}
	}
}

func TestSimulateInvalid(t *testing.T) {
	e := newEnv(t)
	l := e.newLetter(t, nil)
	tests := []struct {
		name   string
		target lettershop.SimulateTarget
		fields []string
	}{
		{"nothing", lettershop.SimulateTarget{}, []string{"status", "event"}},
		{"both", lettershop.SimulateTarget{Status: "ready", Event: "delivered"}, []string{"status", "event"}},
		{"unknown status", lettershop.SimulateTarget{Status: "lost"}, []string{"status"}},
		{"tracking event as a status", lettershop.SimulateTarget{Status: "delivered"}, []string{"status"}},
		{"status as an event", lettershop.SimulateTarget{Event: "mailed"}, []string{"event"}},
		{"event of the wrong case", lettershop.SimulateTarget{Event: "Delivered"}, []string{"event"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.Simulate(e.ctx, acct, l.ID, tt.target)
			wantFields(t, err, tt.fields...)
		})
	}
	if _, err := e.svc.Simulate(e.ctx, "acct_other", l.ID, lettershop.SimulateTarget{Status: "ready"}); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("another account's letter: %v, want not found", err)
	}
	if _, err := e.svc.Simulate(e.ctx, acct, "ltr_nothere", lettershop.SimulateTarget{Status: "ready"}); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Errorf("unknown letter: %v, want not found", err)
	}
	_, err := e.svc.Simulate(e.ctx, acct, "nope", lettershop.SimulateTarget{Status: "ready"})
	wantFields(t, err, "id")
	if got := e.get(t, l.ID); got.Status != lettershop.StatusQueued || len(got.Events) != 1 {
		t.Errorf("refused Simulates changed the letter: %s, %d events", got.Status, len(got.Events))
	}
}

func TestSimulateIssueLetter(t *testing.T) {
	e := newEnv(t, lettershop.WithAddressProcessor(undeliverable{}))
	l := e.newLetter(t, nil)
	if l.Status != lettershop.StatusIssue {
		t.Fatalf("status %s, want issue", l.Status)
	}
	for _, tg := range []lettershop.SimulateTarget{{Status: "ready"}, {Status: "mailed"}, {Event: "delivered"}} {
		_, err := e.svc.Simulate(e.ctx, acct, l.ID, tg)
		wantCode(t, err, lettershop.CodeConflict)
	}
	if _, err := e.svc.Simulate(e.ctx, acct, l.ID, lettershop.SimulateTarget{Status: "issue"}); err != nil {
		t.Errorf("Simulate to issue for a letter at issue: %v, want no change", err)
	}
	e.clock.Add(30 * 24 * time.Hour)
	if got := e.get(t, l.ID); got.Status != lettershop.StatusIssue || len(got.Events) != len(l.Events) {
		t.Errorf("a letter at issue moved: %s, %v", got.Status, stepsOf(got))
	}
	// A letter at issue can be canceled.
	c, err := e.svc.CancelLetter(e.ctx, acct, l.ID)
	if err != nil {
		t.Fatalf("cancel a letter at issue: %v", err)
	}
	want := append(stepsOf(l), step{"status", "canceled", e.clock.Now()})
	if diff := cmp.Diff(want, stepsOf(c)); diff != "" || c.Status != lettershop.StatusCanceled {
		t.Errorf("canceled letter at issue: %s, steps (-want +got):\n%s", c.Status, diff)
	}
	if got := e.get(t, l.ID); got.Status != lettershop.StatusCanceled {
		t.Errorf("stored status %s after cancel, want canceled", got.Status)
	}

	// Simulate to canceled cancels a letter at issue as CancelLetter does.
	l2 := e.newLetter(t, nil)
	if l2.Status != lettershop.StatusIssue {
		t.Fatalf("second letter: status %s, want issue", l2.Status)
	}
	s, err := e.svc.Simulate(e.ctx, acct, l2.ID, lettershop.SimulateTarget{Status: "canceled"})
	if err != nil {
		t.Fatalf("Simulate to canceled for a letter at issue: %v", err)
	}
	want = append(stepsOf(l2), step{"status", "canceled", e.clock.Now()})
	if diff := cmp.Diff(want, stepsOf(s)); diff != "" || s.Status != lettershop.StatusCanceled {
		t.Errorf("simulated cancel of a letter at issue: %s, steps (-want +got):\n%s", s.Status, diff)
	}
	got := e.get(t, l2.ID)
	if got.Status != lettershop.StatusCanceled {
		t.Errorf("stored status %s after simulated cancel, want canceled", got.Status)
	}
	if got.Events[len(got.Events)-1].Description != c.Events[len(c.Events)-1].Description {
		t.Errorf("simulated cancel described %q, CancelLetter %q", got.Events[len(got.Events)-1].Description, c.Events[len(c.Events)-1].Description)
	}
	if _, err := e.svc.Simulate(e.ctx, acct, l2.ID, lettershop.SimulateTarget{Status: "canceled"}); err != nil {
		t.Errorf("Simulate to canceled again: %v, want no change", err)
	}
	wantCode(t, func() error {
		_, err := e.svc.Simulate(e.ctx, acct, l2.ID, lettershop.SimulateTarget{Status: "ready"})
		return err
	}(), lettershop.CodeConflict)
}

// TestSimulateThenClock checks Simulate catches up what was due first, and
// that the letter goes on from where Simulate left it.
func TestSimulateThenClock(t *testing.T) {
	e := newEnv(t)
	l := e.newLetter(t, nil)
	// Production fell due on Tuesday at 14:00, with no read since.
	e.clock.Set(at("2026-03-03 18:00"))
	if _, err := e.svc.Simulate(e.ctx, acct, l.ID, lettershop.SimulateTarget{Status: "mailed"}); err != nil {
		t.Fatal(err)
	}
	want := []step{
		{"status", "queued", testStart},
		{"status", "ready", at("2026-03-02 15:05")},
		{"status", "inProduction", at("2026-03-03 14:00")},
		{"status", "mailed", at("2026-03-03 18:00")},
	}
	if diff := cmp.Diff(want, stepsOf(e.get(t, l.ID))); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
	// Mailed at 18:00: the origin scan comes four to six hours later.
	e.clock.Set(at("2026-03-03 22:00").Add(-time.Second))
	if tr := statusesOf(e.get(t, l.ID), "tracking"); len(tr) != 0 {
		t.Fatalf("tracking before four hours: %v", tr)
	}
	e.clock.Set(at("2026-03-04 00:00"))
	if tr := statusesOf(e.get(t, l.ID), "tracking"); !slices.Equal(tr, []string{"inTransit"}) {
		t.Fatalf("tracking six hours after mailing: %v, want inTransit", tr)
	}

	// Simulate to ready leaves production to the schedule: the next
	// business day after now.
	e.clock.Set(at("2026-03-06 10:00")) // a Friday
	l2 := e.newLetter(t, nil)
	if _, err := e.svc.Simulate(e.ctx, acct, l2.ID, lettershop.SimulateTarget{Status: "ready"}); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(at("2026-03-09 14:00"))
	if got := stepsOf(e.get(t, l2.ID), "status"); !cmp.Equal(got[len(got)-1], step{"status", "inProduction", at("2026-03-09 14:00")}) {
		t.Errorf("after Simulate to ready on Friday: %v, want inProduction on Monday 14:00", got)
	}
}
