package lettershop

import (
	"fmt"
	"unicode/utf8"

	"github.com/lettershop/lettershop/internal/echo"
	"github.com/lettershop/lettershop/internal/pairjson"
)

// Metadata limits, from the specification.
const (
	MaxMetadataPairs = 20
	// Keys are shorter than 64 characters, values shorter than 512.
	MaxMetadataKeyLen   = 63
	MaxMetadataValueLen = 511
)

// Metadata is a list of caller-defined key-value pairs kept on an object.
// Values are strings (an empty value is a flag); nested values are refused.
// An update replaces the whole list.
type Metadata []MetadataPair

// MetadataPair is one metadata entry.
type MetadataPair struct {
	Key   string `json:"key"`
	Value string `json:"value"`

	// problem is set when the pair arrived in a form that cannot be kept
	// (a number, an object); validate reports it with every other problem,
	// under the pair's path followed by problemAt (".value").
	problem, problemAt string
}

// UnmarshalJSON accepts {"key": string, "value": string}. Values of another
// JSON type are remembered as invalid rather than failing the whole
// decoding, so the caller hears about them together with the rest
// (package internal/pairjson reads the pair).
func (p *MetadataPair) UnmarshalJSON(b []byte) error {
	pairjson.Read(b, &p.Key, &p.Value, &p.problemAt, &p.problem)
	return nil
}

// validate adds every problem with m under the field name path.
func (m Metadata) validate(path string, f fieldErrors) {
	if len(m) > MaxMetadataPairs {
		f.add(path, "at most %d pairs are allowed, got %d", MaxMetadataPairs, len(m))
	}
	// The path of a pair (metadata[3]) is made only for a problem: a
	// letter's pairs are checked on every create, and nearly always fine.
	at := func(i int) string { return fmt.Sprintf("%s[%d]", path, i) }
	// A list over the limit may still be long: its duplicates are found
	// through a map, a short list's by a scan, cheaper than the map.
	var seen map[string]int
	if len(m) > 2*MaxMetadataPairs {
		seen = make(map[string]int, len(m))
	}
	for i, p := range m {
		if p.problem != "" {
			f.add(at(i)+p.problemAt, "%s", p.problem)
			continue
		}
		switch n := utf8.RuneCountInString(p.Key); {
		case badText(p.Key) != "":
			f.add(at(i)+".key", "%s", badText(p.Key))
		case n == 0:
			f.add(at(i)+".key", "key can not be empty")
		case n > MaxMetadataKeyLen:
			f.add(at(i)+".key", "key must be shorter than %d characters, got %d", MaxMetadataKeyLen+1, n)
		}
		if msg := badText(p.Value); msg != "" {
			f.add(at(i)+".value", "%s", msg)
		} else if n := utf8.RuneCountInString(p.Value); n > MaxMetadataValueLen {
			f.add(at(i)+".value", "value must be shorter than %d characters, got %d", MaxMetadataValueLen+1, n)
		}
		if j, dup := firstWithKey(m, i, seen); dup {
			f.add(at(i)+".key", "key %s is already used by %s[%d]", echo.Quote(p.Key), path, j)
		}
	}
}

// CheckFilter adds to fields the problems of m as a list's metadata filter,
// under the names of its query parameters (metadata[key]): an empty key, a
// key given twice, more pairs than an object holds (no object matches).
// The Service checks its lists' filters so; the HTTP API checks its query's.
func (m Metadata) CheckFilter(fields map[string]string) {
	f := fieldErrors(fields)
	if len(m) > MaxMetadataPairs {
		f.add("metadata", "at most %d metadata filters, as an object holds at most %d pairs, got %d", MaxMetadataPairs, MaxMetadataPairs, len(m))
	}
	seen := make(map[string]bool, len(m))
	for _, p := range m {
		switch name := "metadata[" + p.Key + "]"; {
		case p.Key == "":
			f.add(name, "filter by metadata as metadata[key]=value")
		case seen[p.Key]:
			f.add(name, "give one value per metadata key")
		}
		seen[p.Key] = true
	}
}

// firstWithKey returns the first pair before m[i] without a problem that
// has m[i]'s key, looked up in seen when there is one, which it then
// keeps up to date.
func firstWithKey(m Metadata, i int, seen map[string]int) (int, bool) {
	if seen != nil {
		j, dup := seen[m[i].Key]
		if !dup {
			seen[m[i].Key] = i
		}
		return j, dup
	}
	for j, q := range m[:i] {
		if q.Key == m[i].Key && q.problem == "" {
			return j, true
		}
	}
	return 0, false
}

// clone returns a copy that shares nothing with m; never nil, so an object
// without metadata shows an empty list.
func (m Metadata) clone() Metadata {
	out := make(Metadata, len(m))
	for i, p := range m {
		out[i] = MetadataPair{Key: p.Key, Value: p.Value}
	}
	return out
}
