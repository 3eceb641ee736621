package lettershop

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"

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
// letter to letter: a store copies the records it is given (the storage
// package's contract), so the next letter cannot change what it stored.
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
	if !decodeLife(data[len(lifeStart):end], &c.life) {
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
	r.Data, r.Status, r.DueAt, r.ModifiedAt = w.buf.Bytes(), string(c.status), c.due, c.modified
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

// decodeLife decodes a life document. The documents the service writes take
// a short way (encoding/json spends most of a run's decoding time on
// reflection); anything unusual goes to encoding/json.
func decodeLife(b []byte, l *lifeDoc) bool {
	p := lifeParser{b: b}
	var fast lifeDoc
	if p.object(func(key string) bool { return p.lifeField(key, &fast) }) && p.i == len(b) {
		*l = fast
		return true
	}
	return json.Unmarshal(b, l) == nil
}

// lifeParser reads JSON objects whose values are strings of valid UTF-8
// without escapes, non-negative integers and such objects; it gives up on
// anything else.
type lifeParser struct {
	b []byte
	i int
}

func (p *lifeParser) lifeField(key string, l *lifeDoc) bool {
	switch key {
	case "stage":
		s, ok := p.str()
		l.Stage = stage(s)
		return ok
	case "events":
		n, ok := p.uint()
		l.Events = n
		return ok
	case "sendDate":
		s, ok := p.str()
		l.SendDate = s
		return ok
	case "outcome":
		s, ok := p.str()
		l.Outcome = outcome(s)
		return ok
	case "from":
		return p.object(func(k string) bool { return p.placeField(k, &l.From) })
	case "to":
		return p.object(func(k string) bool { return p.placeField(k, &l.To) })
	}
	return false
}

func (p *lifeParser) placeField(key string, pl *place) bool {
	var field *string
	switch key {
	case "city":
		field = &pl.City
	case "state":
		field = &pl.State
	case "zip":
		field = &pl.Zip
	default:
		return false
	}
	s, ok := p.str()
	*field = s
	return ok
}

// object reads {"key":value,...}, handing each key to field, which reads
// the value.
func (p *lifeParser) object(field func(key string) bool) bool {
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return true
	}
	for {
		key, ok := p.str()
		if !ok || !p.byte(':') || !field(key) {
			return false
		}
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

func (p *lifeParser) byte(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *lifeParser) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return string(s), utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

func (p *lifeParser) uint() (int, bool) {
	start, n := p.i, 0
	for ; p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9'; p.i++ {
		if p.i-start >= 9 {
			return 0, false
		}
		n = n*10 + int(p.b[p.i]-'0')
	}
	return n, p.i > start && (p.b[start] != '0' || p.i == start+1)
}
