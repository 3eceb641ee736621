// Package erasemark keeps the marks of a Service's erased accounts: a
// number per account that moves whenever the account is erased, so that
// what is kept of an account's records (package wire's encodings, by id and
// revision) is dropped after an erase of that account, and not after an
// erase of another: a server shared by a suite whose tests each empty their
// own account keeps serving every other account from what it kept.
package erasemark

import (
	"hash/maphash"
	"sync/atomic"
)

// stripes is how many counts the accounts share: an erase moves the mark
// of the accounts of its stripe, about 1 in 256 of them, and Marks takes
// 2 KiB whatever the number of accounts, made on the first erase (a
// test's Service, made per test, may never erase).
const stripes = 256

var seed = maphash.MakeSeed()

// Marks holds the marks of a Service's accounts. Its zero value is ready
// to use; it is safe for concurrent use.
type Marks struct {
	counts atomic.Pointer[[stripes]atomic.Uint64]
}

func stripe(account string) uint64 { return maphash.String(seed, account) % stripes }

// Erased moves the account's mark, and those of the accounts of its
// stripe.
func (m *Marks) Erased(account string) {
	c := m.counts.Load()
	if c == nil {
		m.counts.CompareAndSwap(nil, new([stripes]atomic.Uint64))
		c = m.counts.Load()
	}
	c[stripe(account)].Add(1)
}

// Of returns the account's mark. Two marks read are equal only when they
// are of accounts of one stripe and no account of that stripe was erased
// between the reads: a record read in one account at a mark and read
// again, at the same mark, in any account is in the same account, not
// erased since (an erased account's ids may come back, in it or in
// another, restored at revisions they had).
func (m *Marks) Of(account string) uint64 {
	s := stripe(account)
	var n uint64
	if c := m.counts.Load(); c != nil {
		n = c[s].Load()
	}
	return n*stripes + s
}

// WithStamp joins a mark of Of with stamp, the stamp of the account's clock
// as the store last gave it (0 when it holds none): on a test clock an
// erase through any server on the store puts the account's clock again,
// so its stamp tells the other servers what their own marks cannot. The
// mark takes the low 32 bits (its stripe and its count, up to 2^24 erases
// of one stripe), the stamp the high 32, so two joined marks are equal
// only when both parts are: the stamps of two accounts are never equal
// but at 0 (each put of a clock takes a stamp of its own), and then Of's
// rule holds.
func WithStamp(mark uint64, stamp int64) uint64 {
	return uint64(stamp)<<32 | mark&(1<<32-1)
}
