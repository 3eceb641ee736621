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
	r, err := w.svc.ReadLetter(ctx, account, id)
	if err != nil {
		return dst, err
	}
	st := r.Stamp()
	// A letter shown with steps not yet stored is not its stored state,
	// and is encoded afresh.
	stored := r.AsStored()
	if stored {
		if data, ok := w.letters.get(&st, false); ok {
			return append(dst, data...), nil
		}
	}
	l, err := r.Letter()
	if err != nil {
		return dst, err
	}
	data, err := Letter(l)
	if err != nil {
		return dst, encodeErr(err)
	}
	if stored {
		w.letters.put(&st, false, data)
	}
	return append(dst, data...), nil
}

// Page returns the page svc.ListLetters returns, as a json.Encoder writes
// it (each letter as the API shows it).
func (w *Letters) Page(ctx context.Context, account string, in lettershop.ListLettersInput) (Text, error) {
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
		if text, ok := w.pages.get(key, brief.AppendStamps(room[:0]), brief.More()); ok {
			return Text{text}, nil
		}
	}
	page, err := list.Read(ctx)
	if err != nil {
		return Text{}, err
	}
	stamps := page.AppendStamps(room[:0])
	text, err := w.encodePage(&page, stamps, !in.IncludeCassDetails)
	if err != nil {
		return Text{}, err
	}
	w.pages.put(key, stamps, page.More(), text)
	return Text{text}, nil
}

// encodePage encodes the page whose letters' stamps are stamps, from the
// encodings of its letters kept where there are any, followed by a
// newline.
func (w *Letters) encodePage(page *lettershop.StoredLetters, stamps []lettershop.LetterStamp, cassLeftOut bool) ([]byte, error) {
	n := len(stamps)
	// Room for the page at once: grown by appending, a page of 100 was
	// copied a dozen times on its way to 270 KB.
	dst := make([]byte, 0, n*letterSize+64)
	dst = append(dst, `{"items":[`...)
	kept := make([][]byte, n)
	w.letters.getPage(stamps, cassLeftOut, kept)
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		if kept[i] != nil {
			dst = append(dst, kept[i]...)
			continue
		}
		l, err := page.Letter(i)
		if err != nil {
			return nil, err
		}
		data, err := Letter(l)
		if err != nil {
			return nil, encodeErr(err)
		}
		w.letters.put(&stamps[i], cassLeftOut, data)
		dst = append(dst, data...)
	}
	dst = append(dst, ']')
	dst = appendNextToken(dst, page.NextToken())
	return append(dst, '}', '\n'), nil
}

// encodeErr is the error of a letter that could not be encoded: the
// Service's, not the caller's.
func encodeErr(err error) error {
	return &lettershop.Error{Code: lettershop.CodeInternal, Message: "internal error", Err: fmt.Errorf("encode letter: %w", err)}
}
