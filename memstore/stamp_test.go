package memstore

import (
	"testing"
	"time"
)

// A time kept by stamp reads back as itself, in UTC, from before 1970 to
// the year 9999 (past Unix nanoseconds' reach), and kept times order as
// the times do: by the second, then within it by the nanosecond, on both
// sides of each boundary.
func TestStamp(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	times := []time.Time{
		{}, at("1969-12-31T23:59:59.999999999Z"), at("1970-01-01T00:00:00Z"), at("1970-01-01T00:00:00.000000001Z"),
		at("2026-03-02T15:00:00.5+02:00"), at("2026-03-02T13:00:00.500000001Z"), at("2262-04-11T23:47:16.854775808Z"),
		at("9999-12-31T23:59:59.999999999Z"),
	}
	for i, a := range times {
		sec, nsec := stamp(a)
		if got := unstamp(sec, nsec); !got.Equal(a) || got.Location() != time.UTC {
			t.Errorf("unstamp(stamp(%v)) = %v", a, got)
		}
		for j, b := range times {
			bsec, bnsec := stamp(b)
			less, equal := stampLess(sec, nsec, bsec, bnsec)
			if less != (i < j) || equal != (i == j) {
				t.Errorf("stampLess(%v, %v) = %v, %v; want %v, %v", a, b, less, equal, i < j, i == j)
			}
			if after := stampAfter(sec, nsec, b); after != (i > j) {
				t.Errorf("stampAfter(%v, %v) = %v, want %v", a, b, after, i > j)
			}
		}
	}

	// The letter's and the idempotency record's times are read alike.
	when := at("2026-03-02T13:00:00.500000001Z")
	var l letterRec
	var r idemRec
	l.setTime(due, when)
	r.setTime(idemLease, when)
	if !l.time(due).Equal(when) || !r.time(idemLease).Equal(when) {
		t.Errorf("kept %v: a letter reads %v, a record %v", when, l.time(due), r.time(idemLease))
	}
	for _, d := range []time.Duration{-time.Nanosecond, 0, time.Nanosecond} {
		if l.dueAfter(when.Add(d)) != r.after(idemLease, when.Add(d)) || l.dueAfter(when.Add(d)) != (d < 0) {
			t.Errorf("%v past the kept time: a letter due after it %v, a record's lease %v", d, l.dueAfter(when.Add(d)), r.after(idemLease, when.Add(d)))
		}
	}
}
