package httpadapter

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/echo"
)

// Text in a request must be valid UTF-8. encoding/json would quietly turn
// an invalid byte, and a \u escape of half a surrogate pair, into U+FFFD,
// and the service would store a character the client never sent; these
// checks read the body as sent and name each field that holds such text.

const (
	msgInvalidUTF8 = "must be valid UTF-8 text"
	// msgTwice is the problem of a member given twice in one object:
	// decoders differ in which of its values they take (encoding/json
	// the last), so the body is refused rather than read one way.
	msgTwice     = "is given more than once in its object: give it once"
	msgSurrogate = "must be valid UTF-8 text: a \\u escape of half a surrogate pair (\\ud800 to \\udfff) stands for no character"
)

// checkBodyText returns a validation error naming every field of body, a
// syntactically valid JSON document, whose string (or member name) holds
// invalid UTF-8 or an unpaired surrogate escape, and every member given
// twice in one object.
func checkBodyText(body []byte) error {
	s := textScanner{b: body, fields: map[string]string{}}
	s.value()
	return invalidFields(s.fields)
}

// textScanner walks a JSON document already known to be well formed,
// keeping the path of the value it is in, as checkShape spells paths.
// The path is kept as its parts and spelled only for a value with a
// problem, as far as a problem shows it (lettershop.MaxFieldPath), and
// only member names are decoded: a body's size bounds the work and the
// memory of the walk, however long its names or its arrays.
type textScanner struct {
	b      []byte
	i      int
	fields map[string]string
	path   []pathPart
}

// pathPart is a member's name, or with index >= 0 an array's element.
type pathPart struct {
	name  string
	index int
}

// note records msg for the value at the path; name says it is about the
// member name that ends the path.
func (s *textScanner) note(msg string, name bool) {
	var b []byte
	for i, p := range s.path {
		if len(b) > lettershop.MaxFieldPath {
			break
		}
		if p.index >= 0 {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(p.index), 10)
			b = append(b, ']')
			continue
		}
		if i > 0 && len(b) > 0 {
			b = append(b, '.')
		}
		n := p.name
		if n == "" {
			n = emptyName
		}
		b = append(b, n[:min(len(n), lettershop.MaxFieldPath+1-len(b))]...)
	}
	at := echo.Cut(string(b), lettershop.MaxFieldPath)
	if at == "" && !name {
		at = "body"
	}
	s.fields[at] = msg
}

func (s *textScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *textScanner) value() {
	s.ws()
	if s.i >= len(s.b) {
		return
	}
	switch s.b[s.i] {
	case '{':
		s.i++
		var seen map[string]bool
		for {
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] == '}' {
				s.i++
				return
			}
			if s.b[s.i] == ',' {
				s.i++
				continue
			}
			name, msg := s.str(true)
			s.path = append(s.path, pathPart{name: name, index: -1})
			if msg != "" {
				s.note("the member name "+msg, true)
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			if seen[name] {
				s.note(msgTwice, true)
			}
			seen[name] = true
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == ':' {
				s.i++
			}
			s.value()
			s.path = s.path[:len(s.path)-1]
		}
	case '[':
		s.i++
		for n := 0; ; {
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] == ']' {
				s.i++
				return
			}
			if s.b[s.i] == ',' {
				s.i++
				continue
			}
			s.path = append(s.path, pathPart{index: n})
			s.value()
			s.path = s.path[:len(s.path)-1]
			n++
		}
	case '"':
		if _, msg := s.str(false); msg != "" {
			s.note(msg, false)
		}
	default:
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

// str reads a string at s.i and returns what is wrong with it, if
// anything, and with keep the string itself (for a member name's path,
// with U+FFFD for what is not text).
func (s *textScanner) str(keep bool) (string, string) {
	s.i++ // the opening quote
	var out []byte
	add := func(r rune) {
		if keep {
			out = utf8.AppendRune(out, r)
		}
	}
	msg := ""
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return string(out), msg
		case c == '\\' && s.i+1 < len(s.b) && s.b[s.i+1] == 'u':
			r, ok := s.hex4(s.i + 2)
			s.i += 6
			if !ok {
				add(utf8.RuneError)
				continue
			}
			switch {
			case r >= 0xD800 && r < 0xDC00:
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					if lo, ok := s.hex4(s.i + 2); ok && lo >= 0xDC00 && lo < 0xE000 {
						s.i += 6
						add((r-0xD800)<<10 + (lo - 0xDC00) + 0x10000)
						continue
					}
				}
				msg = msgSurrogate
				add(utf8.RuneError)
			case r >= 0xDC00 && r < 0xE000:
				msg = msgSurrogate
				add(utf8.RuneError)
			default:
				add(r)
			}
		case c == '\\' && s.i+1 < len(s.b):
			e := s.b[s.i+1]
			s.i += 2
			switch e {
			case 'b':
				e = '\b'
			case 'f':
				e = '\f'
			case 'n':
				e = '\n'
			case 'r':
				e = '\r'
			case 't':
				e = '\t'
			}
			add(rune(e))
		case c < utf8.RuneSelf:
			s.i++
			add(rune(c))
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n == 1 {
				msg = msgInvalidUTF8
			}
			add(r)
			s.i += n
		}
	}
	return string(out), msg
}

// hex4 reads the four hex digits of a \u escape at i.
func (s *textScanner) hex4(i int) (rune, bool) {
	if i+4 > len(s.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[i:i+4]), 16, 32)
	return rune(v), err == nil
}

// checkQueryText names in fields each query parameter whose name or value
// is not valid UTF-8 once decoded (a %FF), or holds a NUL (%00), which a
// body may not hold either and no stored text can. A parameter named is
// taken out of q, so that what reads q next does not name it again with a
// message about its format.
func checkQueryText(q url.Values, fields map[string]string) {
	for name, vs := range q {
		if msg := queryTextProblem(name); msg != "" {
			fields[name] = "the parameter name " + msg
			delete(q, name)
			continue
		}
		for _, v := range vs {
			if msg := queryTextProblem(v); msg != "" {
				fields[name] = msg
				delete(q, name)
				break
			}
		}
	}
}

// msgNUL is what a parameter holding a NUL is told.
const msgNUL = "must not contain a NUL character (%00)"

func queryTextProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return msgInvalidUTF8
	case strings.IndexByte(s, 0) >= 0:
		return msgNUL
	}
	return ""
}
