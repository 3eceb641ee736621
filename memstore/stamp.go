package memstore

import "time"

// A record the store keeps by the million (letterRec, idemRec) holds its
// times as Unix seconds and nanoseconds, in two arrays of its own: a
// time.Time is 24 bytes and a pointer, and an account's clock may stand
// anywhere up to the year 9999, which Unix nanoseconds, ending in 2262, do
// not reach. (A struct of the two arrays would be padded to 40 bytes and
// push the records into a larger size class.) The functions below are the
// one reading of those numbers.

// stamp returns t as a record keeps it: Unix seconds and nanoseconds.
func stamp(t time.Time) (sec int64, nsec int32) { return t.Unix(), int32(t.Nanosecond()) }

// unstamp returns the time a record keeps as sec and nsec, in UTC.
func unstamp(sec int64, nsec int32) time.Time { return time.Unix(sec, int64(nsec)).UTC() }

// stampAfter reports whether the time kept as sec and nsec is after t.
func stampAfter(sec int64, nsec int32, t time.Time) bool {
	tsec, tnsec := stamp(t)
	return sec > tsec || sec == tsec && nsec > tnsec
}

// stampLess orders the times kept as asec, ansec and bsec, bnsec: less
// says the first is before the second, equal that they are the same.
func stampLess(asec int64, ansec int32, bsec int64, bnsec int32) (less, equal bool) {
	if asec != bsec {
		return asec < bsec, false
	}
	return ansec < bnsec, ansec == bnsec
}
