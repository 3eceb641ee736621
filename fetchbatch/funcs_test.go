package fetchbatch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
