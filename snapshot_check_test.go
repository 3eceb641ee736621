package lettershop_test

import (
	"encoding/json"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/snapshot"
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
