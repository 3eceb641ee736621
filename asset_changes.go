package lettershop

// Writing an asset with its versions as one change, and the helpers of the
// asset and version operations.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lettershop/lettershop/storage"
)

// assetChange collects the version writes of one change to an asset.
type assetChange struct {
	puts    []*AssetVersion
	deletes []string
	content []storage.Content
	// modifiedAt is the asset's as stored, before this change.
	modifiedAt time.Time
}

func (w *assetChange) put(a *Asset, v *AssetVersion) {
	v.ModifiedAt = a.ModifiedAt
	for i, x := range w.puts {
		if x.ID == v.ID {
			w.puts[i] = v
			return
		}
	}
	w.puts = append(w.puts, v)
}

// setStatus moves v to status, keeping the asset's counts.
func (w *assetChange) setStatus(a *Asset, v *AssetVersion, to VersionStatus) {
	a.counts.add(v.Status, -1)
	a.counts.add(to, 1)
	v.Status = to
}

// changeAsset reads an asset, lets change alter it and its versions, and
// writes the whole change atomically, retrying when another write to the
// same asset got there first. result picks what the operation returns (and
// stores for idempotent replay); by default the asset.
func (s *Service) changeAsset(ctx context.Context, account, id string, change func(*Asset, *assetChange) error, result func(*Asset) any) (*Asset, error) {
	return storage.RetryConflicts(maxRetries, func() (*Asset, error) {
		a, err := s.getAsset(ctx, account, id)
		if err != nil {
			return nil, err
		}
		w := &assetChange{modifiedAt: a.ModifiedAt}
		a.ModifiedAt = s.now(account)
		if err := change(a, w); err != nil {
			if errors.Is(err, errUnchanged) {
				a.ModifiedAt = w.modifiedAt
				return a, err
			}
			return nil, err
		}
		a.derive()
		var value any = a
		if result != nil {
			value = result(a)
		}
		if err := s.writeAssetChange(ctx, account, a, w, value); err != nil {
			return nil, err
		}
		return a, nil
	})
}

// changeVersion applies change to one version of an asset; the version is
// written back unless change deleted it, and returned as showVersion shows
// it.
func (s *Service) changeVersion(ctx context.Context, account, assetID, versionID string, change func(*Asset, *assetChange, *AssetVersion) error) (*AssetVersion, error) {
	var out *AssetVersion
	deleted := false
	_, err := s.changeAsset(ctx, account, assetID, func(a *Asset, w *assetChange) error {
		v, err := s.getVersion(ctx, account, assetID, versionID)
		if err != nil {
			return err
		}
		out = v
		changeErr := change(a, w, v)
		if changeErr != nil && !errors.Is(changeErr, errUnchanged) {
			return changeErr
		}
		if deleted = slices.Contains(w.deletes, v.ID); deleted {
			return changeErr
		}
		if err := s.showVersion(ctx, account, v, false); err != nil {
			return err
		}
		if changeErr == nil {
			w.put(a, v)
		}
		return changeErr
	}, func(*Asset) any {
		if deleted {
			return nil
		}
		return out
	})
	if errors.Is(err, errUnchanged) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writeAssetChange stores a and the changes in w as one write, carrying the
// completion of the request's idempotency claim with value as the outcome.
func (s *Service) writeAssetChange(ctx context.Context, account string, a *Asset, w *assetChange, value any) error {
	write := storage.AssetWrite{Asset: assetRecord(account, a), DeleteVersions: w.deletes, PutContent: w.content}
	for _, v := range w.puts {
		write.PutVersions = append(write.PutVersions, versionRecord(account, v))
	}
	stored, err := withCompletion(ctx, value, func(c *storage.Completion) (storage.Asset, error) {
		write.Completion = c
		return s.store.WriteAsset(ctx, write)
	})
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return notFound("asset", a.ID)
	case err != nil:
		// An internal error that still wraps storage.ErrConflict, so the
		// caller can tell a lost race and retry.
		return storeErr("write asset", err)
	}
	a.revision = stored.Revision
	return nil
}

func validateAssetName(f fieldErrors, name string) {
	switch n := utf8.RuneCountInString(name); {
	case badText(name) != "":
		f.add("name", "%s", badText(name))
	case strings.TrimSpace(name) == "":
		f.add("name", "name can not be empty")
	case n > MaxAssetName:
		f.add("name", "must be at most %d characters, got %d", MaxAssetName, n)
	}
}
