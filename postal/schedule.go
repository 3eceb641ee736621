package postal

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"time"
)

// This file is the schedule: when a letter reaches its next stage. Every
// time is a pure function of the letter's facts and of the time it reached
// the stage it is at. docs/lifecycle.md describes it.

// Fixed times of the schedule, UTC.
const (
	// ProcessingDelay is how long a queued letter waits before it is
	// ready: from its creation, or from the update that queued it again.
	ProcessingDelay = 5 * time.Minute
	productionHour  = 14 * time.Hour
	mailingHour     = 21 * time.Hour
)

// dueAfter is when c reaches next, given that it reached from at time at.
// It is always after at.
func dueAfter(c *Course, from, next Stage, at time.Time) time.Time {
	h := c.varied()
	switch next {
	case Ready:
		return at.Add(ProcessingDelay)
	case InProduction:
		return productionAt(at, c.Facts.SendDate)
	case Mailed:
		return nextSlot(at, 1, mailingHour, 0, isBusinessDay)
	case InTransit:
		return at.Add(4*time.Hour + h.minutes(0, 120))
	case InLocalArea:
		return nextSlot(at, transitDays(c.Facts.From.Zip, c.Facts.To.Zip, h), 9*time.Hour, h.minutes(1, 180), anyDay)
	case ReRouted:
		return nextSlot(at, 1, 6*time.Hour, h.minutes(2, 120), anyDay)
	case ProcessedForDelivery:
		days := 1
		if from == ReRouted {
			days = 2
		}
		return nextSlot(at, days, 5*time.Hour, h.minutes(3, 120), isDeliveryDay)
	case Delivered, ReturnedToSender:
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

func hashLetter(id string) letterHash {
	// Room on the stack for the ids the service makes (30 bytes).
	var buf [64]byte
	return sha256.Sum256(append(append(buf[:0], "lifecycle:"...), id...))
}

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
