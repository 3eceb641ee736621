package storage_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lettershop/lettershop/storage"
)

func TestRetryConflictsTriesAgainOnlyOnConflict(t *testing.T) {
	const retries = 10
	other := errors.New("other")
	for _, tc := range []struct {
		name      string
		conflicts int   // how many tries lose the race before one ends
		end       error // how the try after them ends
		wantTries int
		wantErr   error
	}{
		{"first try wins", 0, nil, 1, nil},
		{"won on the last retry", retries, nil, retries + 1, nil},
		{"every try lost", retries + 1, nil, retries + 1, storage.ErrConflict},
		{"another error ends at once", 0, other, 1, other},
		{"another error after conflicts", 3, other, 4, other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tries := 0
			v, err := storage.RetryConflicts(retries, func() (int, error) {
				tries++
				if tries <= tc.conflicts {
					return -1, fmt.Errorf("write: %w", storage.ErrConflict)
				}
				return tries, tc.end
			})
			if tries != tc.wantTries {
				t.Errorf("tries = %d, want %d", tries, tc.wantTries)
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if err == nil && v != tries {
				t.Errorf("value = %d, want the last try's %d", v, tries)
			}
		})
	}
}
