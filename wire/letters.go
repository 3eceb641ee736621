package wire

import (
	"context"
	"fmt"

	"github.com/lettershop/lettershop"
)

// Letters serves a Service's letters as the API shows them, keeping the
// encodings it made (cache.go): a letter read again at the same stored
// state is copied, not encoded, and a page read again whose letters have
// not changed is the same text. What it keeps is bounded in bytes (about
// 48 MiB) and filled by reads only, so it costs nothing per stored letter.
// It is safe for concurrent use.
type Letters struct {
	svc     *lettershop.Service
	letters *letterJSONCache
	pages   *pageJSONCache[lettershop.LetterListKey]
}

// NewLetters returns a Letters serving svc's letters.
func NewLetters(svc *lettershop.Service) *Letters {
	return &Letters{svc: svc, letters: newLetterJSONCache(), pages: newPageJSONCache[lettershop.LetterListKey]()}
}

// AppendLetter appends to dst the letter svc.GetLetter returns, as the API
// shows it, and returns the extended slice; on an error, dst as it was.
func (w *Letters) AppendLetter(ctx context.Context, dst []byte, account, id string) ([]byte, error) {
	ctx, erasures := w.svc.Erasures(ctx, account) // before the read: see jsonEntry
	r, err := w.svc.ReadLetter(ctx, account, id)
	if err != nil {
		return dst, err
	}
	st := r.Stamp()
	// A letter shown with steps not yet stored is not its stored state,
	// and is encoded afresh.
	stored := r.AsStored()
	if stored {
		if k, ok := w.letters.get(&st, erasures, false); ok {
			return k.appendTo(dst, false), nil
		}
	}
	l, err := r.Letter()
	if err != nil {
		return dst, err
	}
	var cut cassSpans
	out, err := appendLetter(dst, l, false, &cut)
	if err != nil {
		return dst, encodeErr(err)
	}
	if stored {
		w.letters.put(&st, erasures, keptJSON{data: keep(out[len(dst):]), full: true, cut: cut})
	}
	return out, nil
}

// Page returns the page svc.ListLetters returns, as a json.Encoder writes
// it (each letter as the API shows it).
func (w *Letters) Page(ctx context.Context, account string, in lettershop.ListLettersInput) (Text, error) {
	ctx, erasures := w.svc.Erasures(ctx, account) // before the read: see jsonEntry
	list, err := w.svc.OpenLetterList(ctx, account, in)
	if err != nil {
		return Text{}, err
	}
	key := list.Key()
	// The stamps of a page of the largest size, on the stack.
	var room [lettershop.MaxPageSize]lettershop.LetterStamp
	if w.pages.has(key) {
		// A page made before is checked against the letters' stamps,
		// which a store reads for a fraction of what whole letters cost.
		brief, err := list.Stamps(ctx)
		if err != nil {
			return Text{}, err
		}
		if text, ok := w.pages.get(key, brief.AppendStamps(room[:0]), brief.More(), erasures); ok {
			return Text{text}, nil
		}
	}
	page, err := list.Read(ctx)
	if err != nil {
		return Text{}, err
	}
	stamps := page.AppendStamps(room[:0])
	text, err := w.encodePage(&page, stamps, erasures, !in.IncludeCassDetails)
	if err != nil {
		return Text{}, err
	}
	w.pages.put(key, stamps, page.More(), erasures, text)
	return Text{text}, nil
}

// encodePage encodes the page whose letters' stamps are stamps, read at
// the account's mark of erasures erasures, from the encodings of its letters kept
// where there are any, followed by a newline.
func (w *Letters) encodePage(page *lettershop.StoredLetters, stamps []lettershop.LetterStamp, erasures uint64, cassLeftOut bool) ([]byte, error) {
	n := len(stamps)
	kept := make([]keptJSON, n)
	w.letters.getPage(stamps, erasures, cassLeftOut, kept)
	// Room for the page at once: grown by appending, a page of 100 was
	// copied a dozen times on its way to 270 KB. A letter kept takes its
	// length, one to encode room for a few events; the page is kept
	// (pages) counted by its room.
	next := page.NextToken()
	size := len(`{"items":[],"nextToken":""}`+"\n") + n + len(next)
	for i := range kept {
		if kept[i].data != nil {
			size += kept[i].size(cassLeftOut)
		} else {
			size += letterSize
		}
	}
	dst := make([]byte, 0, size)
	dst = append(dst, `{"items":[`...)
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		if kept[i].data != nil {
			dst = kept[i].appendTo(dst, cassLeftOut)
			continue
		}
		l, err := page.Letter(i)
		if err != nil {
			return nil, err
		}
		start := len(dst)
		var cut cassSpans
		if dst, err = appendLetter(dst, l, cassLeftOut, &cut); err != nil {
			return nil, encodeErr(err)
		}
		w.letters.put(&stamps[i], erasures, keptJSON{data: keep(dst[start:]), full: !cassLeftOut, cut: cut})
	}
	dst = append(dst, ']')
	dst = appendNextToken(dst, next)
	dst = append(dst, '}', '\n')
	if cap(dst)-len(dst) > len(dst)/8 {
		// Letters encoded took less than their room: the page is kept
		// at its length.
		dst = keep(dst)
	}
	return dst, nil
}

// encodeErr is the error of a letter that could not be encoded: the
// Service's, not the caller's.
func encodeErr(err error) error {
	return &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error", Err: fmt.Errorf("encode letter: %w", err)}
}
