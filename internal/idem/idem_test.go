package idem_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/lettershop/lettershop/internal/idem"
	"github.com/lettershop/lettershop/internal/upkeep"
	"github.com/lettershop/lettershop/storage"
)

// The stored form of a Go call's outcome is what stores hold: it must not
// change from one version to the next.
func TestStoredOutcomeBytes(t *testing.T) {
	b, err := idem.EncodeFailure(idem.Failure{Code: 1, Message: "the request is invalid", Fields: map[string]string{"b": "2", "a": "<1>"}})
	if want := `{"error":{"code":1,"message":"the request is invalid","fields":{"a":"\u003c1\u003e","b":"2"}}}`; err != nil || string(b) != want {
		t.Errorf("failure: %s, %v; want %s", b, err, want)
	}
	b, err = idem.EncodeFailure(idem.Failure{Code: 2, Message: "asset a not found"})
	if want := `{"error":{"code":2,"message":"asset a not found"}}`; err != nil || string(b) != want {
		t.Errorf("failure without fields: %s, %v; want %s", b, err, want)
	}
	type asset struct {
		ID   string `json:"id"`
		Name string `json:"name,omitempty"`
	}
	b, err = idem.EncodeValue(&asset{ID: "ast_1", Name: "n"})
	if want := `{"value":{"id":"ast_1","name":"n"}}`; err != nil || string(b) != want {
		t.Errorf("value: %s, %v; want %s", b, err, want)
	}
	b, err = idem.EncodeValue(nil)
	if want := `{"value":null}`; err != nil || string(b) != want {
		t.Errorf("nil: %s, %v; want %s", b, err, want)
	}
	if _, err := idem.EncodeValue(math.NaN()); err == nil {
		t.Error("a value JSON cannot hold was encoded")
	}
}

func TestDecode(t *testing.T) {
	type asset struct {
		ID string `json:"id"`
	}
	var a *asset
	f, err := idem.Decode([]byte(`{"value":{"id":"ast_1"}}`), &a)
	if err != nil || f != nil || a == nil || a.ID != "ast_1" {
		t.Errorf("value: %+v, %+v, %v", a, f, err)
	}
	a = nil
	f, err = idem.Decode([]byte(`{}`), &a)
	if err != nil || f != nil || a != nil {
		t.Errorf("no value: %+v, %+v, %v", a, f, err)
	}
	f, err = idem.Decode([]byte(`{"error":{"code":1,"message":"m","fields":{"a":"b"}}}`), &a)
	if err != nil || f == nil || f.Code != 1 || f.Message != "m" || f.Fields["a"] != "b" || a != nil {
		t.Errorf("failure: %+v, %+v, %v", a, f, err)
	}
	for _, bad := range []string{`{`, `{"value":"x"}`} {
		if _, err := idem.Decode([]byte(bad), &a); err == nil {
			t.Errorf("%s: read", bad)
		}
	}
}

func TestTrimDue(t *testing.T) {
	trims := upkeep.NewCounters(10)
	if _, _, due := idem.TrimDue(trims, "a", 1, 0, 0); due {
		t.Error("due without bounds")
	}
	// Bound 32 outcomes: due at every second outcome; no bound of bytes.
	var dues int
	for range 10 {
		keep, keepBytes, due := idem.TrimDue(trims, "a", 1, 32, 0)
		if keep != 32 || keepBytes != math.MaxInt64 {
			t.Fatalf("bounds %d, %d", keep, keepBytes)
		}
		if due {
			dues++
		}
	}
	if dues != 5 {
		t.Errorf("due %d times in 10 outcomes, want 5", dues)
	}
	// Bound 1600 bytes: due once 100 bytes are stored.
	keep, keepBytes, due := idem.TrimDue(trims, "b", 99, 0, 1600)
	if keep != math.MaxInt || keepBytes != 1600 || due {
		t.Errorf("99 bytes: %d, %d, %v", keep, keepBytes, due)
	}
	if _, _, due := idem.TrimDue(trims, "b", 1, 0, 1600); !due {
		t.Error("100 bytes: not due")
	}
}

func TestFingerprint(t *testing.T) {
	// The parts are told apart by their lengths.
	if idem.Fingerprint([]byte("ab"), []byte("c")) == idem.Fingerprint([]byte("a"), []byte("bc")) {
		t.Error("ab|c and a|bc share a fingerprint")
	}
	// Stores keep fingerprints across versions: the value is pinned.
	if got, want := idem.Fingerprint([]byte("createLetter"), []byte("{}")), "e9b106b20449fbcf2c24d6d48874945233a0f9260457d6bc9a22dc180f4a0dc3"; got != want {
		t.Errorf("fingerprint %s, want %s", got, want)
	}
	if got, want := idem.Fingerprint(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Errorf("no parts: %s, want SHA-256 of nothing %s", got, want)
	}
}

func TestKeyDigest(t *testing.T) {
	d := idem.KeyDigest([]byte("k1"), "sk_test_x")
	if d != idem.KeyDigest([]byte("k1"), "sk_test_x") || d == idem.KeyDigest([]byte("k2"), "sk_test_x") ||
		d == idem.KeyDigest([]byte("k1"), "sk_test_y") || len(d) != 64 {
		t.Errorf("digest %s", d)
	}
}

type outcome []byte

func (o outcome) CloneDocument() storage.Document { return append(outcome{}, o...) }
func (o outcome) EncodeDocument() ([]byte, error) { return o, nil }
func (o outcome) OutcomeSize() int                { return len(o) }

// The first write under a claim that succeeds carries its completion; a
// write without a claim, or after it, carries none.
func TestComplete(t *testing.T) {
	encode := func(v any, err error) (outcome, bool) {
		s, ok := v.(string)
		return outcome(s), ok
	}
	write := func(want bool, fail error) func(*storage.Completion) (int, error) {
		return func(c *storage.Completion) (int, error) {
			if (c != nil) != want {
				t.Errorf("completion %+v, want one: %v", c, want)
			}
			return 1, fail
		}
	}
	ctx := context.Background()
	if idem.Claimed(ctx) {
		t.Error("a bare context is claimed")
	}
	if _, err := idem.Complete[outcome](ctx, "x", write(false, nil)); err != nil {
		t.Fatal(err)
	}
	c := idem.NewClaim("acct", "scope", "key", "tok", encode)
	ctx = idem.WithClaim(ctx, c)
	if !idem.Claimed(ctx) {
		t.Error("not claimed")
	}
	// Not kept: no completion.
	if _, err := idem.Complete[outcome](ctx, 1, write(false, nil)); err != nil {
		t.Fatal(err)
	}
	// A failed write leaves the claim open.
	if _, err := idem.Complete[outcome](ctx, "x", write(true, errors.New("boom"))); err == nil {
		t.Fatal("the write's error was lost")
	}
	if _, done := c.Result(); done {
		t.Fatal("completed by a failed write")
	}
	n, err := idem.Complete[outcome](ctx, "first", func(comp *storage.Completion) (int, error) {
		if comp == nil || comp.Account != "acct" || comp.Scope != "scope" || comp.Key != "key" || comp.Token != "tok" || comp.Size != 5 || string(comp.Result.(outcome)) != "first" {
			t.Errorf("completion %+v", comp)
		}
		return 2, nil
	})
	if n != 2 || err != nil {
		t.Fatalf("%d, %v", n, err)
	}
	if out, done := c.Result(); !done || string(out) != "first" {
		t.Errorf("result %q, %v", out, done)
	}
	if _, err := idem.Complete[outcome](ctx, "second", write(false, nil)); err != nil {
		t.Fatal(err)
	}
}

// Replay reads an outcome special reads as its value, which must be of the
// type asked; any other from its stored bytes.
func TestReplay(t *testing.T) {
	special := func(d storage.Document) (any, bool, error) {
		switch string(d.(outcome)) {
		case "special":
			return "kept", true, nil
		case "broken":
			return nil, true, errors.New("broken")
		}
		return nil, false, nil
	}
	if v, f, err := idem.Replay[string](outcome("special"), special); v != "kept" || f != nil || err != nil {
		t.Errorf("special: %q, %+v, %v", v, f, err)
	}
	if v, _, err := idem.Replay[int](outcome("special"), special); err == nil || v != 0 {
		t.Errorf("special of another type: %d, %v", v, err)
	}
	if _, _, err := idem.Replay[string](outcome("broken"), special); err == nil || err.Error() != "broken" {
		t.Errorf("broken special: %v", err)
	}
	if v, f, err := idem.Replay[string](outcome(`{"value":"v"}`), special); v != "v" || f != nil || err != nil {
		t.Errorf("value: %q, %+v, %v", v, f, err)
	}
	if _, f, err := idem.Replay[string](outcome(`{"error":{"code":3,"message":"m"}}`), special); f == nil || f.Code != 3 || err != nil {
		t.Errorf("failure: %+v, %v", f, err)
	}
	if _, _, err := idem.Replay[string](outcome(`{"value":1}`), special); err == nil {
		t.Error("a value of another type read")
	}
}

// A Go call's fingerprint is of its operation and its input's JSON: stores
// keep it across versions.
func TestCallFingerprint(t *testing.T) {
	got, err := idem.CallFingerprint("createLetter", struct{}{})
	if want := idem.Fingerprint([]byte("createLetter"), []byte("{}")); err != nil || got != want {
		t.Errorf("%s, %v; want %s", got, err, want)
	}
	other, _ := idem.CallFingerprint("createLetter", map[string]int{"a": 1})
	if other == got {
		t.Error("another input, the same fingerprint")
	}
	if _, err := idem.CallFingerprint("op", math.Inf(1)); err == nil {
		t.Error("an input JSON cannot hold was fingerprinted")
	}
}

func TestKey(t *testing.T) {
	ctx := context.Background()
	if k := idem.Key(ctx); k != "" {
		t.Errorf("a bare context carries key %q", k)
	}
	if k := idem.Key(idem.WithKey(ctx, "k1")); k != "k1" {
		t.Errorf("key %q, want k1", k)
	}
}
