package lettershop_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// told keeps what a Service's hooks were told.
type told struct {
	mu                sync.Mutex
	created, statuses []lettershop.LetterStatus
	renders           []bool
	storeErrors       []string
}

func (h *told) hooks() lettershop.Hooks {
	return lettershop.Hooks{
		LetterCreated: func(st lettershop.LetterStatus) { h.mu.Lock(); h.created = append(h.created, st); h.mu.Unlock() },
		LetterStatus:  func(st lettershop.LetterStatus) { h.mu.Lock(); h.statuses = append(h.statuses, st); h.mu.Unlock() },
		Render:        func(_ time.Duration, cached bool) { h.mu.Lock(); h.renders = append(h.renders, cached); h.mu.Unlock() },
		StoreError:    func(op string) { h.mu.Lock(); h.storeErrors = append(h.storeErrors, op); h.mu.Unlock() },
	}
}

// TestHooksAreTold follows a letter through the hooks: created, rendered
// (then from the cache), canceled.
func TestHooksAreTold(t *testing.T) {
	var h told
	e := newRenderEnv(t, lettershop.WithHooks(h.hooks()))
	a, _ := e.version(t, lettershop.AssetTemplate, "text/html", letterTemplate, letterDefinitions...)
	l := e.letter(t, renderLetterInput(a.ID, "name", "Zoë"))
	for range 2 {
		if _, err := e.svc.RenderLetter(e.ctx, renderAccount, l.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.CancelLetter(e.ctx, renderAccount, l.ID); err != nil {
		t.Fatal(err)
	}
	// Not a failure of the store: a letter that is not there.
	if _, err := e.svc.GetLetter(e.ctx, renderAccount, "ltr_missing"); lettershop.ErrorCode(err) != lettershop.CodeNotFound {
		t.Fatalf("GetLetter of a missing letter: %v", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if want := []lettershop.LetterStatus{lettershop.StatusQueued}; !slices.Equal(h.created, want) {
		t.Errorf("LetterCreated told %q, want %q", h.created, want)
	}
	if want := []lettershop.LetterStatus{lettershop.StatusQueued, lettershop.StatusCanceled}; !slices.Equal(h.statuses, want) {
		t.Errorf("LetterStatus told %q, want %q", h.statuses, want)
	}
	if want := []bool{false, true}; !slices.Equal(h.renders, want) {
		t.Errorf("Render told cached %v, want %v", h.renders, want)
	}
	if len(h.storeErrors) != 0 {
		t.Errorf("StoreError told %q, want nothing", h.storeErrors)
	}
}

// brokenLetters fails every read of a letter.
type brokenLetters struct{ storage.Storage }

func (brokenLetters) GetLetter(context.Context, string, string) (storage.Letter, error) {
	return storage.Letter{}, errors.New("disk gone")
}

func TestStoreErrorHookIsTold(t *testing.T) {
	var h told
	svc := lettershop.New(brokenLetters{memstore.New()}, lettershop.WithHooks(h.hooks()))
	t.Cleanup(func() { svc.Close() })
	if _, err := svc.GetLetter(context.Background(), "acct", "ltr_1"); lettershop.ErrorCode(err) != lettershop.CodeInternal {
		t.Fatalf("GetLetter on a broken store: %v, want an internal error", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Contains(h.storeErrors, "GetLetter") {
		t.Errorf("StoreError told %q, want GetLetter", h.storeErrors)
	}
}
