package idem_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/internal/idem"
	"github.com/lettershop/lettershop/storage"
)

// store records what Requests asks of it.
type store struct {
	mu        sync.Mutex
	completed []storage.Completion
	released  int
	renewals  chan time.Time // the leases renewed to, when not nil
	renewed   int            // renewals asked
	refuseAt  int            // the renewal refused first, counted from 1; 0 refuses none
	trims     []int
	purges    []time.Time
	complete  error
	// unavailable is how many releases fail first, as on connections
	// the database dropped.
	unavailable int
}

func (s *store) CompleteIdempotency(_ context.Context, c storage.Completion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.complete != nil {
		return s.complete
	}
	s.completed = append(s.completed, c)
	return nil
}

func (s *store) ReleaseIdempotency(context.Context, string, string, string, string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released++
	if s.released <= s.unavailable {
		return storage.ErrUnavailable
	}
	return nil
}

func (s *store) RenewIdempotency(_ context.Context, _, _, _, _ string, _, lease time.Time) error {
	s.mu.Lock()
	s.renewed++
	refuse := s.refuseAt > 0 && s.renewed >= s.refuseAt
	s.mu.Unlock()
	if s.renewals != nil {
		s.renewals <- lease
	}
	if refuse {
		return storage.ErrClaimLost
	}
	return nil
}

func (s *store) TrimIdempotency(_ context.Context, _ string, keep int, _ int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trims = append(s.trims, keep)
	return 0, nil
}

func (s *store) PurgeIdempotency(_ context.Context, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.purges = append(s.purges, now)
	return 0, nil
}

var errCanceled = errors.New("canceled")

// requests returns Requests on st and a mock clock, errCanceled the error
// that says a request was cut off.
func requests(st *store, lease time.Duration, maxOutcomes int) (*idem.Requests[outcome], *clock.Mock) {
	c := clock.NewMock()
	r := &idem.Requests[outcome]{Lease: lease, MaxOutcomes: maxOutcomes}
	r.Init(st, c, func(string) time.Time { return c.Now() },
		func(err error) bool { return errors.Is(err, errCanceled) }, slog.New(slog.DiscardHandler))
	return r, c
}

var claimed = storage.IdempotencyRecord{Account: "acct", Scope: "scope", Key: "key", Token: "tok"}

// encodeAll keeps a string value as itself and a failure as its message.
func encodeAll(v any, err error) (outcome, bool) {
	if err != nil {
		return outcome(err.Error()), true
	}
	s, ok := v.(string)
	return outcome(s), ok
}

func TestRunCompletesWithWhatOpReturned(t *testing.T) {
	st := &store{}
	r, _ := requests(st, 0, 0)
	out, err := r.Run(context.Background(), claimed, encodeAll, func(context.Context) (any, error) { return "made", nil })
	if err != nil || string(out) != "made" {
		t.Fatalf("%q, %v", out, err)
	}
	if len(st.completed) != 1 || st.released != 0 {
		t.Fatalf("completed %+v, released %d", st.completed, st.released)
	}
	if c := st.completed[0]; c.Account != "acct" || c.Scope != "scope" || c.Key != "key" || c.Token != "tok" || c.Size != 4 || c.Failed {
		t.Errorf("completion %+v", c)
	}
	// A failure kept completes the claim as failed.
	out, err = r.Run(context.Background(), claimed, encodeAll, func(context.Context) (any, error) { return nil, errors.New("refused") })
	if err != nil || string(out) != "refused" || len(st.completed) != 2 || !st.completed[1].Failed {
		t.Errorf("%q, %v; completed %+v", out, err, st.completed)
	}
}

// A write under the claim completes it: Run stores nothing more.
func TestRunCompletedByAWrite(t *testing.T) {
	st := &store{}
	r, _ := requests(st, 0, 0)
	out, err := r.Run(context.Background(), claimed, encodeAll, func(ctx context.Context) (any, error) {
		if !idem.Claimed(ctx) {
			t.Error("op runs without the claim")
		}
		return idem.Complete[outcome](ctx, "written", func(c *storage.Completion) (any, error) {
			if c == nil {
				t.Error("the write carries no completion")
			}
			return "written", nil
		})
	})
	if err != nil || string(out) != "written" || len(st.completed) != 0 || st.released != 0 {
		t.Errorf("%q, %v; completed %+v, released %d", out, err, st.completed, st.released)
	}
}

func TestRunReleasesWhatIsNotKept(t *testing.T) {
	boom := errors.New("boom")
	cut, cancel := context.WithCancel(context.Background())
	cancel()
	for name, c := range map[string]struct {
		ctx    context.Context
		v      any
		err    error
		encode func(any, error) (outcome, bool)
		want   error
	}{
		"not kept by encode":       {context.Background(), 1, nil, encodeAll, idem.ErrNotKept},
		"failure of a cut request": {cut, nil, boom, encodeAll, boom},
		"failure saying cancelled": {context.Background(), nil, errCanceled, encodeAll, errCanceled},
		"failure encode refuses": {context.Background(), nil, boom,
			func(any, error) (outcome, bool) { return nil, false }, boom},
	} {
		t.Run(name, func(t *testing.T) {
			st := &store{}
			r, _ := requests(st, 0, 0)
			_, err := r.Run(c.ctx, claimed, c.encode, func(context.Context) (any, error) { return c.v, c.err })
			if !errors.Is(err, c.want) || st.released != 1 || len(st.completed) != 0 {
				t.Errorf("%v, want %v; released %d, completed %+v", err, c.want, st.released, st.completed)
			}
		})
	}
}

// A release that finds the store unavailable (the connection it took was
// dropped by the database, and the pool's others with it) is tried again
// on another, up to ReleaseTries times in all: a key left claimed would
// answer every retry 409 until its lease ran out.
func TestRunReleaseTriedAgainWhenUnavailable(t *testing.T) {
	for _, c := range []struct{ unavailable, tries int }{
		{0, 1},
		{idem.ReleaseTries - 1, idem.ReleaseTries},
		{idem.ReleaseTries, idem.ReleaseTries},
		{idem.ReleaseTries + 5, idem.ReleaseTries},
	} {
		st := &store{unavailable: c.unavailable}
		r, _ := requests(st, 0, 0)
		_, err := r.Run(context.Background(), claimed, encodeAll, func(context.Context) (any, error) { return 1, nil })
		if !errors.Is(err, idem.ErrNotKept) || st.released != c.tries {
			t.Errorf("%d releases unavailable: %v, released %d times, want %d", c.unavailable, err, st.released, c.tries)
		}
	}
}

// A completion the store refuses is a StoreError; a claim lost is not
// released (another request holds it), a failure is.
func TestRunCompletionRefused(t *testing.T) {
	for _, c := range []struct {
		err      error
		released int
	}{{storage.ErrClaimLost, 0}, {errors.New("down"), 1}} {
		st := &store{complete: c.err}
		r, _ := requests(st, 0, 0)
		_, err := r.Run(context.Background(), claimed, encodeAll, func(context.Context) (any, error) { return "x", nil })
		var se *idem.StoreError
		if !errors.As(err, &se) || !errors.Is(se.Err, c.err) || se.Op != "complete idempotency key" {
			t.Errorf("%v: got %v", c.err, err)
		}
		if st.released != c.released {
			t.Errorf("%v: released %d times, want %d", c.err, st.released, c.released)
		}
	}
}

// Kept without a claim: encode's outcome, never a cut request's failure.
func TestKept(t *testing.T) {
	r, _ := requests(&store{}, 0, 0)
	if out, keep := r.Kept(context.Background(), encodeAll, "v", nil); !keep || string(out) != "v" {
		t.Errorf("value: %q, %v", out, keep)
	}
	if out, keep := r.Kept(context.Background(), encodeAll, nil, errors.New("no")); !keep || string(out) != "no" {
		t.Errorf("failure: %q, %v", out, keep)
	}
	if out, keep := r.Kept(context.Background(), encodeAll, nil, errCanceled); keep || out != nil {
		t.Errorf("cancelled: %q, %v", out, keep)
	}
	cut, cancel := context.WithCancel(context.Background())
	cancel()
	// A cut request's value is kept: only its failure may come of the cut.
	if _, keep := r.Kept(cut, encodeAll, "v", nil); !keep {
		t.Error("a value of a cut request not kept")
	}
}

// The lease is renewed every third of it while op runs, to a lease from
// the account's time; a renewal refused stops the renewing.
func TestRunRenewsTheLease(t *testing.T) {
	st := &store{renewals: make(chan time.Time), refuseAt: 2}
	r, c := requests(st, 3*time.Second, 0)
	c.Set(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	_, err := r.Run(context.Background(), claimed, encodeAll, func(context.Context) (any, error) {
		for i := range 2 {
			c.Add(time.Second)
			select {
			case lease := <-st.renewals:
				if want := c.Now().Add(3 * time.Second); !lease.Equal(want) {
					t.Errorf("renewal %d to %v, want %v", i, lease, want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("renewal %d: none after a third of the lease", i)
			}
		}
		// Refused: no more renewals.
		c.Add(time.Second)
		select {
		case <-st.renewals:
			t.Error("renewed after a renewal was refused")
		case <-time.After(50 * time.Millisecond):
		}
		return "x", nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An account's outcomes are trimmed once per a sixteenth of its bound.
func TestRunTrims(t *testing.T) {
	st := &store{}
	r, _ := requests(st, 0, 32)
	for range 4 {
		if _, err := r.Run(context.Background(), claimed, encodeAll, func(context.Context) (any, error) { return "x", nil }); err != nil {
			t.Fatal(err)
		}
	}
	if len(st.trims) != 2 || st.trims[0] != 32 {
		t.Errorf("trims %v in 4 outcomes, want two to 32", st.trims)
	}
}

// Purges run at most once per ten minutes of the times given.
func TestPurgeIsSpaced(t *testing.T) {
	st := &store{}
	r, _ := requests(st, 0, 0)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Duration{0, time.Minute, 10*time.Minute - 1, 10 * time.Minute, 11 * time.Minute} {
		r.Purge(context.Background(), t0.Add(at))
	}
	if len(st.purges) != 2 || !st.purges[0].Equal(t0) || !st.purges[1].Equal(t0.Add(10*time.Minute)) {
		t.Errorf("purged at %v", st.purges)
	}
}
