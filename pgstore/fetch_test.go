package pgstore_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lettershop/lettershop"
)

// TestTwoServersFetchBeforeProduction: letters whose template stays at a
// URL, run by two servers at once over documents they read serialized:
// each letter goes into production once when the URL answers, and to
// issue once when it does not, the same on both servers.
func TestTwoServersFetchBeforeProduction(t *testing.T) {
	t.Parallel()
	_, a, b := twoServers(t)
	ctx := t.Context()
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "gone", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>Fetched {{name}}</p>"))
	}))
	t.Cleanup(srv.Close)
	asset, err := a.svc.CreateAsset(ctx, acct, lettershop.CreateAssetInput{Name: "Remote"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.svc.CreateVersion(ctx, acct, asset.ID, lettershop.CreateVersionInput{
		Content:             &lettershop.VersionContent{Source: lettershop.ContentExternalURL, Content: srv.URL + "/t.html"},
		VariableDefinitions: []lettershop.VariableDefinition{{Name: "name"}},
		Publish:             true,
	}); err != nil {
		t.Fatal(err)
	}
	run := func() {
		// Tuesday 09:00 to Wednesday 15:00, past production at 14:00 and
		// before mailing.
		a.clock.Add(30 * time.Hour)
		b.clock.Add(30 * time.Hour)
		var wg sync.WaitGroup
		for _, s := range []server{a, b} {
			wg.Go(func() {
				if _, err := s.svc.RunDue(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	check := func(id string, want lettershop.LetterStatus) *lettershop.Letter {
		t.Helper()
		la, err := a.svc.GetLetter(ctx, acct, id)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := b.svc.GetLetter(ctx, acct, id)
		if err != nil {
			t.Fatal(err)
		}
		wantSame(t, "letter "+id+" on a and b", la, lb)
		if la.Status != want {
			t.Fatalf("letter %s: %s, want %s:\n%s", id, la.Status, want, asJSON(t, la.Events))
		}
		if n := len(la.Events); n != 3 || la.Events[n-1].Status != lettershop.EventStatus(want) {
			t.Errorf("letter %s: events %s, want queued, ready and one %s", id, asJSON(t, la.Events), want)
		}
		return la
	}
	ok, err := a.svc.CreateLetter(ctx, acct, letterInput(asset.ID))
	if err != nil {
		t.Fatal(err)
	}
	run()
	check(ok.ID, lettershop.StatusInProduction)

	down.Store(true)
	failed, err := b.svc.CreateLetter(ctx, acct, letterInput(asset.ID))
	if err != nil {
		t.Fatal(err)
	}
	run()
	got := check(failed.ID, lettershop.StatusIssue)
	if !strings.Contains(got.IssueMessage, "503 Service Unavailable") {
		t.Errorf("issueMessage %q, want the answer the server gave", got.IssueMessage)
	}
}
