package storagetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lettershop/lettershop/storage"
)

// writeCase is a write that can carry a Completion, prepared in a store.
type writeCase struct {
	// write performs the write with c.
	write func(c *storage.Completion) error
	// fail performs a write of the same kind that fails for a reason of its
	// own, with failErr.
	fail    func(c *storage.Completion) error
	failErr error
	// written reports whether write took effect; it fails the test when
	// the write took effect in part.
	written func(t *testing.T) bool
}

var completedWrites = []struct {
	name    string
	prepare func(t *testing.T, f *fixture) writeCase
}{
	{"CreateLetter", prepareCreateLetter},
	{"UpdateLetter", prepareUpdateLetter},
	{"WriteAsset creating", prepareCreateAsset},
	{"WriteAsset updating", prepareUpdateAsset},
	{"DeleteAsset", prepareDeleteAsset},
}

var completionTests = func() []test {
	var tests []test
	for _, w := range completedWrites {
		tests = append(tests,
			test{w.name + " with the claim held writes and completes", func(t *testing.T, f *fixture) {
				testCompletionHeld(t, f, w.prepare)
			}},
			test{w.name + " with a claim not held is ErrClaimLost and writes nothing", func(t *testing.T, f *fixture) {
				testCompletionLost(t, f, w.prepare)
			}},
			test{w.name + " failing otherwise leaves the claim in flight", func(t *testing.T, f *fixture) {
				testCompletionWriteFails(t, f, w.prepare)
			}},
		)
	}
	return tests
}()

func testCompletionHeld(t *testing.T, f *fixture, prepare func(*testing.T, *fixture) writeCase) {
	w := prepare(t, f)
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	must(t, "write", w.write(&storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("result")}))
	if !w.written(t) {
		t.Error("the write did not take effect")
	}
	f.wantDone(t, "s", "k", "result", t0)
}

func testCompletionLost(t *testing.T, f *fixture, prepare func(*testing.T, *fixture) writeCase) {
	for _, tc := range []struct {
		name string
		// lose makes tok-1 lose its claim of key, or never hold it, and
		// returns when to look at the record and what to expect of it.
		lose func(t *testing.T, key string) (time.Time, func(t *testing.T, key string, now time.Time))
	}{
		{"another token", func(t *testing.T, key string) (time.Time, func(*testing.T, string, time.Time)) {
			f.mustClaim(t, claimRecord("s", key, "tok-2", t0), t0)
			return t0, func(t *testing.T, key string, now time.Time) { f.wantInFlight(t, "s", key, "tok-2", now) }
		}},
		{"completed", func(t *testing.T, key string) (time.Time, func(*testing.T, string, time.Time)) {
			f.mustClaim(t, claimRecord("s", key, "tok-1", t0), t0)
			must(t, "CompleteIdempotency", f.s.CompleteIdempotency(f.ctx, storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: key, Token: "tok-1", Result: storage.Encoded("earlier")}))
			return t0, func(t *testing.T, key string, now time.Time) { f.wantDone(t, "s", key, "earlier", now) }
		}},
		{"released", func(t *testing.T, key string) (time.Time, func(*testing.T, string, time.Time)) {
			f.mustClaim(t, claimRecord("s", key, "tok-1", t0), t0)
			must(t, "ReleaseIdempotency", f.s.ReleaseIdempotency(f.ctx, scopeAccount("s"), "s", key, "tok-1"))
			return t0, func(t *testing.T, key string, now time.Time) {
				if got, won := f.probe(t, "s", key, now); !won {
					t.Errorf("record %s: a released claim was completed: %+v", key, got)
				}
			}
		}},
		{"taken over", func(t *testing.T, key string) (time.Time, func(*testing.T, string, time.Time)) {
			r := claimRecord("s", key, "tok-1", t0)
			f.mustClaim(t, r, t0)
			f.mustClaim(t, claimRecord("s", key, "tok-2", r.LeaseExpiresAt), r.LeaseExpiresAt)
			return r.LeaseExpiresAt, func(t *testing.T, key string, now time.Time) { f.wantInFlight(t, "s", key, "tok-2", now) }
		}},
		{"never claimed", func(t *testing.T, key string) (time.Time, func(*testing.T, string, time.Time)) {
			return t0, func(t *testing.T, key string, now time.Time) {
				if got, won := f.probe(t, "s", key, now); !won {
					t.Errorf("record %s: an unclaimed key has a record: %+v", key, got)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := prepare(t, f)
			key := "k-" + tc.name
			now, state := tc.lose(t, key)
			err := w.write(&storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: key, Token: "tok-1", Result: storage.Encoded("lost")})
			wantErr(t, "write", err, storage.ErrClaimLost)
			if w.written(t) {
				t.Error("the write took effect")
			}
			state(t, key, now)
		})
	}
}

func testCompletionWriteFails(t *testing.T, f *fixture, prepare func(*testing.T, *fixture) writeCase) {
	w := prepare(t, f)
	f.mustClaim(t, claimRecord("s", "k", "tok-1", t0), t0)
	err := w.fail(&storage.Completion{Account: scopeAccount("s"), Scope: "s", Key: "k", Token: "tok-1", Result: storage.Encoded("lost")})
	wantErr(t, "failing write", err, w.failErr)
	if w.written(t) {
		t.Error("the write took effect")
	}
	f.wantInFlight(t, "s", "k", "tok-1", t0)
}

func prepareCreateLetter(t *testing.T, f *fixture) writeCase {
	taken := f.createLetter(t, f.letter(acctA))
	l := f.letter(acctA)
	return writeCase{
		write: func(c *storage.Completion) error {
			_, err := f.s.CreateLetter(f.ctx, l, c)
			return err
		},
		fail: func(c *storage.Completion) error {
			dup := l
			dup.ID = taken.ID
			_, err := f.s.CreateLetter(f.ctx, dup, c)
			return err
		},
		failErr: storage.ErrAlreadyExists,
		written: func(t *testing.T) bool {
			_, err := f.s.GetLetter(f.ctx, acctA, l.ID)
			return exists(t, "letter", err)
		},
	}
}

func prepareUpdateLetter(t *testing.T, f *fixture) writeCase {
	l := f.createLetter(t, f.letter(acctA))
	u := l
	u.Status = "ready"
	return writeCase{
		write: func(c *storage.Completion) error {
			_, err := f.s.UpdateLetter(f.ctx, u, c)
			return err
		},
		fail: func(c *storage.Completion) error {
			stale := u
			stale.Revision = 2
			_, err := f.s.UpdateLetter(f.ctx, stale, c)
			return err
		},
		failErr: storage.ErrConflict,
		written: func(t *testing.T) bool {
			got := f.getLetter(t, acctA, l.ID)
			switch {
			case got.Status == "ready" && got.Revision == 2:
				return true
			case got.Status == l.Status && got.Revision == 1:
				return false
			}
			t.Fatalf("letter partly updated: %+v", got)
			return false
		},
	}
}

func prepareCreateAsset(t *testing.T, f *fixture) writeCase {
	taken := f.createAsset(t, f.asset(acctA))
	return f.assetWriteCase(f.asset(acctA), storage.ErrAlreadyExists, func(w *storage.AssetWrite) {
		w.Asset.ID = taken.ID
		w.PutVersions = nil
	})
}

func prepareUpdateAsset(t *testing.T, f *fixture) writeCase {
	a := f.createAsset(t, f.asset(acctA))
	return f.assetWriteCase(a, storage.ErrConflict, func(w *storage.AssetWrite) {
		w.Asset.Revision++ // not the stored revision
	})
}

// assetWriteCase writes a, at its revision, with a new version and content;
// its failing write is that write changed by spoil, failing with failErr.
func (f *fixture) assetWriteCase(a storage.Asset, failErr error, spoil func(*storage.AssetWrite)) writeCase {
	v := f.version(a, "draft")
	hash := "h-" + a.ID
	w := storage.AssetWrite{
		Asset:       a,
		PutVersions: []storage.AssetVersion{v},
		PutContent:  []storage.Content{{Account: acctA, Hash: hash, Data: []byte("content")}},
	}
	return writeCase{
		write: func(c *storage.Completion) error {
			w.Completion = c
			_, err := f.s.WriteAsset(f.ctx, w)
			return err
		},
		fail: func(c *storage.Completion) error {
			bad := w
			spoil(&bad)
			bad.Completion = c
			_, err := f.s.WriteAsset(f.ctx, bad)
			return err
		},
		failErr: failErr,
		written: func(t *testing.T) bool {
			return f.assetWritten(t, a.ID, v.ID, hash, a.Revision+1)
		},
	}
}

// assetWritten reports whether asset id is at revision with the version
// and the content, or else is not at that revision and has neither.
func (f *fixture) assetWritten(t *testing.T, id, versionID, hash string, revision int64) bool {
	t.Helper()
	a, err := f.s.GetAsset(f.ctx, acctA, id)
	asset := exists(t, "asset", err) && a.Revision == revision
	_, err = f.s.GetAssetVersion(f.ctx, acctA, id, versionID)
	version := exists(t, "version", err)
	_, err = f.s.GetContent(f.ctx, acctA, hash)
	content := exists(t, "content", err)
	if asset != version || asset != content {
		t.Fatalf("asset write took effect in part: asset at revision %d: %v, version: %v, content: %v", revision, asset, version, content)
	}
	return asset
}

func prepareDeleteAsset(t *testing.T, f *fixture) writeCase {
	a := f.asset(acctA)
	v := f.version(a, "draft")
	stored := f.createAsset(t, a, v)
	return writeCase{
		write: func(c *storage.Completion) error {
			return f.s.DeleteAsset(f.ctx, acctA, a.ID, stored.Revision, c)
		},
		fail: func(c *storage.Completion) error {
			return f.s.DeleteAsset(f.ctx, acctA, a.ID, stored.Revision+1, c)
		},
		failErr: storage.ErrConflict,
		written: func(t *testing.T) bool {
			_, err := f.s.GetAsset(f.ctx, acctA, a.ID)
			asset := exists(t, "asset", err)
			_, err = f.s.GetAssetVersion(f.ctx, acctA, a.ID, v.ID)
			version := exists(t, "version", err)
			if asset != version {
				t.Fatalf("delete took effect in part: asset there: %v, version there: %v", asset, version)
			}
			return !asset
		},
	}
}

// exists interprets the error of a read: nil means the record is there,
// ErrNotFound that it is not; anything else fails the test.
func exists(t *testing.T, what string, err error) bool {
	t.Helper()
	switch {
	case err == nil:
		return true
	case errors.Is(err, storage.ErrNotFound):
		return false
	}
	t.Fatal(fmt.Errorf("reading %s: %w", what, err))
	return false
}
