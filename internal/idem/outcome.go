package idem

import (
	"encoding/json"
	"fmt"

	"github.com/lettershop/lettershop/storage"
)

// stored is how an idempotent Go call's outcome is kept: the JSON of the
// value it returned, or the error it failed with.
type stored struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error *Failure        `json:"error,omitempty"`
}

// Failure is the error of a call as its stored outcome keeps it: its code
// (a lettershop.Code), message and field errors.
type Failure struct {
	Code    int               `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// EncodeValue returns the stored outcome of a call that returned v, kept
// as its JSON.
func EncodeValue(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(stored{Value: b})
}

// EncodeFailure returns the stored outcome of a call that failed with f.
func EncodeFailure(f Failure) ([]byte, error) {
	return json.Marshal(stored{Error: &f})
}

// Decode reads a stored outcome: the failure it keeps, if any; else it
// reads the value it keeps into v, a pointer, left as it is when the
// outcome keeps no value.
func Decode(data []byte, v any) (*Failure, error) {
	var out stored
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	if out.Error != nil {
		return out.Error, nil
	}
	if len(out.Value) > 0 {
		if err := json.Unmarshal(out.Value, v); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// Replay reads a stored outcome of an idempotent Go call that returns a T:
// the value kept, or the failure. An outcome special reads (ok true) is
// its value, which must be a T; any other is read by Decode, from the
// bytes of its EncodeDocument.
func Replay[T any](stored storage.Document, special func(storage.Document) (v any, ok bool, err error)) (T, *Failure, error) {
	if s, ok, err := special(stored); ok {
		t, isT := s.(T)
		if err == nil && !isT {
			err = fmt.Errorf("a %T, for a %T", s, t)
		}
		return t, nil, err
	}
	return replayDecoded[T](stored)
}

// replayDecoded is Replay of an outcome Decode reads. (Apart, so that a
// special outcome does not allocate the value Decode reads into.)
func replayDecoded[T any](stored storage.Document) (T, *Failure, error) {
	var v T
	data, err := storage.EncodeDocument(stored)
	if err != nil {
		return v, nil, err
	}
	failure, err := Decode(data, &v)
	return v, failure, err
}
