package lettershoptest

import (
	"context"
	"strings"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/snapshot"
)

// Snapshot returns the account's records (assets, versions, letters,
// webhooks) and clock, to restore into other accounts: a suite builds its
// fixture once, in one account, and each test restores it into its own.
func (a *Account) Snapshot() *snapshot.Snapshot {
	a.t.Helper()
	snap, err := a.c.svc.SnapshotAccount(context.Background(), a.ID)
	if err != nil {
		a.t.Fatalf("lettershoptest: snapshot of %s: %v", a.ID, err)
	}
	return snap
}

// Restore writes snap into the account, which must have no records yet,
// with fresh ids, and moves its clock to the snapshot's; it returns the
// snapshot's ids mapped to the account's: ids[fixtureLetterID] is this
// account's copy. One snapshot restores into any number of accounts, in
// parallel. The account's clock must not be past the snapshot's.
func (a *Account) Restore(snap *snapshot.Snapshot) map[string]string {
	a.t.Helper()
	ids, err := a.c.svc.RestoreAccount(context.Background(), a.ID, snap, lettershop.RestoreOptions{SharedClock: a.c.shared})
	if err != nil {
		a.t.Fatalf("lettershoptest: restore into %s: %v", a.ID, err)
	}
	a.receiveRestored(snap, ids)
	return ids
}

// Reset empties the account, as DELETE /_test/account does: its letters,
// assets, webhooks (and the receivers Restore pointed them at), idempotency
// keys, NCOA moves, faults and journal go, and their ids are not found
// after. Its clock stays where it stands, frozen or not: a clock never goes
// back, so a snapshot restored after must not be older than the clock. A
// suite whose tests share one account (a fixed key) resets it and restores
// its fixture before each test, one test at a time.
func (a *Account) Reset() {
	a.t.Helper()
	if err := a.c.svc.EraseAccount(context.Background(), a.ID); err != nil {
		a.t.Fatalf("lettershoptest: reset of %s: %v", a.ID, err)
	}
	if a.c.controls != nil {
		a.c.controls.ForgetAccount(a.ID)
	}
	a.c.restored.Range(func(id, r any) bool {
		if r.(*Receiver).a.ID == a.ID {
			a.c.restored.Delete(id)
		}
		return true
	})
}

// WithFixture starts the server (or Service) from the snapshots in the
// file at path, each restored into the account it was taken from with its
// ids: a snapshot as GET /_test/snapshot answers it, or a JSON array of
// them, the file lettershop --seed takes. Server.AccountWithKey returns
// the account of a fixture's key. A fixture that is wrong fails the test,
// naming what is wrong.
func WithFixture(path string) Option { return func(c *config) { c.fixture = path } }

// WithSnapshots starts the server (or Service) from snaps as WithFixture
// does from a file: each restored into the account it was taken from,
// with its ids. A suite builds its fixture once, takes its Snapshot, and
// gives it to the New of every test, which then starts with the same
// records and ids, checked once for every test (a file is read and
// checked again by each New). Server.AccountWithKey, with the key the
// snapshot was taken with, returns that account.
func WithSnapshots(snaps ...*snapshot.Snapshot) Option {
	return func(c *config) { c.snapshots = append(c.snapshots, snaps...) }
}

// ReadFixture reads a fixture file: one snapshot, or a JSON array of them,
// each checked (snapshot.ReadFixture).
func ReadFixture(path string) ([]*snapshot.Snapshot, error) { return snapshot.ReadFixture(path) }

// seed restores the fixture's snapshots (the file's at path, then snaps),
// keeping their ids.
func (c *core) seed(path string, snaps []*snapshot.Snapshot) {
	c.t.Helper()
	restore := func(from string, snap *snapshot.Snapshot) {
		c.t.Helper()
		if _, err := c.svc.RestoreAccount(context.Background(), snap.Account, snap,
			lettershop.RestoreOptions{KeepIDs: true, SharedClock: c.shared}); err != nil {
			c.t.Fatalf("lettershoptest: %s, account %s: %v", from, snap.Account, err)
		}
	}
	if path != "" {
		read, err := ReadFixture(path)
		if err != nil {
			c.t.Fatalf("lettershoptest: fixture %s: %v", path, err)
		}
		for _, snap := range read {
			restore("fixture "+path, snap)
		}
	}
	for _, snap := range snaps {
		restore("WithSnapshots", snap)
	}
}

// AccountWithKey returns the account of a sandbox key of the test's
// choosing (sk_test_ and more): a fixture's, say, whose snapshot was taken
// with that key.
func (s *Server) AccountWithKey(apiKey string) *Account {
	s.c.t.Helper()
	if !strings.HasPrefix(apiKey, httpadapter.SandboxKeyPrefix) || len(apiKey) == len(httpadapter.SandboxKeyPrefix) {
		s.c.t.Fatalf("lettershoptest: %q is not a sandbox key (%s...)", apiKey, httpadapter.SandboxKeyPrefix)
	}
	a := s.c.newAccount()
	a.APIKey, a.ID = apiKey, httpadapter.SandboxAccount(apiKey)
	return a
}
