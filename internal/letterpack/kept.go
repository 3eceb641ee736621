package letterpack

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unique"

	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/storage"
)

// A store that keeps records in memory (memstore) holds a letter's
// document for as long as the letter lives and reads it far less often
// than it holds it, so it keeps it packed (Kept): the service's typed
// document is a struct of 736 bytes with a dozen pointers to parts, each
// its own allocation, and a letter kept that way cost the store about
// 2 KB and the garbage collector a dozen pointers to trace, for every
// letter stored.
//
// A Kept packs the values the document gives (storage.LetterValuer) into
// one string, which holds no pointers. It refers to what letters made
// from the same asset version share (the content's ids, the snapshot's
// hash, type and definitions, and the encoder of the values) through one
// canonical copy. It is never changed once made: a copy of it is itself,
// and a read unpacks it into the caller's storage.LetterDoc, whose
// strings are then parts of the packed string. A letter's snapshot
// (package lettersnap) shares the store's Kept.

// Kept is a letter document packed, as a store that keeps letters in
// memory keeps it. It implements storage.LetterReader and
// storage.LetterStepper.
type Kept struct {
	// data is the document's own values, packed by Pack.
	data string
	// shared is the part of the document letters of one asset version
	// share.
	shared unique.Handle[keptShared]
}

// keptShared is the part of a kept letter letters made from the same
// asset version share: the content they name, the snapshot of the version
// (its definitions packed) without the values merged, and the number of
// the encoder of the values (encoders).
type keptShared struct {
	content     storage.LetterContentRef
	hash        string
	snapType    string
	definitions string
	enc         int
}

// encoders are the encoders of the documents letters were kept from, by
// number. A kept letter's shared part names its encoder by number, so
// that it holds strings and numbers only: unique.Make then copies what it
// keeps of them, and the caller's strings do not escape.
var encoders struct {
	mu   sync.Mutex
	list atomic.Pointer[[]storage.LetterEncoder]
}

// encoderNumber returns e's number, numbering it if new.
func encoderNumber(e storage.LetterEncoder) int {
	if l := encoders.list.Load(); l != nil {
		if i := slices.Index(*l, e); i >= 0 {
			return i
		}
	}
	encoders.mu.Lock()
	defer encoders.mu.Unlock()
	var l []storage.LetterEncoder
	if p := encoders.list.Load(); p != nil {
		l = *p
	}
	if i := slices.Index(l, e); i >= 0 {
		return i
	}
	l = append(slices.Clip(l), e)
	encoders.list.Store(&l)
	return len(l) - 1
}

// KeepDocument returns the form of d a store that keeps letters in memory
// keeps: a letter document that gives its values (storage.LetterValuer),
// packed, when they fit the form; else what storage.KeepDocument returns,
// a copy of a document with no kept form of its own.
func KeepDocument(d storage.Document) storage.Document {
	if k, ok := keptForm(d); ok {
		return k
	}
	return storage.KeepDocument(d)
}

// OwnDocument is KeepDocument for a document its caller gave up, such as
// a restore's: one with no kept form of its own is kept as it is, not
// copied.
func OwnDocument(d storage.Document) storage.Document {
	if k, ok := keptForm(d); ok {
		return k
	}
	return d
}

// keptForm returns d's kept form: its letter values packed when they fit
// the form, else a storage.Keeper's own; false when d has neither.
func keptForm(d storage.Document) (storage.Document, bool) {
	if lv, ok := d.(storage.LetterValuer); ok {
		if k, ok := Keep(lv); ok {
			return k, true
		}
	}
	if k, ok := d.(storage.Keeper); ok {
		return k.KeepDocument(), true
	}
	return nil, false
}

// Keep packs the values d gives, and reports false when they do not fit
// the form (values d does not give, a time outside UTC).
func Keep(d storage.LetterValuer) (*Kept, bool) {
	v := storage.GetLetterDoc()
	defer storage.PutLetterDoc(v)
	if !d.LetterValues(v) {
		return nil, false
	}
	p := pack.Get(Words)
	defer p.Release()
	Pack(p, v)
	if p.Err() != nil {
		return nil, false
	}
	data := p.String()
	p.Reset()
	PackDefinitions(p, &v.Snapshot)
	if p.Err() != nil {
		return nil, false
	}
	shared := unique.Make(keptShared{
		content: v.Content, hash: v.Snapshot.Hash, snapType: v.Snapshot.Type,
		definitions: p.String(), enc: encoderNumber(d.LetterEncoder()),
	})
	return &Kept{data: data, shared: shared}, true
}

// CloneDocument implements storage.Document: nothing can change a kept
// letter, so it is its own copy.
func (k *Kept) CloneDocument() storage.Document { return k }

// KeepDocument implements storage.Keeper.
func (k *Kept) KeepDocument() storage.Document { return k }

// EncodeDocument implements storage.Document: the encoding of the
// document it was made from, by that document's encoder.
func (k *Kept) EncodeDocument() ([]byte, error) {
	v := storage.GetLetterDoc()
	defer storage.PutLetterDoc(v)
	if err := k.ReadLetter(v); err != nil {
		return nil, err
	}
	return (*encoders.list.Load())[k.shared.Value().enc].EncodeLetter(v)
}

// ReadLetter implements storage.LetterReader.
func (k *Kept) ReadLetter(v *storage.LetterDoc) error {
	c := k.shared.Value()
	u := pack.NewReader(k.data, Words)
	Unpack(&u, v)
	v.Content = c.content
	v.Snapshot.Hash, v.Snapshot.Type = c.hash, c.snapType
	du := pack.NewReader(c.definitions, Words)
	UnpackDefinitions(&du, &v.Snapshot)
	u.End()
	du.End()
	if err := errors.Join(u.Err(), du.Err()); err != nil {
		return fmt.Errorf("kept letter document: %w", err)
	}
	return nil
}

// KeptSize is about how many bytes the kept letter holds of its own: the
// part a snapshot of it shares with the store (lettersnap.Sizer).
func (k *Kept) KeptSize() int { return len(k.data) }

// LetterLife implements storage.LetterStepper.
func (k *Kept) LetterLife(l *storage.LetterLife) bool {
	r := pack.NewReader(k.data, Words)
	UnpackLife(&r, l)
	return r.Err() == nil
}

// maxStep is the most events one step adds in place.
const maxStep = 16

// StepLetter implements storage.LetterStepper: the new kept form is made
// from the old one's parts: the life l, the middle part copied as it is,
// the old events copied and the new ones packed after them, their ids
// appended in place. Nothing of the letter is unpacked but its life, and
// the new events' ids are parts of the one new string.
func (k *Kept) StepLetter(l *storage.LetterLife, added []storage.LetterEvent, ids storage.LetterEventIDs) (storage.Document, bool) {
	if len(added) == 0 {
		return k, true
	}
	if len(added) > maxStep {
		return nil, false
	}
	u := pack.NewReader(k.data, Words)
	var old storage.LetterLife
	UnpackLife(&u, &old)
	mid := u.Uvarint()
	midStart := u.Pos()
	if u.Err() != nil || !u.Skip(mid) {
		return nil, false
	}
	n, _ := u.Count()
	if u.Err() != nil {
		return nil, false
	}
	p := pack.Get(Words)
	defer p.Release()
	packLife(p, l)
	p.Uvarint(mid)
	p.B = append(p.B, k.data[midStart:midStart+int(mid)]...)
	p.Count(n+len(added), false)
	p.B = append(p.B, u.Rest()...)
	var starts, ends [maxStep]int // where each new event's id is in p.B
	for i := range added {
		starts[i], ends[i] = packEvent(p, &added[i], ids, i)
	}
	if p.Err() != nil {
		return nil, false
	}
	data := p.String()
	for i := range added {
		added[i].ID = data[starts[i]:ends[i]]
	}
	return &Kept{data: data, shared: k.shared}, true
}
