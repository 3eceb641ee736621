package storage

import "errors"

// RetryConflicts runs a read-change-write (try: read the record, change it,
// write it with the revision read) until it ends with anything but
// ErrConflict: a write that lost the race to another write of the same
// record reads it again and applies its change to what that write left. It
// tries again at most retries times, and returns the last ErrConflict when
// every try lost.
func RetryConflicts[T any](retries int, try func() (T, error)) (T, error) {
	for tries := 0; ; tries++ {
		v, err := try()
		if errors.Is(err, ErrConflict) && tries < retries {
			continue
		}
		return v, err
	}
}
