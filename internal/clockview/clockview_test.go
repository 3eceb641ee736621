package clockview_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lettershop/lettershop/internal/clockview"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

var t0 = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

func TestLookupAndApart(t *testing.T) {
	var v clockview.View
	if v.Apart() {
		t.Fatal("an empty view has clocks apart")
	}
	if _, ok := v.Lookup("a"); ok {
		t.Fatal("an empty view has a clock")
	}
	if got := v.Time("a", t0); !got.Equal(t0) {
		t.Errorf("an account without a clock reads %v, want the server's %v", got, t0)
	}
	v.Apply(storage.AccountClock{Account: "a", At: t0.Add(time.Hour), Anchor: t0, Stamp: 1})
	if !v.Apart() {
		t.Error("a clock an hour ahead is not apart")
	}
	if got := v.Time("a", t0.Add(time.Minute)); !got.Equal(t0.Add(time.Hour + time.Minute)) {
		t.Errorf("reads %v", got)
	}
	// An older put of the same clock changes nothing.
	v.Apply(storage.AccountClock{Account: "a", At: t0, Anchor: t0, Frozen: true, Stamp: 1})
	if c, _ := v.Lookup("a"); c.Frozen {
		t.Error("a put at the stamp already held replaced the clock")
	}
	// Back on the server's time: kept, with its stamp, but not apart.
	v.Apply(storage.AccountClock{Account: "a", At: t0, Anchor: t0, Stamp: 2})
	if v.Apart() {
		t.Error("a clock back on the server's time counts as apart")
	}
	if _, ok := v.Lookup("a"); ok {
		t.Error("Lookup finds a clock on the server's time")
	}
	if c, ok := v.Stored("a"); !ok || c.Stamp != 2 {
		t.Errorf("Stored = %+v, %v; want the clock at stamp 2", c, ok)
	}
}

func TestEarliestBehind(t *testing.T) {
	var v clockview.View
	server := t0.Add(10 * time.Hour)
	if got := v.EarliestBehind(server); !got.IsZero() {
		t.Errorf("no clocks: %v", got)
	}
	v.Apply(storage.AccountClock{Account: "ahead", At: t0.Add(time.Hour), Anchor: t0, Stamp: 1})
	v.Apply(storage.AccountClock{Account: "frozen-ahead", At: t0.Add(20 * time.Hour), Anchor: t0, Frozen: true, Stamp: 2})
	if got := v.EarliestBehind(server); !got.IsZero() {
		t.Errorf("only clocks ahead: %v", got)
	}
	// Frozen at t0+3h: behind once the server passes it.
	v.Apply(storage.AccountClock{Account: "frozen", At: t0.Add(3 * time.Hour), Anchor: t0, Frozen: true, Stamp: 3})
	if got := v.EarliestBehind(server); !got.Equal(t0.Add(3 * time.Hour)) {
		t.Errorf("a frozen clock behind: %v", got)
	}
	// Unfrozen eight hours behind: t0+2h when the server reads t0+10h,
	// and it moves with the server's.
	v.Apply(storage.AccountClock{Account: "lagging", At: t0.Add(time.Hour), Anchor: t0.Add(9 * time.Hour), Stamp: 4})
	if got := v.EarliestBehind(server); !got.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("an unfrozen clock further behind: %v", got)
	}
	if got := v.EarliestBehind(server.Add(5 * time.Hour)); !got.Equal(t0.Add(3 * time.Hour)) {
		t.Errorf("five hours on, the frozen one is the earliest: %v", got)
	}
	v.Apply(storage.AccountClock{Account: "frozen", At: t0.Add(3 * time.Hour), Anchor: t0.Add(3 * time.Hour), Stamp: 5})
	v.Apply(storage.AccountClock{Account: "lagging", At: t0, Anchor: t0, Stamp: 6})
	if got := v.EarliestBehind(server); !got.IsZero() {
		t.Errorf("both back on the server's time: %v", got)
	}
}

// pagedStore counts the reads of a store.
type pagedStore struct {
	storage.ClockStorage
	stamps, reads int
	fail          error
}

func (p *pagedStore) ClockStamp(ctx context.Context) (int64, error) {
	p.stamps++
	if p.fail != nil {
		return 0, p.fail
	}
	return p.ClockStorage.ClockStamp(ctx)
}

func (p *pagedStore) AccountClocks(ctx context.Context, since int64, limit int) ([]storage.AccountClock, error) {
	p.reads++
	return p.ClockStorage.AccountClocks(ctx, since, limit)
}

func TestSync(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	ps := &pagedStore{ClockStorage: st}
	var v clockview.View
	if err := v.Sync(ctx, ps); err != nil || ps.stamps != 1 || ps.reads != 0 {
		t.Fatalf("sync of an empty store: %v, %d stamp reads, %d clock reads", err, ps.stamps, ps.reads)
	}
	// More clocks than one read of the store takes.
	for i := range 2500 {
		if _, err := st.PutAccountClock(ctx, storage.AccountClock{Account: fmt.Sprint(i), At: t0.Add(time.Duration(i+1) * time.Second), Anchor: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Sync(ctx, ps); err != nil || ps.reads != 3 {
		t.Fatalf("sync of 2,500 clocks: %v, %d clock reads, want 3", err, ps.reads)
	}
	if got := v.Time("2499", t0); !got.Equal(t0.Add(2500 * time.Second)) {
		t.Errorf("the last clock put reads %v", got)
	}
	if err := v.Sync(ctx, ps); err != nil || ps.reads != 3 || ps.stamps != 3 {
		t.Errorf("sync with nothing put since: %v, %d stamp reads, %d clock reads; want 3 and 3", err, ps.stamps, ps.reads)
	}
	c, _ := v.Stored("7")
	c.Frozen = true
	if _, err := st.PutAccountClock(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := v.Sync(ctx, ps); err != nil || ps.reads != 4 {
		t.Fatalf("sync after one put: %v, %d clock reads, want 4", err, ps.reads)
	}
	if c, _ := v.Lookup("7"); !c.Frozen {
		t.Error("the put was not read")
	}
	ps.fail = errors.New("down")
	if err := v.Sync(ctx, ps); !errors.Is(err, ps.fail) {
		t.Errorf("sync of a store that fails: %v", err)
	}
	if _, ok := v.Lookup("7"); !ok {
		t.Error("a failed sync lost the clocks read before")
	}
}
