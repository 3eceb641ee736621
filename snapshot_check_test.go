package lettershop_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/snapshot"
	"github.com/lettershop/lettershop/storage"
)

// TestRestoreChecksRecords checks that a snapshot changed by hand is
// refused, naming the field, when what it would restore could not be
// served: a record whose document refers to content the snapshot does not
// hold (or whose content is not what its hash says), or a status the
// Service never gives. Nothing is written; the snapshot as taken restores.
func TestRestoreChecksRecords(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	if _, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID)); err != nil {
		t.Fatal(err)
	}
	taken, err := e.svc.SnapshotAccount(e.ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(taken)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, field string
		change      func(*snapshot.Snapshot)
	}{
		{"a letter without content", "letters[0].doc", func(s *snapshot.Snapshot) { s.Letters[0].Doc = json.RawMessage(`{}`) }},
		{"a letter that can not be read", "letters[0].doc", func(s *snapshot.Snapshot) { s.Letters[0].Doc = json.RawMessage(`{"events":7}`) }},
		{"no content", "versions[0].doc", func(s *snapshot.Snapshot) { s.Content = nil }},
		{"content not its hash's", "content[0].hash", func(s *snapshot.Snapshot) { s.Content[0].Data = []byte("<p>other</p>") }},
		{"a letter's status unknown", "letters[0].status", func(s *snapshot.Snapshot) { s.Letters[0].Status = "lost" }},
		{"a deleted version", "versions[0].status", func(s *snapshot.Snapshot) { s.Versions[0].Status = "deleted" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var snap snapshot.Snapshot
			if err := json.Unmarshal(b, &snap); err != nil {
				t.Fatal(err)
			}
			tc.change(&snap)
			account := "restored-" + tc.field
			_, err := e.svc.RestoreAccount(e.ctx, account, &snap, lettershop.RestoreOptions{})
			wantFields(t, err, tc.field)
			if page, err := e.svc.ListLetters(e.ctx, account, lettershop.ListLettersInput{}); err != nil || len(page.Items) != 0 {
				t.Errorf("a refused restore wrote %d letters (%v)", len(page.Items), err)
			}
		})
	}
	var snap snapshot.Snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RestoreAccount(e.ctx, "restored", &snap, lettershop.RestoreOptions{}); err != nil {
		t.Fatalf("the snapshot as taken: %v", err)
	}
}

// restoreCounter is a memstore that counts the restores it takes in one
// step (storage.Restorer).
type restoreCounter struct {
	*memstore.Store
	restores atomic.Int32
}

func (s *restoreCounter) RestoreRecords(ctx context.Context, r storage.AccountRecords) error {
	s.restores.Add(1)
	return s.Store.RestoreRecords(ctx, r)
}

// TestRestoreWithHooksTakesOneStep: a Service with hooks (metrics) puts a
// layer in front of its store; a restore still takes the store's one step,
// all or none, rather than writing record by record, and the restored
// letters are not told as created.
func TestRestoreWithHooksTakesOneStep(t *testing.T) {
	st := &restoreCounter{Store: memstore.New()}
	mc := clock.NewMock()
	mc.Set(testStart)
	var created atomic.Int32
	svc := lettershop.New(st, lettershop.WithClock(mc),
		lettershop.WithHooks(lettershop.Hooks{LetterCreated: func(lettershop.LetterStatus) { created.Add(1) }}))
	t.Cleanup(func() { svc.Close() })
	e := &env{svc: svc, clock: mc, store: st.Store, ctx: context.Background()}
	a, _ := e.publishedTemplate(t, acct)
	if _, err := svc.CreateLetter(e.ctx, acct, letterInput(a.ID)); err != nil {
		t.Fatal(err)
	}
	snap, err := svc.SnapshotAccount(e.ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RestoreAccount(e.ctx, "restored", snap, lettershop.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := st.restores.Load(); n != 1 {
		t.Errorf("the store's RestoreRecords was called %d times, want once", n)
	}
	if n := created.Load(); n != 1 {
		t.Errorf("LetterCreated told %d times, want once: for the letter made, not the one restored", n)
	}
}
