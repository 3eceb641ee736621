package lettershop

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// A run moves many letters, and decoding and encoding each letter's whole
// document would cost most of its time. A stored letter document (see
// letterDoc in records.go) is
//
//	{"life":{...},"sender":...,"events":[...]}
//
// so a run decodes the life document at the start, takes the steps, and
// writes the new life document, the bytes in between unchanged, and the
// events array with the new events appended.

var (
	lifeStart   = []byte(`{"life":`)
	eventsEnd   = []byte(`]}`)
	eventsEmpty = []byte(`"events":[]}`)
)

// recordWriter writes letter documents for one run, in a buffer reused from
// letter to letter; each document it hands out is a copy of its own.
type recordWriter struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newRecordWriter() *recordWriter {
	w := &recordWriter{}
	w.enc = json.NewEncoder(&w.buf)
	return w
}

// encode appends v's JSON to the buffer, as json.Marshal writes it.
func (w *recordWriter) encode(v any) error {
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	w.buf.Truncate(w.buf.Len() - 1) // the newline Encode ends with
	return nil
}

// advance takes in place the steps of a stored letter due up to now. It
// reports false, changing nothing, when the document is not laid out as
// expected; the caller then decodes the whole letter.
func (w *recordWriter) advance(r *storage.Letter, now time.Time) bool {
	data := r.Data
	if !bytes.HasPrefix(data, lifeStart) {
		return false
	}
	end := objectEnd(data[len(lifeStart):])
	if end < 0 {
		return false
	}
	end += len(lifeStart)
	rest := data[end:]
	if !bytes.HasPrefix(rest, []byte(`,"`)) || !bytes.HasSuffix(rest, eventsEnd) {
		return false
	}
	c := &course{id: r.ID, status: LetterStatus(r.Status), due: r.DueAt, modified: r.ModifiedAt}
	if err := json.Unmarshal(data[len(lifeStart):end], &c.life); err != nil {
		return false
	}
	c.advance(now)
	w.buf.Reset()
	w.buf.Write(lifeStart)
	if err := w.encode(c.life); err != nil {
		return false
	}
	w.buf.Write(rest[:len(rest)-len(eventsEnd)])
	sep := !bytes.HasSuffix(rest, eventsEmpty)
	for _, e := range c.added {
		if sep {
			w.buf.WriteByte(',')
		}
		if err := w.encode(e); err != nil {
			return false
		}
		sep = true
	}
	w.buf.Write(eventsEnd)
	r.Data, r.Status, r.DueAt, r.ModifiedAt = bytes.Clone(w.buf.Bytes()), string(c.status), c.due, c.modified
	return true
}

// objectEnd returns the length of the JSON object at the start of b, or -1.
// It only matches brackets outside strings; the caller decodes the object,
// which checks it.
func objectEnd(b []byte) int {
	if len(b) == 0 || b[0] != '{' {
		return -1
	}
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}
