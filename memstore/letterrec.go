package memstore

import (
	"strings"
	"time"
	"unique"

	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/storage"
)

// A store of a million letters holds a million records: what a record
// holds is paid for a million times over, and every pointer in it is one
// more for the garbage collector to trace at every cycle. So a letter is
// kept in a form of its own, not as the storage.Letter it came in as (184
// bytes, four time and string pointers, and a metadata slice of its own):
// its account and status are numbers naming the store's one copy of each
// (names), its times are seconds and nanoseconds, and its metadata is one
// interned string, kept once for all the letters that carry the same
// pairs. A read makes the storage.Letter again.

// letterRec is a stored letter.
type letterRec struct {
	id         string
	externalID string
	doc        storage.Document
	meta       metaList
	revision   int64
	// secs and nsecs are the letter's times (created, modified, due) as
	// Unix seconds and nanoseconds (stamp).
	secs    [3]int64
	nsecs   [3]int32
	account name
	status  name
	// busy marks a letter that a ProcessDueLetters call has picked and not
	// yet reached, so concurrent calls share the due letters out instead of
	// all queueing for the same ones.
	busy bool
}

// The times of a letterRec, by index.
const (
	created = iota
	modified
	due
)

func letterLess(a, b *letterRec) bool { return a.id < b.id }

func (r *letterRec) time(i int) time.Time { return unstamp(r.secs[i], r.nsecs[i]) }

func (r *letterRec) setTime(i int, t time.Time) { r.secs[i], r.nsecs[i] = stamp(t) }

// isDue reports whether the letter has a due time; zeroSecs is the Unix
// time of the zero time.Time, which marks none.
func (r *letterRec) isDue() bool { return r.secs[due] != zeroSecs || r.nsecs[due] != 0 }

var zeroSecs, _ = stamp(time.Time{})

// dueAfter reports whether the letter's due time is after t.
func (r *letterRec) dueAfter(t time.Time) bool { return stampAfter(r.secs[due], r.nsecs[due], t) }

// letter returns a copy of the stored letter, its own to change.
func (s *Store) letter(r *letterRec) storage.Letter {
	l := s.letterWithoutMetadata(r)
	l.Metadata = r.meta.pairs()
	return l
}

// letterWithoutMetadata is letter but for the metadata, which the caller
// copies.
func (s *Store) letterWithoutMetadata(r *letterRec) storage.Letter {
	return storage.Letter{
		ID: r.id, Account: s.names.str(r.account), Status: s.names.str(r.status), ExternalID: r.externalID,
		CreatedAt: r.time(created), ModifiedAt: r.time(modified), DueAt: r.time(due),
		Revision: r.revision, Doc: storage.CloneDocument(r.doc),
	}
}

// name is a string the store keeps once, by number: a letter's account and
// status.
type name uint32

// names numbers the accounts and statuses of the store's letters. A name
// stays numbered once seen: there are few of them.
type names struct {
	ids  map[string]name
	strs []string
}

func newNames() names {
	// "" is name 0, which the zero letterRec carries.
	return names{ids: map[string]name{"": 0}, strs: []string{""}}
}

// id returns s's number, numbering it if new.
func (n *names) id(s string) name {
	if id, ok := n.ids[s]; ok {
		return id
	}
	s = strings.Clone(s)
	id := name(len(n.strs))
	n.ids[s] = id
	n.strs = append(n.strs, s)
	return id
}

// lookup returns s's number, if s has one.
func (n *names) lookup(s string) (name, bool) {
	id, ok := n.ids[s]
	return id, ok
}

func (n *names) str(id name) string { return n.strs[id] }

// metaList is a letter's metadata: its pairs packed into one string as
// package pack packs metadata, interned so that letters with the same
// pairs share one copy (and a snapshot of the letter shares it too). The
// zero metaList has no pairs.
type metaList struct {
	h unique.Handle[string]
}

func packMetadata(m []storage.Metadata) metaList {
	if len(m) == 0 {
		return metaList{}
	}
	return metaList{unique.Make(string(pack.AppendMetadata(make([]byte, 0, pack.MetadataLen(m)), m)))}
}

func (m metaList) packed() string {
	if m == (metaList{}) {
		return ""
	}
	return m.h.Value()
}

// each calls fn with every pair, in order, until fn returns false. The
// strings are parts of the interned string.
func (m metaList) each(fn func(key, value string) bool) {
	_, s := m.count()
	for len(s) > 0 {
		var k, v string
		k, s = pack.NextString(s)
		v, s = pack.NextString(s)
		if !fn(k, v) {
			return
		}
	}
}

// equal reports whether m holds exactly the pairs of l, in order.
func (m metaList) equal(l []storage.Metadata) bool {
	i := 0
	same := true
	m.each(func(k, v string) bool {
		same = i < len(l) && l[i].Key == k && l[i].Value == v
		i++
		return same
	})
	return same && i == len(l)
}

// pairs returns the pairs as a new slice; nil for none.
func (m metaList) pairs() []storage.Metadata {
	if m == (metaList{}) {
		return nil
	}
	n, _ := m.count()
	return m.appendPairs(make([]storage.Metadata, 0, n))
}

// appendPairs appends the pairs to dst: one pass, no callback, as every
// listed letter's pairs are copied here.
func (m metaList) appendPairs(dst []storage.Metadata) []storage.Metadata {
	n, s := m.count()
	for range n {
		var p storage.Metadata
		p.Key, s = pack.NextString(s)
		p.Value, s = pack.NextString(s)
		dst = append(dst, p)
	}
	return dst
}

// has reports whether every pair of want is among m's.
func (m metaList) has(want []storage.Metadata) bool {
	for _, w := range want {
		found := false
		m.each(func(k, v string) bool {
			found = k == w.Key && v == w.Value
			return !found
		})
		if !found {
			return false
		}
	}
	return true
}

// count returns the number of pairs and the packed pairs after it.
func (m metaList) count() (int, string) { return pack.NextMetadata(m.packed()) }
