package lettershop

import (
	"context"
	"regexp"
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/lettershop/lettershop/memstore"
)

// TestDownloadsRenderOnce checks that a letter is rendered once however
// many links to it are made and opened, more than the cache holds letters,
// and that every link is new though the clock stands still.
func TestDownloadsRenderOnce(t *testing.T) {
	ctx := context.Background()
	mc := clock.NewMock()
	s := New(memstore.New(), WithClock(mc), WithRenderCacheSize(2))
	t.Cleanup(func() { _ = s.Close() })
	a, err := s.CreateAsset(ctx, "acct", CreateAssetInput{Name: "T"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateVersion(ctx, "acct", a.ID, CreateVersionInput{Content: &VersionContent{Type: "text/html", Content: "<p>Hi</p>"}, Publish: true}); err != nil {
		t.Fatal(err)
	}
	l, err := s.CreateLetter(ctx, "acct", CreateLetterInput{
		Sender:    &PartyInput{Organization: "Acme", Address: AddressInput{AddressLine1: "100 Main St", LastLine: "Springfield, IL 62701"}},
		Recipient: &PartyInput{Organization: "Ελληνικά Русский", Address: AddressInput{AddressLine1: "200 Oak Ave", LastLine: "Chicago, IL 60601"}},
		Content:   &LetterContent{Type: "asset", AssetID: a.ID},
		UseType:   UseTransactional,
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var first []byte
	const links = 300
	for range links {
		u, err := s.DownloadURL(ctx, "acct", l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if seen[u] {
			t.Fatalf("link %q made twice", u)
		}
		seen[u] = true
		file, expires, sig := splitLink(t, u)
		b, err := s.OpenDownload(ctx, file, expires, sig)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Fatal("links to one letter served different bytes")
		}
	}
	if n := s.render.cache.Rendered(); n != 1 {
		t.Errorf("%d links rendered the letter %d times, want once", links, n)
	}
}

func splitLink(t *testing.T, u string) (file, expires, sig string) {
	t.Helper()
	m := linkParts.FindStringSubmatch(u)
	if m == nil {
		t.Fatalf("link %q", u)
	}
	return m[1], m[2], m[3]
}

var linkParts = regexp.MustCompile(`/files/letters/([^?]+)\?expires=(\d+)&signature=([A-Za-z0-9_-]+)$`)
