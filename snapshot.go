package lettershop

import (
	"cmp"
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
	if err := accountErr(account); err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, invalidField("body", "a snapshot is required")
	}
	// The clock is checked before anything is written: on the clocks as
	// the store has them now, which another server may have moved.
	ctx = s.clocks.Read(ctx)
	if err := s.checkSnapshot(ctx, snap); err != nil {
		return nil, err
	}
	// A snapshot is a whole account, not a part to mix in.
	if empty, err := snapshot.Empty(ctx, s.store, account); err != nil {
		return nil, storeErr("restore", err)
	} else if !empty {
		return nil, errorf(CodeConflict, "the account has letters, assets or webhooks already; restore into a new account, or empty this one first (EraseAccount, DELETE /_test/account, lettershoptest's Reset)")
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
// content its records refer to, and the records themselves, so that what
// it restores is what the Service could have made.
func (s *Service) checkSnapshot(ctx context.Context, snap *snapshot.Snapshot) error {
	err := snap.Check()
	if err == nil {
		err = snap.CheckContent(contentOf)
	}
	if fe := (*snapshot.FieldError)(nil); errors.As(err, &fe) {
		return invalidField(fe.Field, "%s", fe.Message)
	} else if err != nil {
		return invalidField("body", "%v", err)
	}
	return snap.CheckRecords(func(snap *snapshot.Snapshot) error { return s.checkRecords(ctx, snap) })
}

// checkRecords checks each record of a snapshot as the API checks what it
// is given, and what the Service keeps beside it agrees with the rest
// (an asset's counts of its versions, a letter's life), each problem
// under its path in the snapshot: a restore writes only what the Service
// could have made, which every route then serves. A content check ctx
// ended before it ran finds nothing: ctx's error is the answer then.
func (s *Service) checkRecords(ctx context.Context, snap *snapshot.Snapshot) error {
	f := fieldErrors{}
	// in checks a part of a record as the API checks what it is given,
	// each problem under its path in the snapshot.
	in := func(at string, check func(g fieldErrors)) {
		g := fieldErrors{}
		check(g)
		for k, v := range g {
			f.add(at+k, "%s", v)
		}
	}
	types, counts := map[string]AssetType{}, map[string]*versionCounts{}
	assets, assetErrs := make([]*Asset, len(snap.Assets)), make([]error, len(snap.Assets))
	for i, a := range snap.Assets {
		d, err := assetFromRecord(storage.Asset{ID: a.ID, Doc: storage.Encoded(a.Doc)})
		if assets[i], assetErrs[i] = d, err; err == nil {
			types[a.ID], counts[a.ID] = d.Type, &versionCounts{Deleted: d.counts.Deleted}
			in(fmt.Sprintf("assets[%d].doc.", i), func(g fieldErrors) {
				validateAssetName(g, d.Name)
				maxLen(g, "description", d.Description, MaxAssetDescription)
				enum(g, "type", string(d.Type), assetTypes)
			})
			metadataOf(a.Metadata).validate(fmt.Sprintf("assets[%d].metadata", i), f)
		}
	}
	kept := []VersionStatus{VersionDraft, VersionPublished, VersionArchived} // a deleted version is not kept
	data := make(map[string][]byte, len(snap.Content))
	for _, c := range snap.Content {
		data[c.Hash] = c.Data
	}
	for i, v := range snap.Versions {
		at := fmt.Sprintf("versions[%d].", i)
		enum(f, at+"status", VersionStatus(v.Status), kept)
		d, _ := versionFromRecord(storage.AssetVersion{ID: v.ID, Doc: storage.Encoded(v.Doc)}) // read by checkContent
		in(at+"doc.", func(g fieldErrors) {
			maxLen(g, "notes", d.Notes, MaxVersionNotes)
			validateDefinitions("definitions", d.VariableDefinitions, g)
			if d.hasContent() || d.Content.Source != "" {
				enum(g, "source", d.Content.Source, contentSources)
				if ts := contentTypes[types[v.AssetID]]; ts != nil { // else the asset's type is at fault
					enum(g, "type", d.Content.Type, ts)
				}
			}
			if d.ContentLength < 0 {
				g.add("length", "must not be negative")
			}
			if msg, _ := checkContent(ctx, string(d.Content.Type), data[d.contentHash], d.VariableDefinitions); d.contentHash != "" && msg != "" {
				g.add("hash", "names content that is not %s as a version holds it: %s", d.Content.Type, msg)
			}
		})
		if c := counts[v.AssetID]; c != nil {
			c.add(VersionStatus(v.Status), 1)
		}
	}
	for i, a := range snap.Assets {
		if len(f) > 0 {
			break // the counts are checked on versions that check
		}
		d, err := assets[i], assetErrs[i]
		if err != nil {
			f.add(fmt.Sprintf("assets[%d].doc", i), "can not be read: %v", err)
		} else if d.counts != *counts[a.ID] || d.counts.Deleted < 0 {
			f.add(fmt.Sprintf("assets[%d].doc.counts", i), "must count the snapshot's versions of the asset by status: %+v", *counts[a.ID])
		} else if p := d.PublishedVersionID; (p != "") != (d.counts.Published > 0) || p != "" && !slices.ContainsFunc(snap.Versions, func(v snapshot.Version) bool {
			return v.ID == p && v.AssetID == a.ID && v.Status == string(VersionPublished)
		}) {
			f.add(fmt.Sprintf("assets[%d].doc.publishedVersionId", i), "must name the asset's published version in the snapshot, got %q", p)
		}
	}
	for i, r := range snap.Letters {
		at := fmt.Sprintf("letters[%d].", i)
		var d letterDoc
		l, err := letterFromRecord(storage.Letter{ID: r.ID, Status: r.Status, Doc: storage.Encoded(r.Doc)})
		if err == nil {
			err = decodeDoc(r.Doc, &d)
		}
		if err != nil {
			f.add(at+"doc", "can not be read: %v", err)
			continue
		}
		enum(f, at+"status", l.Status, letterStatuses)
		maxLen(f, at+"externalId", r.ExternalID, maxExternalID)
		metadataOf(r.Metadata).validate(at+"metadata", f)
		in(at+"doc.", func(g fieldErrors) {
			for _, p := range []struct {
				path string
				role PartyRole
				p    Party
			}{{"sender", RoleSender, l.Sender}, {"recipient", RoleRecipient, l.Recipient}} {
				validateParty(p.path, partyInputOf(p.p), p.role, g)
				checkPrintableParty(g, p.path, partyInputOf(p.p))
			}
			validateUseType("useType", l.UseType, g)
			validateFreeText(g, "description", l.Description)
			normalizeOptions(&l.Options, g)
			enum(g, "content.type", l.Content.Type, []LetterContentType{LetterContentAsset})
			if c := l.snapshot; c.url() == "" {
				checked, _ := checkContent(ctx, c.Type, data[c.Hash], c.Definitions)
				if msg := cmp.Or(printableContent(c.Type), checked); msg != "" {
					g.add("snapshot", "names content that does not print: %s", msg)
				}
			}
			if l.SendDate != "" {
				if _, err := time.Parse(time.DateOnly, l.SendDate); err != nil {
					g.add("sendDate", "must be a date as YYYY-MM-DD")
				}
			}
			tracking := []EventStatus{EventInTransit, EventInLocalArea, EventProcessedForDelivery, EventDelivered, EventReRouted, EventReturnedToSender}
			for j, e := range l.Events {
				switch at := fmt.Sprintf("events[%d].", j); e.Type {
				case EventTypeStatus:
					enum(g, at+"status", LetterStatus(e.Status), letterStatuses)
				case EventTypeTracking:
					enum(g, at+"status", e.Status, tracking)
				default:
					enum(g, at+"type", e.Type, []EventType{EventTypeStatus, EventTypeTracking})
				}
			}
			// What a lifecycle run reads of the letter is what the rest
			// of it makes.
			if slices.Contains(letterStatuses, l.Status) && d.Life != factsOf(l) {
				g.add("life", "must be what the letter's status, events and parties make: %+v", factsOf(l))
			}
		})
	}
	for i, r := range snap.Webhooks {
		w := webhookFromRecord(storage.Webhook{URL: r.URL, Events: r.Events, Description: r.Description, Status: r.Status})
		in(fmt.Sprintf("webhooks[%d].", i), func(g fieldErrors) {
			s.validateWebhookURL(g, w.URL)
			validateWebhookEvents(g, w.Events)
			validateWebhookDescription(g, w.Description)
			validateWebhookSecret(g, r.Secret)
			enum(g, "status", w.Status, webhookStatuses)
			metadataOf(r.Metadata).validate("metadata", g)
		})
	}
	if err := ctx.Err(); err != nil {
		return storeErr("check snapshot content", err)
	}
	return f.err()
}
