package postal

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFederalHolidays(t *testing.T) {
	want := map[int][]string{
		2026: {"2026-01-01", "2026-01-19", "2026-02-16", "2026-05-25", "2026-06-19", "2026-07-03",
			"2026-09-07", "2026-10-12", "2026-11-11", "2026-11-26", "2026-12-25"},
		// Juneteenth, Independence Day and Christmas fall on weekends;
		// New Year's Day 2028 (a Saturday) is observed on 31 December 2027.
		2027: {"2027-01-01", "2027-01-18", "2027-02-15", "2027-05-31", "2027-06-18", "2027-07-05",
			"2027-09-06", "2027-10-11", "2027-11-11", "2027-11-25", "2027-12-24", "2027-12-31"},
	}
	for year, days := range want {
		var got []string
		for d := time.Date(year, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() == year; d = d.AddDate(0, 0, 1) {
			weekend := d.Weekday() == time.Saturday || d.Weekday() == time.Sunday
			if isHoliday(d) {
				got = append(got, d.Format(time.DateOnly))
			}
			if isBusinessDay(d) == (weekend || isHoliday(d)) {
				t.Errorf("%s: isBusinessDay %v", d.Format(time.DateOnly), isBusinessDay(d))
			}
			if isDeliveryDay(d) == (d.Weekday() == time.Sunday || isHoliday(d)) {
				t.Errorf("%s: isDeliveryDay %v", d.Format(time.DateOnly), isDeliveryDay(d))
			}
		}
		if diff := cmp.Diff(days, got); diff != "" {
			t.Errorf("%d holidays (-want +got):\n%s", year, diff)
		}
	}
}

func TestParseLastLine(t *testing.T) {
	tests := map[string]Place{
		"Chicago, IL 60601":       {City: "Chicago", State: "IL", Zip: "60601"},
		"Chicago IL 60601-1234":   {City: "Chicago", State: "IL", Zip: "60601"},
		"San Francisco, CA 94103": {City: "San Francisco", State: "CA", Zip: "94103"},
		"Nowhere":                 {City: "Nowhere"},
		"":                        {},
		"60601":                   {Zip: "60601"},
		"St. Louis, MO  63101":    {City: "St. Louis", State: "MO", Zip: "63101"},
		"Washington, DC 2000":     {City: "Washington DC 2000"},
	}
	for in, want := range tests {
		if got := parseLastLine(in); got != want {
			t.Errorf("parseLastLine(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestOutcomeOf(t *testing.T) {
	for in, want := range map[string]Outcome{
		"":                     "",
		"reRouted":             OutcomeReRouted,
		" REROUTED ":           OutcomeReRouted,
		"returnedToSender":     OutcomeReturned,
		"please reRouted":      "",
		"returned to sender":   "",
		"ReturnedToSender\n":   OutcomeReturned,
		"delivered":            "",
		"reRouted, returned":   "",
		"returnedtosender":     OutcomeReturned,
		"re-routed":            "",
		"REturnedTOsender   ":  OutcomeReturned,
		"  reRouted\t":         OutcomeReRouted,
		"attn: reRouted dept.": "",
	} {
		if got := OutcomeOf(in); got != want {
			t.Errorf("OutcomeOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlaceOf(t *testing.T) {
	tests := []struct {
		city, state, zip, lastLine string
		want                       Place
	}{
		{"Chicago", "IL", "60601", "ignored, XX 99999", Place{City: "CHICAGO", State: "IL", Zip: "60601"}},
		{"", "", "", "Chicago, il 60601-1234", Place{City: "CHICAGO", State: "IL", Zip: "60601"}},
		{"Chicago", "", "606", "Springfield, IL 62701", Place{City: "CHICAGO", State: "IL", Zip: "62701"}},
		{"", "", "", "Nowhere", Place{City: "NOWHERE"}},
	}
	for _, tt := range tests {
		if got := PlaceOf(tt.city, tt.state, tt.zip, tt.lastLine); got != tt.want {
			t.Errorf("PlaceOf(%q, %q, %q, %q) = %+v, want %+v", tt.city, tt.state, tt.zip, tt.lastLine, got, tt.want)
		}
	}
}

// TestTimeline follows one letter through the whole timeline and checks
// that Move refuses what it must.
func TestTimeline(t *testing.T) {
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC) // a Monday
	newCourse := func(outcome Outcome) *Course {
		return &Course{
			ID: "ltr_x", Status: Queued, Due: start.Add(ProcessingDelay), Modified: start,
			Facts: Facts{
				Stage: Queued, Events: 1, Outcome: outcome,
				From: Place{City: "SPRINGFIELD", State: "IL", Zip: "62701"},
				To:   Place{City: "CHICAGO", State: "IL", Zip: "60601"},
			},
		}
	}
	var tl Timeline
	for _, o := range []Outcome{"", OutcomeReRouted, OutcomeReturned} {
		c := newCourse(o)
		tl.Advance(c, start.AddDate(0, 1, 0))
		var got []Stage
		last := start
		for i, e := range c.Added {
			got = append(got, e.Status)
			if e.N != i+1 || e.At.Before(last) || e.Tracking != e.Status.Tracking() {
				t.Errorf("%q: event %d %+v out of order", o, i, e)
			}
			last = e.At
		}
		want := map[Outcome][]Stage{
			"":              {Ready, InProduction, Mailed, InTransit, InLocalArea, ProcessedForDelivery, Delivered},
			OutcomeReRouted: {Ready, InProduction, Mailed, InTransit, InLocalArea, ReRouted, ProcessedForDelivery, Delivered},
			OutcomeReturned: {Ready, InProduction, Mailed, InTransit, InLocalArea, ProcessedForDelivery, ReturnedToSender},
		}[o]
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: stages (-want +got):\n%s", o, diff)
		}
		if !c.Due.IsZero() || c.Status != Mailed || !c.Modified.Equal(last) {
			t.Errorf("%q: at the end due %v, status %s, modified %v", o, c.Due, c.Status, c.Modified)
		}
	}

	c := newCourse("")
	if err := tl.Move(c, Queued, start, nil); !errors.Is(err, ErrUnchanged) {
		t.Errorf("Move to the current stage = %v, want ErrUnchanged", err)
	}
	if err := tl.Move(c, Delivered, start, nil); err != nil || c.Facts.Stage != Delivered || len(c.Added) != 7 {
		t.Fatalf("Move to delivered = %v, at %s with %d events", err, c.Facts.Stage, len(c.Added))
	}
	var refused *RefusedError
	for _, target := range []Stage{Canceled, Issue, ReturnedToSender} {
		if err := tl.Move(c, target, start, []Stage{Queued}); !errors.As(err, &refused) {
			t.Errorf("Move(%s) from delivered = %v, want a *RefusedError", target, err)
		}
	}
	if err := tl.Move(c, InTransit, start, []Stage{Queued, InTransit}); !errors.As(err, &refused) || !strings.Contains(refused.Message, "already passed") {
		t.Errorf("Move(inTransit) from delivered = %v, want already passed", err)
	}
	// queued and issue are no targets: the refusal says how a letter gets
	// there instead.
	fresh := newCourse("")
	fresh.Facts.Stage, fresh.Status = Ready, Ready
	for target, how := range map[Stage]string{
		Queued: "when it is made, or when an update fixes a letter at issue",
		Issue:  `cassRecipient and the test address "undeliverable no match"`,
	} {
		if err := tl.Move(fresh, target, start, nil); !errors.As(err, &refused) || !strings.Contains(refused.Message, how) {
			t.Errorf("Move(%s) from ready = %v, want a refusal saying %q", target, err, how)
		}
	}
}
