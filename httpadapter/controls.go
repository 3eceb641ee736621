package httpadapter

// This file holds TestControls: the faults (faults.go) and the journal
// (journal.go) of every account, within a bound in bytes.

import (
	"container/list"
	"context"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// TestControls keeps the faults and the request journal of every account
// of a handler. Pass one to WithTestControls to reach them from Go (as
// lettershoptest does); without it, WithTestClock makes one seeded with 1.
// Its methods are safe for concurrent use.
//
// In the sandbox every key is an account, so the controls are bounded: an
// account keeps at most MaxFaults faults and its last JournalSize requests
// (and at most 256 KiB of them, its own oldest going first), and all
// accounts together about 64 MiB. Over that, whole accounts go, least
// recently used first, and those without faults before any with faults.
// An account whose faults went while they had uses left is told so on its
// next request: a 410 problem with code faults-dropped naming them.
type TestControls struct {
	mu sync.Mutex
	// rnd decides faults given a probability, made from seed by the first
	// such fault: most servers never meet one, and a source is 4.9 KB.
	rnd   *rand.Rand
	seed  int64
	sleep func(context.Context, time.Duration) error
	seq   int

	accounts map[string]*accountControls
	// plain and faulted hold the accounts without and with faults, the
	// most recently used at the front: over the bound, plain accounts go
	// first.
	plain, faulted list.List
	// bytes is what the accounts hold, as accountSize counts it; limit is
	// the most they may.
	bytes, limit int
	// dropped holds, for each account whose faults went while they had
	// uses left, what its next request is told.
	dropped *lru.Cache[string, droppedFaults]
}

// The bounds of the controls, in bytes as accountSize counts them.
const (
	// maxControlBytes bounds all accounts' faults and journals together.
	maxControlBytes = 64 << 20
	// maxJournalBytes bounds one account's journal.
	maxJournalBytes = 256 << 10
	// maxDroppedNotices bounds the accounts whose dropped faults are
	// remembered until they next call.
	maxDroppedNotices = 1 << 14
	// droppedNamed is how many of an account's dropped faults its notice
	// names; it counts the rest.
	droppedNamed = 10
)

// What an account, a fault and a journal entry are counted for beyond
// their strings: their structs, and the map, list and slice entries
// holding them.
const (
	accountOverhead = 256
	faultOverhead   = 160
	entryOverhead   = 192
)

// accountControls is one account's faults and journal.
type accountControls struct {
	id   string
	elem *list.Element
	// inFaulted says which list elem is in.
	inFaulted  bool
	faults     []*Fault
	faultBytes int
	// journal[head:] are the entries, oldest first.
	journal      []JournalEntry
	head         int
	journalBytes int
}

func (a *accountControls) size() int {
	return accountOverhead + 2*len(a.id) + a.faultBytes + a.journalBytes
}

func faultSize(f *Fault) int { return faultOverhead + len(f.ID) + len(f.Method) + len(f.Path) }

func entrySize(e JournalEntry) int {
	return entryOverhead + len(e.Method) + len(e.Path) + len(e.IdempotencyKey) + len(e.RequestID) + len(e.Fault)
}

// droppedFaults is what an account is told of its faults that went: the
// ids of the first droppedNamed, and how many there were.
type droppedFaults struct {
	ids []string
	n   int
}

// NewTestControls returns controls whose probabilities are drawn from a
// source seeded with seed, so that a test run replays.
func NewTestControls(seed int64) *TestControls {
	dropped, err := lru.New[string, droppedFaults](maxDroppedNotices)
	if err != nil {
		panic("httpadapter: test controls: " + err.Error()) // only for a size below 1
	}
	return &TestControls{
		seed:     seed, // faults must replay, they guard no secret
		sleep:    sleepContext,
		accounts: map[string]*accountControls{},
		limit:    maxControlBytes,
		dropped:  dropped,
	}
}

// SetSleep sets how latency is waited out; the default waits on the wall
// clock, ending early when the request is canceled. A test passes a
// function that records the wait and returns at once.
func (tc *TestControls) SetSleep(sleep func(ctx context.Context, d time.Duration) error) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.sleep = sleep
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WithTestControls sets the controls the handler keeps its faults and
// journal in. It takes effect only with WithTestClock.
func WithTestControls(tc *TestControls) Option { return func(c *config) { c.controls = tc } }

// account returns the account's controls, made if missing, as the most
// recently used. tc.mu is held.
func (tc *TestControls) account(id string) *accountControls {
	if a := tc.lookup(id); a != nil {
		return a
	}
	a := &accountControls{id: id}
	a.elem = tc.plain.PushFront(a)
	tc.accounts[id] = a
	tc.bytes += a.size()
	return a
}

// lookup returns the account's controls, nil if it has none, as the most
// recently used. tc.mu is held.
func (tc *TestControls) lookup(id string) *accountControls {
	a, ok := tc.accounts[id]
	if !ok {
		return nil
	}
	tc.listOf(a).MoveToFront(a.elem)
	return a
}

func (tc *TestControls) listOf(a *accountControls) *list.List {
	if a.inFaulted {
		return &tc.faulted
	}
	return &tc.plain
}

// relist moves a to the list its faults now put it in.
func (tc *TestControls) relist(a *accountControls) {
	if faulted := len(a.faults) > 0; faulted != a.inFaulted {
		tc.listOf(a).Remove(a.elem)
		a.inFaulted = faulted
		a.elem = tc.listOf(a).PushFront(a)
	}
}

// grow counts n more bytes held by a, then drops other accounts while the
// controls hold more than their bound.
func (tc *TestControls) grow(a *accountControls, n int) {
	tc.bytes += n
	for tc.bytes > tc.limit {
		victim := leastRecent(&tc.plain, a)
		if victim == nil {
			victim = leastRecent(&tc.faulted, a)
		}
		if victim == nil {
			return // a alone, within its own bounds
		}
		tc.drop(victim)
	}
}

// leastRecent is the least recently used account of l other than keep.
func leastRecent(l *list.List, keep *accountControls) *accountControls {
	for e := l.Back(); e != nil; e = e.Prev() {
		if a := e.Value.(*accountControls); a != keep {
			return a
		}
	}
	return nil
}

// drop forgets an account, leaving a notice of the faults it had: every
// fault kept has uses left (one used up is removed).
func (tc *TestControls) drop(a *accountControls) {
	if len(a.faults) > 0 {
		d := droppedFaults{n: len(a.faults)}
		if prev, ok := tc.dropped.Get(a.id); ok {
			d = prev
			d.n += len(a.faults)
		}
		for _, f := range a.faults {
			if len(d.ids) < droppedNamed {
				d.ids = append(d.ids, f.ID)
			}
		}
		tc.dropped.Add(a.id, d)
	}
	tc.listOf(a).Remove(a.elem)
	delete(tc.accounts, a.id)
	tc.bytes -= a.size()
}

// ForgetAccount forgets the account's faults and journal, and any notice
// of faults it had dropped: the account is then as one never seen.
func (tc *TestControls) ForgetAccount(account string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.dropped.Remove(account)
	if a, ok := tc.accounts[account]; ok {
		tc.listOf(a).Remove(a.elem)
		delete(tc.accounts, account)
		tc.bytes -= a.size()
	}
}

// takeDropped returns the notice of the account's dropped faults, if any,
// and forgets it: it is told once.
func (tc *TestControls) takeDropped(account string) (droppedFaults, bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	d, ok := tc.dropped.Get(account)
	if ok {
		tc.dropped.Remove(account)
	}
	return d, ok
}

// anyDropped reports whether some account has a notice waiting, so that
// requests need not look up their account when none has.
func (tc *TestControls) anyDropped() bool { return tc.dropped.Len() > 0 }

// String is the notice's text.
func (d droppedFaults) String() string {
	s := strings.Join(d.ids, ", ")
	if more := d.n - len(d.ids); more > 0 {
		s += " and " + strconv.Itoa(more) + " more"
	}
	return s
}
