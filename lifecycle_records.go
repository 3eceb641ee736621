package lettershop

import (
	"bytes"
	"encoding/json"
	"strconv"
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

// eventSize is room enough for most encoded events.
const eventSize = 640

var (
	lifeStart   = []byte(`{"life":`)
	eventsEnd   = []byte(`]}`)
	eventsEmpty = []byte(`"events":[]}`)
)

// advanceRecord takes in place the steps of a stored letter due up to now.
// It reports false, changing nothing, when the document is not laid out as
// expected; the caller then decodes the whole letter. The new document is
// a new slice: a store may hold on to it until it writes a whole batch.
func advanceRecord(r *storage.Letter, now time.Time) bool {
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
	b := make([]byte, 0, len(data)+64+eventSize*len(c.added))
	b = append(b, lifeStart...)
	b = appendLife(b, &c.life)
	b = append(b, rest[:len(rest)-len(eventsEnd)]...)
	sep := !bytes.HasSuffix(rest, eventsEmpty)
	for i := range c.added {
		if sep {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendEvent(b, &c.added[i]); !ok {
			return false
		}
		sep = true
	}
	b = append(b, eventsEnd...)
	r.Data, r.Status, r.DueAt, r.ModifiedAt = b, string(c.status), c.due, c.modified
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

// appendLife appends l as encoding/json writes it.
func appendLife(b []byte, l *lifeDoc) []byte {
	b = append(b, `{"stage":`...)
	b = appendString(b, string(l.Stage))
	b = append(b, `,"events":`...)
	b = strconv.AppendInt(b, int64(l.Events), 10)
	if l.SendDate != "" {
		b = append(b, `,"sendDate":`...)
		b = appendString(b, l.SendDate)
	}
	if l.Outcome != "" {
		b = append(b, `,"outcome":`...)
		b = appendString(b, string(l.Outcome))
	}
	b = append(b, `,"from":`...)
	b = appendPlace(b, &l.From)
	b = append(b, `,"to":`...)
	b = appendPlace(b, &l.To)
	return append(b, '}')
}

func appendPlace(b []byte, p *place) []byte {
	b = append(b, '{')
	first := true
	for _, f := range [...]struct{ key, value string }{{`"city":`, p.City}, {`"state":`, p.State}, {`"zip":`, p.Zip}} {
		b = appendField(b, &first, f.key, f.value)
	}
	return append(b, '}')
}

// appendEvent appends e as encoding/json writes it. It reports false for an
// event it does not write (one with additionalData, or a time outside years
// 0 to 9999).
func appendEvent(b []byte, e *Event) ([]byte, bool) {
	if d := e.TrackingEventDetails; d != nil && d.AdditionalData != nil {
		return b, false
	}
	for _, t := range [...]time.Time{e.CreatedAt, e.ModifiedAt, e.Timestamp} {
		if y := t.Year(); y < 0 || y > 9999 { // encoding/json refuses them
			return b, false
		}
	}
	b = append(b, `{"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, e.CreatedAt)
	b = append(b, `,"modifiedAt":`...)
	b = appendTime(b, e.ModifiedAt)
	b = append(b, `,"timestamp":`...)
	b = appendTime(b, e.Timestamp)
	b = append(b, `,"type":`...)
	b = appendString(b, e.Type)
	b = append(b, `,"status":`...)
	b = appendString(b, e.Status)
	if d := e.TrackingEventDetails; d != nil {
		b = append(b, `,"trackingEventDetails":{`...)
		first := true
		b = appendField(b, &first, `"notes":`, d.Notes)
		b = appendField(b, &first, `"facility":`, d.Facility)
		b = appendField(b, &first, `"facilityType":`, d.FacilityType)
		b = appendField(b, &first, `"facilityZip":`, d.FacilityZip)
		b = append(b, '}')
	}
	first := false
	b = appendField(b, &first, `"description":`, e.Description)
	b = appendField(b, &first, `"operationCode":`, e.OperationCode)
	b = append(b, `,"actionRequired":`...)
	b = strconv.AppendBool(b, e.ActionRequired)
	b = appendField(b, &first, `"location":`, e.Location)
	return append(b, '}'), true
}

// appendField appends a string field left out when empty (omitempty),
// after a comma unless it is the first of its object.
func appendField(b []byte, first *bool, key, value string) []byte {
	if value == "" {
		return b
	}
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = append(b, key...)
	return appendString(b, value)
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendString appends s as a JSON string: as is when nothing in it needs
// escaping, else as encoding/json escapes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s)
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
