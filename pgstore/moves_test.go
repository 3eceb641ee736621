package pgstore_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/storage"
)

// TestTwoServersShareMoves: an NCOA move registered through one server
// forwards the letters made and updated through the other, a move
// registered again through the other replaces it for both, and an erase
// through either takes the moves for both.
func TestTwoServersShareMoves(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	ctx := t.Context()
	asset := publishedAsset(t, a)
	move := func(srv server, to string) {
		t.Helper()
		if err := srv.svc.RegisterMove(ctx, acct, lettershop.Move{Name: "Bob Recipient",
			From: lettershop.AddressInput{AddressLine1: "1 Main St", LastLine: "San Francisco CA 94107"},
			To:   lettershop.AddressInput{AddressLine1: to, LastLine: "Springfield, IL 62701"}}); err != nil {
			t.Fatalf("RegisterMove: %v", err)
		}
	}
	forwarded := func(srv server) string {
		t.Helper()
		in := letterInput(asset.ID)
		in.Options = &lettershop.LetterOptions{AddressProcessing: &lettershop.AddressProcessing{NcoaRecipient: lettershop.NcoaNewAddress}}
		l, err := srv.svc.CreateLetter(ctx, acct, in)
		if err != nil {
			t.Fatalf("CreateLetter: %v", err)
		}
		return l.Recipient.Address.AddressLine1
	}
	if got := forwarded(b); got != "1 Main St" {
		t.Fatalf("with no move registered, the recipient went to %q", got)
	}
	move(a, "300 S 2nd St")
	if got := forwarded(b); got != "300 S 2nd St" {
		t.Errorf("a letter made through b after a move registered through a went to %q, want 300 S 2nd St", got)
	}
	move(b, "5 Elm St")
	for name, srv := range map[string]server{"a": a, "b": b} {
		if got := forwarded(srv); got != "5 Elm St" {
			t.Errorf("a letter made through %s after the move was registered again through b went to %q, want 5 Elm St", name, got)
		}
	}
	if err := b.svc.EraseAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	asset = publishedAsset(t, a)
	if got := forwarded(a); got != "1 Main St" {
		t.Errorf("after an erase through b, a letter made through a went to %q, want its own address", got)
	}
}

// TestMovesBounded: an account holds MaxMovesPerAccount moves however
// many servers register them, a move registered again under its key
// replacing the one it had; one more is a conflict. PutMove's limit holds
// when puts run at once.
func TestMovesBounded(t *testing.T) {
	t.Parallel()
	schema, a, b := twoServers(t)
	ctx := t.Context()
	if _, err := adminConn(t, schema).Exec(ctx, `INSERT INTO moves (account, key, move)
		SELECT $1, convert_to('k' || i, 'UTF8'), '{}' FROM generate_series(1, $2) AS i`, acct, lettershop.MaxMovesPerAccount-1); err != nil {
		t.Fatal(err)
	}
	m := func(line string) lettershop.Move {
		return lettershop.Move{From: lettershop.AddressInput{AddressLine1: line, LastLine: "Springfield, IL 62701"},
			To: lettershop.AddressInput{AddressLine1: "9 Far Rd", LastLine: "Chicago, IL 60601"}}
	}
	if err := a.svc.RegisterMove(ctx, acct, m("1 Last St")); err != nil {
		t.Fatalf("the %dth move: %v", lettershop.MaxMovesPerAccount, err)
	}
	if err := b.svc.RegisterMove(ctx, acct, m("1 Last Street")); err != nil {
		t.Errorf("the last move registered again, written otherwise, at the bound: %v", err)
	}
	var e *lettershop.Error
	if err := b.svc.RegisterMove(ctx, acct, m("2 More St")); !errors.As(err, &e) || e.Code != lettershop.CodeConflict {
		t.Errorf("a move past the bound: %v, want a conflict", err)
	}
	if err := b.svc.RegisterMove(ctx, "acct_other", m("2 More St")); err != nil {
		t.Errorf("another account's move: %v", err)
	}

	const limit, puts = 3, 12
	var wg sync.WaitGroup
	var mu sync.Mutex
	var stored, refused int
	for i := range puts {
		wg.Go(func() {
			err := []server{a, b}[i%2].store.PutMove(ctx, "acct_race", fmt.Sprint("key", i), []byte("{}"), limit)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				stored++
			case errors.Is(err, storage.ErrLimit):
				refused++
			default:
				t.Errorf("PutMove: %v", err)
			}
		})
	}
	wg.Wait()
	got, err := a.store.Moves(ctx, "acct_race")
	if err != nil {
		t.Fatal(err)
	}
	if stored != limit || refused != puts-limit || len(got) != limit {
		t.Errorf("%d puts at once under a limit of %d: %d stored, %d refused, %d kept", puts, limit, stored, refused, len(got))
	}
}
