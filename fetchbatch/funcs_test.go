package fetchbatch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lettershop/lettershop/fetchbatch"
)

func TestNotFetched(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errDown, false},
		{context.DeadlineExceeded, false},
		{context.Canceled, true},
		{fmt.Errorf("fetch: %w", context.Canceled), true},
		{fetchbatch.ErrNotStarted, true},
	} {
		if got := fetchbatch.NotFetched(c.err); got != c.want {
			t.Errorf("NotFetched(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestAnswers(t *testing.T) {
	f := fetchbatch.Answers(map[string]fetchbatch.Result{
		"http://h/a": {Body: []byte("a"), MediaType: "text/plain"},
		"http://h/b": {Err: errDown},
	})
	ctx := context.Background()
	if body, typ, err := f(ctx, "http://h/a"); string(body) != "a" || typ != "text/plain" || err != nil {
		t.Errorf("a: %q %q %v", body, typ, err)
	}
	if _, _, err := f(ctx, "http://h/b"); !errors.Is(err, errDown) {
		t.Errorf("b: %v, want errDown", err)
	}
	if _, _, err := f(ctx, "http://h/c"); !errors.Is(err, fetchbatch.ErrNotStarted) {
		t.Errorf("c: %v, want ErrNotStarted", err)
	}
}

func TestOnce(t *testing.T) {
	asked := map[string]int{}
	canceled := true
	f := fetchbatch.Once(func(_ context.Context, url string) ([]byte, string, error) {
		asked[url]++
		switch url {
		case "http://h/down":
			return nil, "", errDown
		case "http://h/canceled":
			if canceled {
				return nil, "", context.Canceled
			}
		}
		return []byte(url), "text/plain", nil
	})
	ctx := context.Background()
	for range 3 {
		if body, _, err := f(ctx, "http://h/a"); string(body) != "http://h/a" || err != nil {
			t.Errorf("a: %q %v", body, err)
		}
		if _, _, err := f(ctx, "http://h/down"); !errors.Is(err, errDown) {
			t.Errorf("down: %v", err)
		}
	}
	f(ctx, "http://h/canceled")
	canceled = false
	if body, _, err := f(ctx, "http://h/canceled"); string(body) != "http://h/canceled" || err != nil {
		t.Errorf("canceled, then asked again: %q %v", body, err)
	}
	want := map[string]int{"http://h/a": 1, "http://h/down": 1, "http://h/canceled": 2}
	for u, n := range want {
		if asked[u] != n {
			t.Errorf("%s fetched %d times, want %d", u, asked[u], n)
		}
	}
}

func TestLimited(t *testing.T) {
	ok := func(_ context.Context, url string, max int64) ([]byte, string, error) {
		return []byte(url), "text/plain", nil
	}
	if body, typ, err := fetchbatch.Limited(t.Context(), "abc", time.Second, 3, ok); err != nil || string(body) != "abc" || typ != "text/plain" {
		t.Errorf("Limited = %q, %q, %v", body, typ, err)
	}
	// A body over the limit is refused, whatever the fetch did.
	if _, _, err := fetchbatch.Limited(t.Context(), "abcd", time.Second, 3, ok); err == nil || err.Error() != "the answer is larger than the 3 bytes taken" {
		t.Errorf("over the limit: %v", err)
	}
	// The fetch runs within the timeout.
	slow := func(ctx context.Context, _ string, _ int64) ([]byte, string, error) {
		<-ctx.Done()
		return nil, "", ctx.Err()
	}
	if _, _, err := fetchbatch.Limited(t.Context(), "u", time.Millisecond, 3, slow); !errors.Is(err, context.DeadlineExceeded) || fetchbatch.NotFetched(err) {
		t.Errorf("timed out: %v", err)
	}
	// The caller's end is the caller's error, not the fetch's.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	failing := func(context.Context, string, int64) ([]byte, string, error) { return nil, "", errDown }
	if _, _, err := fetchbatch.Limited(ctx, "u", time.Second, 3, failing); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	if _, _, err := fetchbatch.Limited(t.Context(), "u", time.Second, 3, failing); !errors.Is(err, errDown) {
		t.Errorf("failing: %v", err)
	}
}

// Rounds drains, checks what a drain held and was not checked, and drains
// again until a drain holds nothing new.
func TestRounds(t *testing.T) {
	held := [][]string{{"a", "b"}, {"a", "c"}, {"a", "b", "c"}}
	drains, checks := 0, []string{}
	total, err := fetchbatch.Rounds(func(checked map[string]bool) (int, []string, error) {
		h := held[drains]
		drains++
		return 1, fetchbatch.Unchecked(h, checked, func(s string) string { return s }), nil
	}, func(pending []string, checked map[string]bool) int {
		for _, p := range pending {
			checked[p] = true
			checks = append(checks, p)
		}
		return len(pending)
	})
	if err != nil || total != 3+3 || drains != 3 || fmt.Sprint(checks) != "[a b c]" {
		t.Errorf("Rounds = %d, %v after %d drains, checks %v; want 6, nil after 3, [a b c]", total, err, drains, checks)
	}
	// A drain's error ends the rounds, with what moved.
	total, err = fetchbatch.Rounds(func(map[string]bool) (int, []string, error) {
		return 2, []string{"x"}, errDown
	}, func([]string, map[string]bool) int { t.Error("checked after an error"); return 0 })
	if total != 2 || !errors.Is(err, errDown) {
		t.Errorf("Rounds = %d, %v; want 2, %v", total, err, errDown)
	}
}
