package idem

import "encoding/json"

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
