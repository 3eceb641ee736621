package storagetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop/storage"
)

// moveTests run on a store that is a storage.MoveStorage; on another they
// are skipped.
var moveTests = []test{
	{"PutMove keeps a move per key, a put under a key replacing it, apart by account", testPutMoves},
	{"PutMove holds an account to its limit, however many puts run at once", testMovesLimit},
	{"EraseAccount removes the account's moves and no other account's", testEraseMoves},
}

// moves returns f's store as a storage.MoveStorage, or skips the test.
func (f *fixture) moves(t *testing.T) storage.MoveStorage {
	t.Helper()
	m, ok := f.s.(storage.MoveStorage)
	if !ok {
		t.Skip("the store is no storage.MoveStorage")
	}
	return m
}

// wantMoves fails t unless the account's moves are want.
func (f *fixture) wantMoves(t *testing.T, m storage.MoveStorage, account string, want map[string][]byte) {
	t.Helper()
	got, err := m.Moves(f.ctx, account)
	if err != nil {
		t.Fatalf("Moves(%s): %v", account, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Moves(%s) (-want +got):\n%s", account, d)
	}
}

func testPutMoves(t *testing.T, f *fixture) {
	m := f.moves(t)
	f.wantMoves(t, m, acctA, map[string][]byte{})
	// Keys and moves are bytes as the service gives them, a NUL among them.
	must(t, "PutMove", m.PutMove(f.ctx, acctA, "from\x00jane", []byte(`{"to":1}`), 2))
	must(t, "PutMove", m.PutMove(f.ctx, acctA, "from\x00", []byte(`{"to":2}`), 2))
	must(t, "PutMove", m.PutMove(f.ctx, acctB, "from\x00jane", []byte(`{"to":3}`), 2))
	must(t, "PutMove again", m.PutMove(f.ctx, acctA, "from\x00jane", []byte(`{"to":4}`), 2))
	f.wantMoves(t, m, acctA, map[string][]byte{"from\x00jane": []byte(`{"to":4}`), "from\x00": []byte(`{"to":2}`)})
	f.wantMoves(t, m, acctB, map[string][]byte{"from\x00jane": []byte(`{"to":3}`)})
}

func testMovesLimit(t *testing.T, f *fixture) {
	m := f.moves(t)
	const limit, puts = 3, 12
	var wg sync.WaitGroup
	errs := make([]error, puts)
	for i := range puts {
		wg.Go(func() { errs[i] = m.PutMove(f.ctx, acctA, fmt.Sprint("k", i), []byte("{}"), limit) })
	}
	wg.Wait()
	stored := 0
	for _, err := range errs {
		switch {
		case err == nil:
			stored++
		case !errors.Is(err, storage.ErrLimit):
			t.Errorf("PutMove: %v, want nil or ErrLimit", err)
		}
	}
	got, err := m.Moves(f.ctx, acctA)
	if err != nil {
		t.Fatal(err)
	}
	if stored != limit || len(got) != limit {
		t.Errorf("%d puts at once under a limit of %d: %d stored, %d kept", puts, limit, stored, len(got))
	}
	var kept string
	for k := range got {
		kept = k
	}
	must(t, "PutMove under a key kept, at the limit", m.PutMove(f.ctx, acctA, kept, []byte("{}"), limit))
	if err := m.PutMove(f.ctx, acctA, "one more", []byte("{}"), limit); !errors.Is(err, storage.ErrLimit) {
		t.Errorf("PutMove past the limit: %v, want ErrLimit", err)
	}
	must(t, "PutMove with no limit", m.PutMove(f.ctx, acctA, "one more", []byte("{}"), 0))
	must(t, "PutMove in another account", m.PutMove(f.ctx, acctB, "one more", []byte("{}"), limit))
}

func testEraseMoves(t *testing.T, f *fixture) {
	m, e := f.moves(t), f.eraser(t)
	must(t, "PutMove", m.PutMove(f.ctx, acctA, "k", []byte("a"), 0))
	must(t, "PutMove", m.PutMove(f.ctx, acctB, "k", []byte("b"), 0))
	must(t, "EraseAccount", e.EraseAccount(f.ctx, acctA))
	f.wantMoves(t, m, acctA, map[string][]byte{})
	f.wantMoves(t, m, acctB, map[string][]byte{"k": []byte("b")})
}
