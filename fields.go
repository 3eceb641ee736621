package lettershop

// The checks of a request's fields: problems are collected, all of them,
// before a request is refused, each under the path of its field.

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lettershop/lettershop/internal/echo"
)

// fieldErrors collects every problem with a request before it is refused,
// so the caller learns them all at once (up to MaxFieldErrors of them).
// The first message for a path wins.
type fieldErrors map[string]string

func (f fieldErrors) add(path, format string, args ...any) {
	path = echo.Cut(path, MaxFieldPath)
	if _, ok := f[path]; ok || len(f) >= MaxFieldErrors {
		return
	}
	f[path] = echo.Cut(fmt.Sprintf(format, args...), MaxFieldMessage)
}

// err returns nil when nothing was collected, else an invalid-input Error.
func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Message: "the request is invalid", Fields: map[string]string(f)}
}

// id checks that id is one of the prefix's ids, a problem at path when
// it is not, and reports whether it is.
func (f fieldErrors) id(path, prefix, id string) bool {
	if !ValidID(prefix, id) {
		f.add(path, "must be %s followed by letters and digits", prefix)
		return false
	}
	return true
}

// idErr is the invalid-input Error of an id at path that is not one of
// the prefix's ids, or nil for one that is. Every read by id passes here:
// the problem's map is made only for an id that has one.
func idErr(path, prefix, id string) error {
	if ValidID(prefix, id) {
		return nil
	}
	f := fieldErrors{}
	f.id(path, prefix, id)
	return f.err()
}

// accountErr is CodeInvalid naming account when account is "": nothing is
// stored under no account.
func accountErr(account string) error {
	if account != "" {
		return nil
	}
	return invalidField("account", "an account is required")
}

// invalidField is an invalid-input Error about one field.
func invalidField(path, format string, args ...any) *Error {
	f := fieldErrors{}
	f.add(path, format, args...)
	return f.err().(*Error) //nolint:errorlint // err returns the *Error it built, never wrapped
}

// maxLen checks a text field: at most n characters, and text a store can
// keep (valid UTF-8 without NUL).
func maxLen(f fieldErrors, path, v string, n int) {
	if msg := badText(v); msg != "" {
		f.add(path, "%s", msg)
	} else if c := utf8.RuneCountInString(v); c > n {
		f.add(path, "must be at most %d characters, got %d", n, c)
	}
}

// maxLenAt is maxLen at path+sub; the path is made only for a problem,
// as a letter's parties have a score of fields and rarely a problem.
func maxLenAt(f fieldErrors, path, sub, v string, n int) {
	if len(v) <= n && badText(v) == "" {
		return // no more bytes than n, so no more characters
	}
	maxLen(f, path+sub, v, n)
}

// badText says what is wrong with text no field may hold, or "".
func badText(v string) string {
	switch {
	case !utf8.ValidString(v):
		return "must be valid UTF-8 text"
	case strings.IndexByte(v, 0) >= 0:
		return "must not contain a NUL character"
	}
	return ""
}

// enum checks that v is one of allowed.
func enum[T ~string](f fieldErrors, path string, v T, allowed []T) {
	if !slices.Contains(allowed, v) {
		f.add(path, "must be one of %s, got %s", joinEnum(allowed), echo.Quote(string(v)))
	}
}

// joinEnum lists the values of an enumeration for a message: "a, b, c".
func joinEnum[T ~string](vs []T) string { return joinEnumWith(vs, ", ") }

func joinEnumWith[T ~string](vs []T, sep string) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, sep)
}

// InputProblems returns the problems with in, the input of an operation
// that takes a request's body (CreateLetterInput, UpdateLetterInput,
// CreateAssetInput, UpdateAssetInput, CreateVersionInput,
// UpdateVersionInput, CloneVersionInput, CreateWebhookInput or
// UpdateWebhookInput), that are found without the account's stored
// objects: required fields left out, values outside their enumerations or
// limits, named by path as the operation names them. The operation checks
// these and more; InputProblems is for a body that cannot be taken whole
// (a value of the wrong JSON type), so that the problems with the rest of
// it are told in the same answer rather than after the first is mended.
// It stores nothing and reads no stored object (a send date is judged on
// the account's clock, as the Service holds it). nil is no problem found,
// and so is in of another type.
func (s *Service) InputProblems(account string, in any) map[string]string {
	f := fieldErrors{}
	switch in := in.(type) {
	case CreateLetterInput:
		s.checkCreateLetter(account, in, f)
	case UpdateLetterInput:
		// Only what an update checks whatever the stored letter holds: a
		// party or send date given as stored is no change, and is not
		// checked again.
		checkUpdateLetter(f, in)
		if in.Options != nil {
			normalizeOptions(in.Options, f)
		}
	case CreateAssetInput:
		checkCreateAsset(f, in)
	case UpdateAssetInput:
		checkUpdateAsset(f, in)
	case CreateVersionInput:
		maxLen(f, "notes", in.Notes, MaxVersionNotes)
		validateDefinitions("variableDefinitions", in.VariableDefinitions, f)
	case UpdateVersionInput:
		if in.Notes != nil {
			maxLen(f, "notes", *in.Notes, MaxVersionNotes)
		}
		if in.VariableDefinitions != nil {
			validateDefinitions("variableDefinitions", *in.VariableDefinitions, f)
		}
	case CloneVersionInput:
		if in.Notes != nil {
			maxLen(f, "notes", *in.Notes, MaxVersionNotes)
		}
	case CreateWebhookInput:
		s.checkCreateWebhook(f, in)
	case UpdateWebhookInput:
		checkUpdateWebhook(f, in)
	}
	if len(f) == 0 {
		return nil
	}
	return f
}
