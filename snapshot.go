package lettershop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lettershop/lettershop/internal/acctclock"
	"github.com/lettershop/lettershop/snapshot"
	"github.com/lettershop/lettershop/storage"
)

// A snapshot is an account's records and clock as one document (package
// snapshot), for tests: a suite builds a fixture in one account once,
// takes it, and restores it into an account per test.

// SnapshotAccount returns the account's records (assets, versions, their
// content, letters, webhooks; not deliveries, nor idempotency keys) and
// its clock, its letters caught up first. Take it while nothing else
// writes to the account: the records are read one list after another.
func (s *Service) SnapshotAccount(ctx context.Context, account string) (*snapshot.Snapshot, error) {
	if err := s.life.CatchUp(ctx, account); err != nil {
		return nil, err
	}
	c := s.AccountClock(account)
	snap, err := snapshot.Take(ctx, s.store, account, snapshot.Clock{Now: c.Now, Frozen: c.Frozen}, contentOf)
	if err != nil {
		return nil, storeErr("snapshot", err)
	}
	return snap, nil
}

// RestoreOptions say how RestoreAccount restores a snapshot.
type RestoreOptions struct {
	// KeepIDs writes the records with the snapshot's ids, for a store that
	// holds none of them (seeding a new server); otherwise every id is
	// replaced by a fresh one, so one snapshot restores into any number
	// of accounts.
	KeepIDs bool
	// SharedClock moves the Service's clock, which every account follows,
	// to the snapshot's time, instead of the account's own.
	SharedClock bool
}

// RestoreAccount writes snap's records into the account, which must have
// none yet, and sets its clock to the snapshot's (forward only: an account
// whose clock is past the snapshot's is CodeConflict, as is an account
// with records). It returns the snapshot's ids mapped to the ids written.
// A snapshot that does not check is CodeInvalid naming the field, and
// nothing is written.
func (s *Service) RestoreAccount(ctx context.Context, account string, snap *snapshot.Snapshot, o RestoreOptions) (map[string]string, error) {
	if account == "" {
		return nil, invalidField("account", "an account is required")
	}
	if snap == nil {
		return nil, invalidField("body", "a snapshot is required")
	}
	// The clock is checked before anything is written: on the clocks as
	// the store has them now, which another server may have moved.
	ctx = s.clocks.Read(ctx)
	if err := checkSnapshot(snap); err != nil {
		return nil, err
	}
	// A snapshot is a whole account, not a part to mix in.
	if empty, err := snapshot.Empty(ctx, s.store, account); err != nil {
		return nil, storeErr("restore", err)
	} else if !empty {
		return nil, errorf(CodeConflict, "the account has letters, assets or webhooks already; restore a snapshot into a new account")
	}
	at, err := s.restoreClockAt(account, snap.Clock, o.SharedClock)
	if err != nil {
		return nil, err
	}
	// The records first, the clock after: a restore the store refuses
	// leaves the clock where it was. The letters are due at the snapshot's
	// time or later, so none runs early on the clock not yet moved.
	// Ids of a sequence of the restore's own: other goroutines' ids at
	// other instants would break the order of its copies at one instant.
	ids, err := snap.Restore(ctx, s.store, account, s.ids.Fork().New, o.KeepIDs)
	if errors.Is(err, storage.ErrAlreadyExists) {
		return nil, errorf(CodeConflict, "the snapshot's ids are taken in this store: restore it without keeping them (%v)", err)
	}
	if err != nil {
		return nil, storeErr("restore", err)
	}
	// The clock moves forward to the snapshot's, frozen as it was.
	if o.SharedClock {
		_, err = s.SetClock(ctx, at)
	} else {
		_, err = s.accountClockMoved(ctx, account, s.clocks.SetFrozen(ctx, account, at, snap.Clock.Frozen))
	}
	if err != nil {
		return nil, err
	}
	s.life.NoteDue(snap.Earliest())
	if len(snap.Webhooks) > 0 {
		s.deliveries.activate()
	}
	return ids, nil
}

// restoreClockAt returns the time the account's clock (or the shared
// one) is to move to, the snapshot's, and answers CodeConflict when it
// cannot: the clock is past it, or real.
func (s *Service) restoreClockAt(account string, c snapshot.Clock, shared bool) (time.Time, error) {
	if c.Now.IsZero() {
		return time.Time{}, invalidField("clock.now", "is required")
	}
	at := c.Now.UTC().Truncate(time.Millisecond)
	err := s.clocks.CheckSet(account, at, shared, "clock.now")
	if b := (*acctclock.BehindError)(nil); errors.As(err, &b) {
		which, before := "account's clock", "into an account whose clock is not past it (a new account's is the server's, to start no later than the snapshot's: lettershop --test-clock-start, lettershoptest.WithStart)"
		if shared {
			which, before = "shared clock", "before the clock moves past it (start it no later than the snapshot's: lettershop --test-clock-start, lettershoptest.WithStart)"
		}
		return time.Time{}, errorf(CodeConflict, "the %s is at %s, past the snapshot's %s, and a clock never goes back: restore %s",
			which, b.Now.Format(time.RFC3339Nano), at.Format(time.RFC3339Nano), before)
	}
	return at, clockErr(err, "a snapshot restores on a test clock only; this service runs on the real time")
}

// contentOf is the content a stored document (kind "version" or "letter")
// refers to, by hash: what a snapshot keeps of the store's content, and
// what a snapshot restored must hold. A letter without content is not one
// the Service made.
func contentOf(kind string, doc storage.Document) ([]string, error) {
	if kind == "version" {
		v, err := versionFromRecord(storage.AssetVersion{Doc: doc})
		if err != nil || !v.hasContent() || v.externalURL != "" {
			return nil, err
		}
		return []string{v.contentHash}, nil
	}
	l, err := letterFromRecord(storage.Letter{Doc: doc})
	if err != nil {
		return nil, err
	}
	var out []string
	switch {
	case l.snapshot.url() != "": // fetched when printed
	case l.snapshot.Hash == "":
		return nil, errors.New("the letter has no content")
	default:
		out = append(out, l.snapshot.Hash)
	}
	for _, a := range l.snapshot.Assets {
		out = append(out, a.Hash)
	}
	return out, nil
}

// checkSnapshot checks a snapshot given for a restore: its form, the
// content its records refer to, and their statuses, so that what it
// restores is what the Service could have made.
func checkSnapshot(snap *snapshot.Snapshot) error {
	err := snap.Check()
	if err == nil {
		err = snap.CheckContent(contentOf)
	}
	if fe := (*snapshot.FieldError)(nil); errors.As(err, &fe) {
		return invalidField(fe.Field, "%s", fe.Message)
	} else if err != nil {
		return invalidField("body", "%v", err)
	}
	for i, l := range snap.Letters {
		if !slices.Contains(letterStatuses, LetterStatus(l.Status)) {
			return invalidField(fmt.Sprintf("letters[%d].status", i), "must be one of %s", joinEnum(letterStatuses))
		}
	}
	kept := []VersionStatus{VersionDraft, VersionPublished, VersionArchived} // a deleted version is not kept
	for i, v := range snap.Versions {
		if !slices.Contains(kept, VersionStatus(v.Status)) {
			return invalidField(fmt.Sprintf("versions[%d].status", i), "must be one of %s", joinEnum(kept))
		}
	}
	return nil
}
