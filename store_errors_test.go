package lettershop_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/internal/pdftest"
	"github.com/lettershop/lettershop/memstore"
	"github.com/lettershop/lettershop/storage"
)

// faultyStore fails one call: the nth call of op from when fail is set,
// with what the fault returns; every other call goes to the store.
type faultyStore struct {
	storage.Storage

	mu    sync.Mutex
	op    string
	nth   int
	fault func() error
}

// fail makes the nth call of op (counted from now) fail with fault's error.
func (s *faultyStore) fail(op string, nth int, fault func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op, s.nth, s.fault = op, nth, fault
}

// faulted returns the error of this call of op, or nil.
func (s *faultyStore) faulted(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fault == nil || op != s.op {
		return nil
	}
	if s.nth--; s.nth > 0 {
		return nil
	}
	f := s.fault
	s.fault = nil
	return f()
}

func (s *faultyStore) GetAsset(ctx context.Context, account, id string) (storage.Asset, error) {
	if err := s.faulted("GetAsset"); err != nil {
		return storage.Asset{}, err
	}
	return s.Storage.GetAsset(ctx, account, id)
}

func (s *faultyStore) GetAssetVersion(ctx context.Context, account, assetID, versionID string) (storage.AssetVersion, error) {
	if err := s.faulted("GetAssetVersion"); err != nil {
		return storage.AssetVersion{}, err
	}
	return s.Storage.GetAssetVersion(ctx, account, assetID, versionID)
}

func (s *faultyStore) GetContent(ctx context.Context, account, hash string) ([]byte, error) {
	if err := s.faulted("GetContent"); err != nil {
		return nil, err
	}
	return s.Storage.GetContent(ctx, account, hash)
}

// envOver is a Service over st, as newRenderEnv's.
func envOver(t testing.TB, st storage.Storage) *env {
	t.Helper()
	mc := clock.NewMock()
	mc.Set(renderStart)
	svc := lettershop.New(st, lettershop.WithClock(mc), lettershop.WithEntropy(rand.New(rand.NewSource(7))),
		lettershop.WithTokenKey([]byte("render test key")))
	t.Cleanup(func() { svc.Close() })
	return &env{svc: svc, clock: mc, ctx: context.Background()}
}

// A store that fails while a letter's content is read (the template asset,
// its version, the template, or an asset a variable names) is the
// service's failure, not the request's: the create is an internal error,
// or a cancelled one when the caller's context ended, never a field error.
// Neither is kept under the request's idempotency key: a retry runs again
// and makes the letter. (Kept, the request's first answer would be
// replayed for good: a 400 for a valid letter.)
func TestStoreFailuresReadingContentAreNotTheRequests(t *testing.T) {
	st := &faultyStore{Storage: memstore.New()}
	e := envOver(t, st)
	tpl, _ := e.version(t, lettershop.AssetTemplate, "text/html", logoTemplate, logoDefinitions...)
	logo := e.assetIn(t, renderAccount, lettershop.AssetImage, "image/png", pdftest.PNG(t, 600, 150), true)
	in := lettershop.CreateLetterInput{
		Sender:    letterInput("").Sender,
		Recipient: letterInput("").Recipient,
		Content:   &lettershop.LetterContent{Type: "asset", AssetID: tpl.ID},
		UseType:   lettershop.UseTransactional,
		Variables: vars("name", "Jane", "logo", logo.ID),
	}
	reads := []struct {
		what string
		op   string
		nth  int
	}{
		{"the letter's asset", "GetAsset", 1},
		{"the letter's version", "GetAssetVersion", 1},
		{"the template", "GetContent", 1},
		{"a variable's asset", "GetAsset", 2},
		{"a variable's asset's version", "GetAssetVersion", 2},
		{"a variable's asset's content", "GetContent", 2},
	}
	for i, r := range reads {
		for _, cut := range []bool{false, true} {
			name := r.what + ", the store failing"
			if cut {
				name = r.what + ", the caller's context ended"
			}
			t.Run(name, func(t *testing.T) {
				key := fmt.Sprintf("create-%d-%v", i, cut)
				ctx, cancel := context.WithCancel(lettershop.WithIdempotencyKey(e.ctx, key))
				defer cancel()
				want := lettershop.CodeInternal
				st.fail(r.op, r.nth, func() error { return errors.New("connection reset by peer") })
				if cut {
					want = lettershop.CodeCanceled
					st.fail(r.op, r.nth, func() error { cancel(); return ctx.Err() })
				}
				_, err := e.svc.CreateLetter(ctx, renderAccount, in)
				if got := lettershop.ErrorCode(err); got != want {
					t.Fatalf("create with %s failing: %v (%v), want %v", r.what, got, err, want)
				}
				l, err := e.svc.CreateLetter(lettershop.WithIdempotencyKey(e.ctx, key), renderAccount, in)
				if err != nil {
					t.Fatalf("the create tried again under its key: %v, want the letter made", err)
				}
				if l.ID == "" || l.Status != lettershop.StatusQueued {
					t.Errorf("the create tried again: %+v", l)
				}
			})
		}
	}

	// An update giving new content reads it the same way.
	l, err := e.svc.CreateLetter(e.ctx, renderAccount, in)
	if err != nil {
		t.Fatal(err)
	}
	other := e.assetIn(t, renderAccount, lettershop.AssetImage, "image/png", pdftest.PNG(t, 600, 150), true)
	up := lettershop.UpdateLetterInput{Content: in.Content, Variables: &[]lettershop.Variable{vars("name", "Jo")[0], vars("logo", other.ID)[0]}}
	st.fail("GetAsset", 1, func() error { return errors.New("connection reset by peer") })
	_, err = e.svc.UpdateLetter(lettershop.WithIdempotencyKey(e.ctx, "update"), renderAccount, l.ID, up)
	wantCode(t, err, lettershop.CodeInternal)
	if _, err := e.svc.UpdateLetter(lettershop.WithIdempotencyKey(e.ctx, "update"), renderAccount, l.ID, up); err != nil {
		t.Errorf("the update tried again under its key: %v", err)
	}
}

// A request whose context ended fails with what its operation says, but
// whatever that is (here an invalid-input error, as a read cut short may
// make one), it is not kept under its key: the retry runs again.
func TestIdempotentCutOffRequestIsNotKept(t *testing.T) {
	e := newEnv(t)
	req := lettershop.IdempotentRequest{Scope: "s", Key: "cut", Fingerprint: "f", Encode: encodeString}
	ctx, cancel := context.WithCancel(e.ctx)
	_, err := e.svc.Idempotent(ctx, req, func(context.Context) (any, error) {
		cancel()
		return nil, &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the request is invalid", Fields: map[string]string{"x": "could not be read"}}
	})
	wantCode(t, err, lettershop.CodeInvalid)
	res, err := e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	if err != nil || res.Replayed || text(res) != "second" {
		t.Errorf("the request tried again: %q replayed %v, %v; want it run again", text(res), res.Replayed, err)
	}
	// An error that says it was cancelled is not kept either, whatever
	// the Encode.
	keepAll := func(v any, err error) (lettershop.Outcome, bool) {
		return lettershop.BytesOutcome(fmt.Sprint(v, err)), true
	}
	req = lettershop.IdempotentRequest{Scope: "s", Key: "canceled", Fingerprint: "f", Encode: keepAll}
	_, err = e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) {
		return nil, &lettershop.Error{Code: lettershop.CodeCanceled, Message: "the request was cancelled"}
	})
	wantCode(t, err, lettershop.CodeCanceled)
	res, err = e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	if err != nil || res.Replayed {
		t.Errorf("the request tried again: %q replayed %v, %v; want it run again", text(res), res.Replayed, err)
	}
	// While a request whose context is live keeps its client error.
	req = lettershop.IdempotentRequest{Scope: "s", Key: "invalid", Fingerprint: "f", Encode: encodeString}
	_, _ = e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) {
		return nil, &lettershop.Error{Code: lettershop.CodeInvalid, Message: "the request is invalid"}
	})
	res, err = e.svc.Idempotent(e.ctx, req, func(context.Context) (any, error) { return "second", nil })
	if err != nil || !res.Replayed {
		t.Errorf("an invalid request tried again: %q replayed %v, %v; want its error replayed", text(res), res.Replayed, err)
	}
}

// An import whose download the caller's context cut off knows nothing of
// its URL: the create is cancelled, not a field error about the URL, and
// its key is free for the retry, which downloads and makes the version.
func TestImportCutOffIsNotTheRequests(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(lettershop.WithIdempotencyKey(e.ctx, "import"))
	defer cancel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			cancel()
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<p>Dear {{name}}</p>")
	}))
	t.Cleanup(srv.Close)
	tpl := e.makeAsset(t, lettershop.AssetTemplate)
	in := lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Source: lettershop.ContentImport, Type: "text/html", Content: srv.URL + "/t.html"},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name"}},
	}
	_, err := e.svc.CreateVersion(ctx, acct, tpl.ID, in)
	wantCode(t, err, lettershop.CodeCanceled)
	v, err := e.svc.CreateVersion(lettershop.WithIdempotencyKey(e.ctx, "import"), acct, tpl.ID, in)
	if err != nil || v.ContentLength == 0 {
		t.Fatalf("the create tried again under its key: %+v, %v; want the version made", v, err)
	}
}

// A version's new definitions are checked against its stored template: a
// store that fails to read it fails the update, which its key does not
// keep, rather than let the definitions through unchecked.
func TestStoreFailureRecheckingATemplate(t *testing.T) {
	st := &faultyStore{Storage: memstore.New()}
	e := envOver(t, st)
	a, err := e.svc.CreateAsset(e.ctx, renderAccount, lettershop.CreateAssetInput{Name: "Draft", Type: lettershop.AssetTemplate})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.CreateVersion(e.ctx, renderAccount, a.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Type: "text/html", Content: "<p>Dear {{name}}</p>"},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defs := []lettershop.VariableDefinition{{Name: "name"}, {Name: "order"}}
	up := lettershop.UpdateVersionInput{VariableDefinitions: &defs}
	st.fail("GetContent", 1, func() error { return errors.New("connection reset by peer") })
	_, err = e.svc.UpdateVersion(lettershop.WithIdempotencyKey(e.ctx, "defs"), renderAccount, a.ID, v.ID, up)
	wantCode(t, err, lettershop.CodeInternal)
	got, err := e.svc.UpdateVersion(lettershop.WithIdempotencyKey(e.ctx, "defs"), renderAccount, a.ID, v.ID, up)
	if err != nil || len(got.VariableDefinitions) != 2 {
		t.Fatalf("the update tried again under its key: %+v, %v", got, err)
	}
}
