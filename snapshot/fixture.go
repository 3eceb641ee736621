package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// A fixture is a file of snapshots a server starts from: one snapshot, as
// GET /_test/snapshot answers it, or a JSON array of them. Each is
// restored with its ids into the account it was taken from, its Account:
// the account of the API key it was taken with, which that key reaches
// again.

// ReadFixture reads the fixture file at path; see DecodeFixture.
func ReadFixture(path string) ([]*Snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeFixture(b)
}

// DecodeFixture reads a fixture: one snapshot (a JSON object) or a JSON
// array of them, each checked as Restore would check it and naming its
// account, no two the same. An error says where the fixture is wrong: the
// field ("[2].letters[3].id" in an array, "letters[3].id" in one
// snapshot), or the line and column of JSON that does not parse.
func DecodeFixture(b []byte) ([]*Snapshot, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 {
		return nil, errors.New("the fixture is empty; want a snapshot (a JSON object, as GET /_test/snapshot answers it) or a JSON array of them")
	}
	var snaps []*Snapshot
	switch t[0] {
	case '{':
		s, err := decodeOne(b, 0, "")
		if err != nil {
			return nil, err
		}
		snaps = []*Snapshot{s}
	case '[':
		var raw []json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, jsonError(b, 0, "", err)
		}
		if len(raw) == 0 {
			return nil, errors.New("the fixture is an empty array; want one snapshot at least")
		}
		// Where each snapshot begins, so that an error in one says where
		// it is in the file.
		dec := json.NewDecoder(bytes.NewReader(b))
		_, _ = dec.Token()
		for i := range raw {
			base := dec.InputOffset()
			for base < int64(len(b)) && bytes.IndexByte([]byte(" \t\r\n,"), b[base]) >= 0 {
				base++
			}
			var skip json.RawMessage
			_ = dec.Decode(&skip)
			s, err := decodeOne(b, base, fmt.Sprintf("[%d]", i))
			if err != nil {
				return nil, err
			}
			snaps = append(snaps, s)
		}
	default:
		return nil, fmt.Errorf("the fixture begins with %q; want a snapshot (a JSON object, as GET /_test/snapshot answers it) or a JSON array of them", t[:1])
	}
	accounts := make(map[string]int, len(snaps))
	for i, s := range snaps {
		if j, ok := accounts[s.Account]; ok {
			return nil, &FieldError{Field: fmt.Sprintf("[%d].account", i),
				Message: fmt.Sprintf("%q is the account of snapshot [%d] too; an account restores one snapshot", s.Account, j)}
		}
		accounts[s.Account] = i
	}
	return snaps, nil
}

// decodeOne decodes and checks the snapshot at offset base of the
// fixture b; at is where it stands in the fixture ("[2]", or "" for the
// whole).
func decodeOne(b []byte, base int64, at string) (*Snapshot, error) {
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(b[base:]))
	if err := dec.Decode(&s); err != nil {
		return nil, jsonError(b, base, at, err)
	}
	if at == "" {
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the fixture goes on after its snapshot, at offset %d; want one snapshot or a JSON array of them", base+dec.InputOffset())
		}
	}
	if s.Format == "" && s.Account == "" && len(s.Letters)+len(s.Assets)+len(s.Webhooks) == 0 {
		return nil, &FieldError{Field: field(at, "format"), Message: fmt.Sprintf("missing: not a lettershop snapshot, which begins {\"format\": %q, ...}", Format)}
	}
	if err := s.Check(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, &FieldError{Field: field(at, fe.Field), Message: fe.Message}
		}
		return nil, err
	}
	if s.Account == "" {
		return nil, &FieldError{Field: field(at, "account"), Message: "is required: the account the snapshot is restored into"}
	}
	return &s, nil
}

// field is name within the snapshot at at.
func field(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// jsonError says where in the fixture b the JSON error err, of the part
// that begins at base, is, by line and column, and in which snapshot.
func jsonError(b []byte, base int64, at string, err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
		offset int64 = -1
	)
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
		if typ.Field != "" {
			err = fmt.Errorf("%s: a JSON %s cannot be a %s", field(at, typ.Field), typ.Value, typ.Type)
			at = ""
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("it ends in the middle of a snapshot: %w", err)
	}
	if at != "" {
		err = fmt.Errorf("%s: %w", at, err)
	}
	offset += base
	if offset < base || offset > int64(len(b)) {
		return fmt.Errorf("the fixture is not JSON as a snapshot is: %w", err)
	}
	// The offset is past the byte the parser stopped at: the one that is
	// wrong, or the last of a value of the wrong type.
	line, col := 1, 0
	for _, c := range b[:offset] {
		if c == '\n' {
			line, col = line+1, 0
		} else {
			col++
		}
	}
	col = max(col, 1)
	return fmt.Errorf("the fixture is not JSON as a snapshot is, at line %d, column %d: %w", line, col, err)
}
