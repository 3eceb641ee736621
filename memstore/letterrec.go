package memstore

import (
	"strings"
	"time"

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
	meta       pack.Interned
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
	l.Metadata = r.meta.Pairs()
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
