package lettershop

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// This file is the schedule: where a letter goes next and when. Everything
// here is a pure function of the letter (its id, addresses, send date and
// history) and of the time of the step it has reached, so every server and
// every catch-up computes the same history. docs/lifecycle.md describes it.

// stage is a position in a letter's life: its status, or once it is mailed,
// the status of its latest tracking event.
type stage string

const (
	stageQueued               = stage(StatusQueued)
	stageReady                = stage(StatusReady)
	stageInProduction         = stage(StatusInProduction)
	stageMailed               = stage(StatusMailed)
	stageIssue                = stage(StatusIssue)
	stageCanceled             = stage(StatusCanceled)
	stageInTransit            = stage(EventInTransit)
	stageInLocalArea          = stage(EventInLocalArea)
	stageProcessedForDelivery = stage(EventProcessedForDelivery)
	stageDelivered            = stage(EventDelivered)
	stageReRouted             = stage(EventReRouted)
	stageReturnedToSender     = stage(EventReturnedToSender)
)

// trackingStages are the statuses of tracking events, in the order the
// docs list them.
var trackingStages = []stage{
	stageInTransit, stageInLocalArea, stageProcessedForDelivery, stageDelivered, stageReRouted, stageReturnedToSender,
}

func (st stage) tracking() bool { return slices.Contains(trackingStages, st) }

// Fixed times of the schedule, UTC.
const (
	processingDelay = 5 * time.Minute
	productionHour  = 14 * time.Hour
	mailingHour     = 21 * time.Hour
)

// outcome is how a letter's postal journey ends, chosen by its recipient's
// nonAddressData (the documented test inputs): "" when it is delivered.
type outcome string

// The outcomes the test inputs force: the recipient's whole nonAddressData,
// compared without case and surrounding space.
const (
	outcomeReRouted = outcome("reRouted")
	outcomeReturned = outcome("returnedToSender")
)

func outcomeOf(l *Letter) outcome {
	v := strings.TrimSpace(l.Recipient.NonAddressData)
	for _, o := range []outcome{outcomeReRouted, outcomeReturned} {
		if strings.EqualFold(v, string(o)) {
			return o
		}
	}
	return ""
}

// stageOf is where l is: its status, or its latest tracking event once mailed.
func stageOf(l *Letter) stage {
	if l.Status != StatusMailed {
		return stage(l.Status)
	}
	for i := len(l.Events) - 1; i >= 0; i-- {
		if e := l.Events[i]; e.Type == eventTracking {
			return stage(e.Status)
		}
	}
	return stageMailed
}

// successors are the stages that can follow st, the one the letter takes by
// itself first. Cancel is not a step: it is the sender's act, not the
// schedule's.
func successors(st stage, o outcome) []stage {
	switch st {
	case stageQueued:
		return []stage{stageReady}
	case stageReady:
		return []stage{stageInProduction}
	case stageInProduction:
		return []stage{stageMailed}
	case stageMailed:
		return []stage{stageInTransit}
	case stageInTransit:
		return []stage{stageInLocalArea}
	case stageInLocalArea:
		if o == outcomeReRouted {
			return []stage{stageReRouted, stageProcessedForDelivery}
		}
		return []stage{stageProcessedForDelivery, stageReRouted}
	case stageReRouted:
		return []stage{stageProcessedForDelivery}
	case stageProcessedForDelivery:
		if o == outcomeReturned {
			return []stage{stageReturnedToSender, stageDelivered}
		}
		return []stage{stageDelivered, stageReturnedToSender}
	}
	return nil // delivered, returnedToSender, issue, canceled: the end
}

// pathTo is the steps from st to target, following the letter's own way
// where it leads there and turning off it only where it must; nil when
// target is not ahead of st.
func pathTo(st, target stage, o outcome) []stage {
	for _, next := range successors(st, o) {
		if next == target {
			return []stage{next}
		}
		if rest := pathTo(next, target, o); rest != nil {
			return append([]stage{next}, rest...)
		}
	}
	return nil
}

// dueAfter is when c reaches next, given that it reached from at time at.
// It is always after at.
func dueAfter(c *course, from, next stage, at time.Time) time.Time {
	h := c.varied()
	switch next {
	case stageReady:
		return at.Add(processingDelay)
	case stageInProduction:
		return productionAt(at, c.life.SendDate)
	case stageMailed:
		return nextSlot(at, 1, mailingHour, 0, isBusinessDay)
	case stageInTransit:
		return at.Add(4*time.Hour + h.minutes(0, 120))
	case stageInLocalArea:
		return nextSlot(at, transitDays(c.life.From.Zip, c.life.To.Zip, h), 9*time.Hour, h.minutes(1, 180), anyDay)
	case stageReRouted:
		return nextSlot(at, 1, 6*time.Hour, h.minutes(2, 120), anyDay)
	case stageProcessedForDelivery:
		days := 1
		if from == stageReRouted {
			days = 2
		}
		return nextSlot(at, days, 5*time.Hour, h.minutes(3, 120), isDeliveryDay)
	case stageDelivered, stageReturnedToSender:
		return nextSlot(at, 0, 16*time.Hour, h.minutes(4, 240), isDeliveryDay)
	}
	return time.Time{}
}

// productionAt is when a letter that became ready at ready goes into
// production: at productionHour on its send date, or without one on the
// day after it became ready; moved to the next business day when that day
// is not one, or when the hour has passed.
func productionAt(ready time.Time, sendDate string) time.Time {
	day := midnight(ready).AddDate(0, 0, 1)
	if d, err := time.Parse(time.DateOnly, sendDate); err == nil {
		day = d
	}
	t := day.Add(productionHour)
	for !t.After(ready) || !isBusinessDay(t) {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

// nextSlot is the first time of day hour+jitter, days days after at's day
// or later, that is after at on a day ok accepts.
func nextSlot(at time.Time, days int, hour, jitter time.Duration, ok func(time.Time) bool) time.Time {
	t := midnight(at).AddDate(0, 0, days).Add(hour + jitter)
	for !t.After(at) || !ok(t) {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

func midnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func anyDay(time.Time) bool { return true }

// isBusinessDay: Monday to Friday, not a US federal holiday.
func isBusinessDay(t time.Time) bool {
	switch t.Weekday() {
	case time.Saturday, time.Sunday:
		return false
	}
	return !isHoliday(t)
}

// isDeliveryDay: the post delivers Monday to Saturday, not on federal holidays.
func isDeliveryDay(t time.Time) bool {
	return t.Weekday() != time.Sunday && !isHoliday(t)
}

var holidayCache sync.Map // year -> map[time.Time]bool, the observed holidays dated in that year

// isHoliday reports whether t falls on a US federal holiday as observed
// (a Saturday holiday on the Friday before, a Sunday one on the Monday after).
func isHoliday(t time.Time) bool {
	day := midnight(t)
	y := day.Year()
	set, ok := holidayCache.Load(y)
	if !ok {
		m := map[time.Time]bool{}
		// New Year's Day of the next year is observed on December 31 when
		// it falls on a Saturday.
		for _, yy := range []int{y, y + 1} {
			for _, h := range federalHolidays(yy) {
				if h.Year() == y {
					m[h] = true
				}
			}
		}
		set, _ = holidayCache.LoadOrStore(y, m)
	}
	return set.(map[time.Time]bool)[day]
}

// federalHolidays are the observed dates of the eleven US federal holidays
// of year y (5 U.S.C. 6103).
func federalHolidays(y int) []time.Time {
	date := func(m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	observed := func(t time.Time) time.Time {
		switch t.Weekday() {
		case time.Saturday:
			return t.AddDate(0, 0, -1)
		case time.Sunday:
			return t.AddDate(0, 0, 1)
		}
		return t
	}
	// nth weekday wd of month m; n < 0 counts from the end.
	nth := func(m time.Month, wd time.Weekday, n int) time.Time {
		if n > 0 {
			t := date(m, 1)
			t = t.AddDate(0, 0, (int(wd)-int(t.Weekday())+7)%7)
			return t.AddDate(0, 0, 7*(n-1))
		}
		t := date(m+1, 1).AddDate(0, 0, -1)
		return t.AddDate(0, 0, -((int(t.Weekday()) - int(wd) + 7) % 7))
	}
	return []time.Time{
		observed(date(time.January, 1)),
		nth(time.January, time.Monday, 3),   // Martin Luther King Jr. Day
		nth(time.February, time.Monday, 3),  // Washington's Birthday
		nth(time.May, time.Monday, -1),      // Memorial Day
		observed(date(time.June, 19)),       // Juneteenth
		observed(date(time.July, 4)),        // Independence Day
		nth(time.September, time.Monday, 1), // Labor Day
		nth(time.October, time.Monday, 2),   // Columbus Day
		observed(date(time.November, 11)),   // Veterans Day
		nth(time.November, time.Thursday, 4),
		observed(date(time.December, 25)),
	}
}

// letterHash is the source of a letter's deterministic variation.
type letterHash [sha256.Size]byte

func hashLetter(id string) letterHash { return sha256.Sum256([]byte("lifecycle:" + id)) }

// minutes is a whole number of minutes in [0, n), the k-th draw.
func (h *letterHash) minutes(k, n int) time.Duration {
	return time.Duration(int(binary.BigEndian.Uint16(h[2*k:])%uint16(n))) * time.Minute
}

// transitDays is how many days after the origin scan a letter from ZIP
// code from reaches the recipient's area at ZIP code to: none within one
// three-digit ZIP area, one within a first-digit region, two across the
// country, and for one letter in four a day more.
func transitDays(from, to string, h *letterHash) int {
	days := 2
	switch {
	case len(from) >= 3 && len(to) >= 3 && from[:3] == to[:3]:
		days = 0
	case from != "" && to != "" && from[0] == to[0]:
		days = 1
	}
	if h[12]%4 == 0 {
		days++
	}
	return days
}

// place is a city, state and five-digit ZIP code, as far as known.
type place struct {
	City  string `json:"city,omitempty"`
	State string `json:"state,omitempty"`
	Zip   string `json:"zip,omitempty"`
}

// placeOf is where a party's address is: from its parsed components, else
// from its last line ("City, ST 12345-6789"). Parts it cannot find are empty.
func placeOf(p Party) place {
	var pl place
	if c := p.AddressComponents; c != nil {
		pl = place{City: c.City, State: c.State, Zip: c.ZipCode}
	}
	if pl.City == "" || pl.State == "" || !isZip5(pl.Zip) {
		parsed := parseLastLine(p.Address.LastLine)
		if pl.City == "" {
			pl.City = parsed.City
		}
		if pl.State == "" {
			pl.State = parsed.State
		}
		if !isZip5(pl.Zip) {
			pl.Zip = parsed.Zip
		}
	}
	pl.City = strings.ToUpper(strings.TrimSpace(pl.City))
	pl.State = strings.ToUpper(strings.TrimSpace(pl.State))
	if !isZip5(pl.Zip) {
		pl.Zip = ""
	}
	return pl
}

// parseLastLine splits "City, ST 12345" or "City ST 12345-6789".
func parseLastLine(s string) place {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	var pl place
	if n := len(fields); n > 0 {
		if z, _, _ := strings.Cut(fields[n-1], "-"); isZip5(z) {
			pl.Zip = z
			fields = fields[:n-1]
		}
	}
	if n := len(fields); n > 0 && len(fields[n-1]) == 2 {
		pl.State = fields[n-1]
		fields = fields[:n-1]
	}
	pl.City = strings.Join(fields, " ")
	return pl
}

func isZip5(z string) bool {
	if len(z) != 5 {
		return false
	}
	for _, r := range z {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
