package httpadapter

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/echo"
)

// decodeJSON decodes a request body into dst, a pointer to a struct. It
// checks the body against dst's shape first, so that every unknown field
// and wrongly typed value is reported at once under its field path
// (recipient.address.zipCode, variables[0].value), the way the service
// reports its own validation errors.
func decodeJSON(body []byte, dst any) error { return decodeInput(body, dst, nil) }

// decodeInput is decodeJSON for the input of an operation, whose own
// checks (problems, as Service.InputProblems) are told beside the
// problems with a body of the wrong shape: the rest of the body, each
// value of the wrong shape left out, is decoded and checked, so that a
// client learns in one answer of a required field it left out as well as
// of one it gave a string for. A problem at or under the path of a shape
// problem is the shape's own (recipient: 5 is not also "recipient is
// required"). problems is nil for no checks beyond the shape.
func decodeInput(body []byte, dst any, problems func(any) map[string]string) error {
	if fastCheck(body, reflect.TypeOf(dst).Elem()) {
		if err := gojson.Unmarshal(body, dst); err == nil {
			return nil
		}
		// A value out of its type's range ({"count":1e99}): the full check
		// says so as it always has, from a fresh value.
		reflect.ValueOf(dst).Elem().SetZero()
	}
	fields, err := decodeFull(body, dst, problems != nil)
	if fields == nil {
		return err
	}
	// A body that is not an object at all (a JSON text sent as a string)
	// is told alone: "sender is required" would be noise beside it.
	if _, whole := fields["body"]; !whole {
		for path, msg := range problems(reflect.ValueOf(dst).Elem().Interface()) {
			if !underShapeProblem(path, fields) {
				fields[path] = msg
			}
		}
	}
	reflect.ValueOf(dst).Elem().SetZero()
	return invalidFields(fields)
}

// underShapeProblem reports whether path is one of fields' paths, or a
// member or element of one: the paths of a body's shape are spelled as
// the service's problems are.
func underShapeProblem(path string, fields map[string]string) bool {
	for p := path; p != ""; {
		if _, ok := fields[p]; ok {
			return true
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return false
}

// decodeJSONChecked is decodeJSON for a body the fast path (fastCheck) did
// not accept: it finds and names every problem.
func decodeJSONChecked(body []byte, dst any) error {
	_, err := decodeFull(body, dst, false)
	return err
}

// decodeFull is decodeJSONChecked. With partial, a body that is one JSON
// value of valid text but of the wrong shape is decoded into dst all the
// same, each value of the wrong shape (and each unknown member) left out,
// and its shape's problems are returned, err nil; dst is then for
// checking only.
func decodeFull(body []byte, dst any, partial bool) (shape map[string]string, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, invalid("body", "a JSON object is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalid("body", "malformed JSON: %s", jsonSyntaxMessage(err, body))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalid("body", "malformed JSON: more than one JSON value")
	}
	if err := checkBodyText(body); err != nil {
		return nil, err
	}
	fields := map[string]string{}
	t := reflect.TypeOf(dst).Elem()
	checkShape(v, t, "", fields)
	if len(fields) > 0 {
		if !partial {
			return nil, invalidFields(fields)
		}
		rest, err := json.Marshal(withoutShapeProblems(v, t, "", fields))
		if err != nil || json.Unmarshal(rest, dst) != nil {
			// What is left does not decode (a number out of its
			// type's range): the shape's problems alone are told.
			reflect.ValueOf(dst).Elem().SetZero()
			return nil, invalidFields(fields)
		}
		return fields, nil
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return nil, invalid("body", "%v", err)
	}
	return nil, nil
}

// withoutShapeProblems returns v, decoded generically and checked against
// t by checkShape, with each value at a path of fields made null: a
// member's null is a member left out, and an element's keeps the others
// at their places (variables[2] stays variables[2]). v is changed in
// place.
func withoutShapeProblems(v any, t reflect.Type, path string, fields map[string]string) any {
	at := path
	if at == "" {
		at = "body"
	}
	if _, ok := fields[at]; ok || v == nil {
		return nil
	}
	t = shapeOf(t)
	if t == nil || t == timeType {
		return v
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, _ := v.(map[string]any)
		known := structFields(t)
		for name, val := range obj {
			obj[name] = withoutShapeProblems(val, known[name], joinPath(path, name), fields)
		}
	case reflect.Map:
		obj, _ := v.(map[string]any)
		for k, val := range obj {
			obj[k] = withoutShapeProblems(val, t.Elem(), joinPath(path, k), fields)
		}
	case reflect.Slice, reflect.Array:
		if arr, ok := v.([]any); ok {
			for i, e := range arr {
				arr[i] = withoutShapeProblems(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), fields)
			}
		}
	}
	return v
}

func jsonSyntaxMessage(err error, body []byte) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(body[:min(int(se.Offset), len(body))], []byte("\n"))
		return fmt.Sprintf("%s (line %d, byte %d)", strings.TrimPrefix(se.Error(), "json: "), line, se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "the body ends in the middle of a JSON value"
	}
	return err.Error()
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
	enumPkg         = reflect.TypeFor[lettershop.UseType]().PkgPath()
)

// isEnum reports whether t is one of the service's enumerations: the named
// string types of package lettershop (UseType, AssetType, MailService, ...).
// "" is no value of any of them: left out or null, a field takes its
// default; "" is refused, rather than taken for the default as its Go zero
// value would be, which would hide a client's mistake.
func isEnum(t reflect.Type) bool {
	return t != nil && t.Kind() == reflect.String && t.Name() != "" && t.PkgPath() == enumPkg
}

// checkShape compares a decoded JSON value with the Go type it is to be
// decoded into, adding a message for each mismatch under its path. null is
// accepted anywhere, as encoding/json accepts it. Types that decode
// themselves are left to do so, except time.Time, whose error is reported
// under its path.
func checkShape(v any, t reflect.Type, path string, fields map[string]string) {
	if v == nil {
		return
	}
	at := path
	if at == "" {
		at = "body"
	}
	if t == timeType {
		s, ok := v.(string)
		if _, err := time.Parse(time.RFC3339, s); !ok || err != nil {
			fields[at] = "must be a date-time in RFC 3339 form (2026-03-02T15:00:00Z)"
		}
		return
	}
	if t.Kind() != reflect.Pointer && (t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)) {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		checkShape(v, t.Elem(), path, fields)
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			fields[at] = "must be an object, got " + jsonKind(v)
			return
		}
		known := structFields(t)
		for name, val := range obj {
			ft, ok := known[name]
			if !ok {
				fields[joinPath(path, name)] = unknownField(name, known)
				continue
			}
			checkShape(val, ft, joinPath(path, name), fields)
		}
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			// []byte is base64 in JSON, as encoding/json writes it.
			s, ok := v.(string)
			if !ok {
				fields[at] = "must be a base64 string, got " + jsonKind(v)
			} else if _, err := base64.StdEncoding.DecodeString(s); err != nil {
				fields[at] = "must be base64"
			}
			return
		}
		arr, ok := v.([]any)
		if !ok {
			fields[at] = "must be an array, got " + jsonKind(v)
			return
		}
		for i, e := range arr {
			checkShape(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), fields)
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			fields[at] = "must be an object, got " + jsonKind(v)
			return
		}
		for k, e := range obj {
			checkShape(e, t.Elem(), joinPath(path, k), fields)
		}
	case reflect.String:
		if s, ok := v.(string); !ok {
			fields[at] = "must be a string, got " + jsonKind(v)
		} else if s == "" && isEnum(t) {
			fields[at] = "can not be empty: give one of its values, or leave it out (or null) if the field has a default"
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			fields[at] = "must be true or false, got " + jsonKind(v)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			fields[at] = "must be an integer, got " + jsonKind(v)
			return
		}
		if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
			fields[at] = "must be an integer, got " + n.String()
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			fields[at] = "must be a number, got " + jsonKind(v)
		}
	}
}

// unknownField names the field meant when name differs from a known one
// only in case: names are matched exactly, as the real service does.
func unknownField(name string, known map[string]reflect.Type) string {
	for k := range known {
		if strings.EqualFold(k, name) {
			return fmt.Sprintf("unknown field; names are case-sensitive: did you mean %s?", k)
		}
	}
	return "unknown field"
}

// emptyName spells a member whose name is empty in a path: JSON's own
// spelling of it, where the name left out would make a path of nothing
// ({"": 1} named the field "") or of its object alone.
const emptyName = `""`

func joinPath(path, name string) string {
	if name == "" {
		name = emptyName
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return "null"
}

var structFieldsCache sync.Map // reflect.Type -> map[string]reflect.Type

// structFields returns the JSON names of a struct's fields and their types,
// as encoding/json sees them: tags honoured, embedded structs flattened.
func structFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := structFieldsCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for k, v := range structFields(et) {
					if _, ok := m[k]; !ok {
						m[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	structFieldsCache.Store(t, m)
	return m
}

// Query parameters.

// queryParams parses the request's query string. r.URL.Query leaves out a
// parameter it cannot decode; here each such parameter is named in fields,
// so a filter with a bare % (metadata[discount]=50%) is refused rather than
// silently dropped from the list.
func queryParams(r *http.Request, fields map[string]string) url.Values {
	q, err := url.ParseQuery(r.URL.RawQuery)
	checkQueryText(q, fields)
	if err == nil {
		return q
	}
	for pair := range strings.SplitSeq(r.URL.RawQuery, "&") {
		if _, err := url.ParseQuery(pair); err != nil {
			name, _, _ := strings.Cut(pair, "=")
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			msg := "could not be decoded: " + err.Error()
			if errors.As(err, new(url.EscapeError)) {
				msg += "; write a literal % as %25"
			}
			fields[name] = msg
		}
	}
	return q
}

// pageRequest reads pageSize and nextToken.
func pageRequest(q url.Values, fields map[string]string) lettershop.PageRequest {
	var p lettershop.PageRequest
	if s, ok := single(q, "pageSize", fields); ok {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			fields["pageSize"] = "must be an integer, got " + echo.Quote(s)
		case n < 1 || n > lettershop.MaxPageSize:
			fields["pageSize"] = fmt.Sprintf("pageSize must be between 1 and %d, got %d", lettershop.MaxPageSize, n)
		default:
			p.PageSize = n
		}
	}
	p.NextToken, _ = single(q, "nextToken", fields)
	return p
}

// boolParam reads a true/false parameter; absent is false, and given bare
// (?includeArchived, or with an empty value) true.
func boolParam(q url.Values, name string, fields map[string]string) bool {
	s, ok := single(q, name, fields)
	if !ok {
		return false
	}
	if s == "" {
		return true
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		fields[name] = "must be true or false, got " + echo.Quote(s)
	}
	return b
}

// single reads a parameter that takes one value. Given twice it is refused,
// as a metadata filter is: status=queued&status=mailed would otherwise list
// the queued letters alone.
func single(q url.Values, name string, fields map[string]string) (string, bool) {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	if len(vs) > 1 {
		fields[name] = fmt.Sprintf("give one value, got %d", len(vs))
	}
	return vs[0], true
}

// onlyParams names in fields each parameter of q a list does not take: a
// typo (pagesize, metadata=x) must never silently widen a list. known are
// the names the list takes; metadata says it takes metadata[key] filters.
func onlyParams(q url.Values, fields map[string]string, metadata bool, known ...string) {
	for name := range q {
		switch {
		case slices.Contains(known, name):
		case metadata && strings.HasPrefix(name, "metadata["):
			// metadataFilter checks its form.
		case metadata && strings.HasPrefix(name, "metadata"):
			fields[name] = "filter by metadata as metadata[key]=value"
		default:
			fields[name] = unknownParam(name, known, metadata)
		}
	}
}

func unknownParam(name string, known []string, metadata bool) string {
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return fmt.Sprintf("unknown query parameter; names are case-sensitive: did you mean %s?", k)
		}
	}
	takes := strings.Join(known, ", ")
	if metadata {
		takes += ", metadata[key]"
	}
	return "unknown query parameter; this list takes " + takes
}

// metadataFilter reads metadata[key]=value parameters, sorted by key so a
// page token made for a query is good for the same query in any order.
func metadataFilter(q url.Values, fields map[string]string) lettershop.Metadata {
	var m lettershop.Metadata
	for name, vs := range q {
		key, ok := strings.CutPrefix(name, "metadata[")
		if !ok {
			continue
		}
		if key, ok = strings.CutSuffix(key, "]"); !ok {
			fields[name] = "filter by metadata as metadata[key]=value"
			continue
		}
		for _, v := range vs {
			m = append(m, lettershop.MetadataPair{Key: key, Value: v})
		}
	}
	// The filter's own rules (a key, one value a key, how many) are the
	// Service's, for its Go callers too.
	m.CheckFilter(fields)
	slices.SortFunc(m, func(a, b lettershop.MetadataPair) int { return strings.Compare(a.Key, b.Key) })
	return m
}

// checkIDs returns a validation error naming each path parameter that is
// not of its resource's form: a prefix and letters and digits.
func checkIDs(params ...pathID) error {
	fields := map[string]string{}
	addIDProblems(fields, params...)
	return invalidFields(fields)
}

// addIDProblems adds to fields a message for each path parameter that is
// not of its resource's form.
func addIDProblems(fields map[string]string, params ...pathID) {
	for _, p := range params {
		if !lettershop.ValidID(p.prefix, p.value) {
			fields[p.name] = fmt.Sprintf("must be %s followed by letters and digits, got %s", p.prefix, echo.Quote(p.value))
		}
	}
}

// pathID is a path parameter that names an object.
type pathID struct{ name, prefix, value string }

// inputProblems is the Service's checks of an operation's input that need
// no stored object, for decodeInput.
func (h *handler) inputProblems(c *call) func(any) map[string]string {
	return func(in any) map[string]string { return h.svc.InputProblems(c.account, in) }
}
