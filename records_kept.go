package lettershop

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
	"unique"

	"github.com/lettershop/lettershop/internal/ids"
	"github.com/lettershop/lettershop/internal/letterpack"
	"github.com/lettershop/lettershop/internal/pack"
	"github.com/lettershop/lettershop/postal"
	"github.com/lettershop/lettershop/storage"
)

// A store that keeps records in memory (memstore) holds a letter's document
// for as long as the letter lives and reads it far less often than it holds
// it, so it keeps it in the form below (storage.Keeper): the typed document
// is a struct of 736 bytes with a dozen pointers to parts, each its own
// allocation, and a letter kept that way cost the store about 2 KB and the
// garbage collector a dozen pointers to trace, for every letter stored.
//
// keptLetter packs the document's values into one string, which holds no
// pointers: the document is mapped to storage.LetterDoc values
// (records_letterdoc.go), which package letterpack lays out. It refers
// to what letters made from the same asset version share (the content's
// ids and the snapshot of the version) through one canonical copy. It is
// never changed once made: a copy of it is itself, and a read unpacks it
// into a letterDoc whose strings are parts of the packed string.

// keptLetter is a letter document as a store keeps it.
type keptLetter struct {
	// data is the document's own values, packed by keepLetter.
	data string
	// shared is the part of the document letters of one asset version
	// share.
	shared unique.Handle[keptContent]
}

// keptContent is the part of a letter document letters made from the same
// asset version share: the content they name and the snapshot of the
// version (its definitions packed), without the values merged.
type keptContent struct {
	contentType LetterContentType
	assetID     string
	versionID   string
	hash        string
	snapType    string
	definitions string
}

// KeepDocument implements storage.Keeper: the document packed, or a deep
// copy of it when it holds what the packed form does not (a time outside
// UTC, a tracking event's additional data).
func (d *letterDoc) KeepDocument() storage.Document {
	if k, ok := keepLetter(d); ok {
		return k
	}
	return d.CloneDocument()
}

// CloneDocument implements storage.Document: nothing can change a kept
// letter, so it is its own copy.
func (k *keptLetter) CloneDocument() storage.Document { return k }

// KeepDocument implements storage.Keeper.
func (k *keptLetter) KeepDocument() storage.Document { return k }

// EncodeDocument implements storage.Document: the encoding of the document
// it was made from.
func (k *keptLetter) EncodeDocument() ([]byte, error) {
	var d letterDoc
	if err := k.unpack(&d); err != nil {
		return nil, err
	}
	return encodeDoc(&d)
}

// keptWords are the words letters are packed with, which a letter's
// snapshot (letters_snapshot.go) packs its fields with too.
var keptWords = letterpack.Words

// letterValues are the storage.LetterDoc values letters are packed from
// and unpacked into, reused.
var letterValues = sync.Pool{New: func() any { return new(storage.LetterDoc) }}

// keepLetter packs d (package letterpack), and reports false when d holds
// what a keptLetter does not.
func keepLetter(d *letterDoc) (*keptLetter, bool) {
	v := letterValues.Get().(*storage.LetterDoc)
	defer letterValues.Put(v)
	if !letterDocValues(d, v) {
		return nil, false
	}
	p := pack.Get(letterpack.Words)
	defer p.Release()
	letterpack.Pack(p, v)
	if p.Err() != nil {
		return nil, false
	}
	data := p.String()
	p.Reset()
	letterpack.PackDefinitions(p, &v.Snapshot)
	if p.Err() != nil {
		return nil, false
	}
	shared := unique.Make(keptContent{
		contentType: d.Content.Type, assetID: d.Content.AssetID, versionID: d.Content.AssetVersionID,
		hash: d.Snapshot.Hash, snapType: d.Snapshot.Type, definitions: p.String(),
	})
	return &keptLetter{data: data, shared: shared}, true
}

// unpack writes the document k was made from into d.
func (k *keptLetter) unpack(d *letterDoc) error {
	v := letterValues.Get().(*storage.LetterDoc)
	defer letterValues.Put(v)
	c := k.shared.Value()
	u := pack.NewReader(k.data, letterpack.Words)
	letterpack.Unpack(&u, v)
	v.Content = storage.LetterContentRef{Type: string(c.contentType), AssetID: c.assetID, VersionID: c.versionID}
	v.Snapshot.Hash, v.Snapshot.Type = c.hash, c.snapType
	du := pack.NewReader(c.definitions, letterpack.Words)
	letterpack.UnpackDefinitions(&du, &v.Snapshot)
	u.End()
	du.End()
	if err := errors.Join(u.Err(), du.Err()); err != nil {
		return fmt.Errorf("kept letter document: %w", err)
	}
	letterDocOf(v, d)
	return nil
}

// KeptSize implements lettersnap.Sizer: the letter's own part, which a
// snapshot of it shares with the store.
func (k *keptLetter) KeptSize() int { return len(k.data) }

// The lifecycle steps a kept letter through these (lifecycle_records.go:
// stepper).

func (k *keptLetter) facts(f *postal.Facts) bool {
	r := pack.NewReader(k.data, letterpack.Words)
	var l storage.LetterLife
	letterpack.UnpackLife(&r, &l)
	*f = lifeOf(&l)
	return r.Err() == nil
}

// stepped makes the new kept form from the old one's parts: the life facts
// f, the middle part copied as it is, the old events copied and the new
// ones packed after them, straight from the postal events. Nothing of the
// letter is unpacked but its life facts, and the new events' ids and the
// notices' are parts of the one new string. It reports false for a form it
// cannot read or an event it cannot pack; the caller then unpacks the
// letter.
func (k *keptLetter) stepped(id string, f *postal.Facts, added []postal.Event, notices []storage.Notice) (storage.Document, []storage.Notice, bool) {
	if len(added) == 0 {
		return k, notices, true
	}
	u := pack.NewReader(k.data, letterpack.Words)
	var old storage.LetterLife
	letterpack.UnpackLife(&u, &old)
	mid := u.Uvarint()
	midStart := u.Pos()
	if u.Err() != nil || !u.Skip(mid) {
		return nil, nil, false
	}
	n, _ := u.Count()
	if u.Err() != nil {
		return nil, nil, false
	}
	p := pack.Get(letterpack.Words)
	defer p.Release()
	life := lifeValues(f)
	letterpack.PackLife(p, &life)
	p.Uvarint(mid)
	p.B = append(p.B, k.data[midStart:midStart+int(mid)]...)
	p.Uvarint(uint64(n+len(added)) + 1)
	p.B = append(p.B, u.Rest()...)
	var idAt [16]int // where each new event's id starts in p.B
	if len(added) > len(idAt) {
		return nil, nil, false
	}
	for i := range added {
		e := &added[i]
		if e.At.Location() != time.UTC {
			return nil, nil, false
		}
		p.Byte(pack.Flags(e.Tracking, e.ActionRequired))
		p.Uvarint(uint64(eventIDLen) << 1)
		idAt[i] = len(p.B)
		p.B = ids.AppendEvent(p.B, eventPrefix, id, e.N, e.At)
		p.Time(e.At)
		if e.Tracking {
			p.Str(string(eventTracking))
		} else {
			p.Str(string(eventStatus))
		}
		p.Str(string(e.Status))
		p.Str(e.Description)
		p.Str(e.OperationCode)
		p.Str(e.Location)
		if e.Tracking {
			p.Str(e.Notes)
			p.Str(e.Facility)
			p.Str(e.FacilityType)
			p.Str(e.FacilityZip)
		}
	}
	if p.Err() != nil {
		return nil, nil, false
	}
	data := p.String()
	notices = slices.Grow(notices, len(added))
	for i := range added {
		e := &added[i]
		notices = append(notices, storage.Notice{
			EventID: data[idAt[i] : idAt[i]+eventIDLen], Type: noticeType(EventStatus(e.Status), e.N),
			Seq: e.N, At: e.At, RetryUntil: e.At.Add(WebhookRetryPeriod),
		})
	}
	return &keptLetter{data: data, shared: k.shared}, notices, true
}
