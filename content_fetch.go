package lettershop

import (
	"context"
	"iter"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/fetchbatch"
	"github.com/lettershop/lettershop/render"
)

// Content given by URL: a version's content downloaded once (import) or
// kept at its URL (externalUrl), and the images and fonts of variables of
// type externalUrl. All of it is fetched one way, fetchURL (the Service's
// Fetcher, under its egress policy, within ExternalFetchTimeout), and what
// a fetch gives is checked as content stored in the service is, each time
// it is fetched: a server's content can change between two fetches.

// fetchURL fetches url through the Service's Fetcher (WithFetcher, else
// the egress client), within ExternalFetchTimeout, taking at most maxBytes
// (fetchbatch.Limited: when ctx ends first, its error).
func (s *Service) fetchURL(ctx context.Context, url string, maxBytes int64) ([]byte, string, error) {
	fetch := s.fetch.FetchBody
	if s.render.fetcher != nil {
		fetch = s.render.fetcher.Fetch
	}
	return fetchbatch.Limited(ctx, url, ExternalFetchTimeout, maxBytes, fetch)
}

// fetchContent is fetchURL with the limit of content fetched when a letter
// is printed or a version's content is served.
func (s *Service) fetchContent(ctx context.Context, url string) ([]byte, string, error) {
	return s.fetchURL(ctx, url, MaxExternalContent)
}

// fetchFailure words a failed fetch for a person, to follow "could not be
// fetched from URL: ".
func fetchFailure(err error) string { return egress.Describe(err, ExternalFetchTimeout) }

// fetchedContentProblem says what keeps content fetched for a version of
// MIME type typ, served as mediaType, from standing as its content, or ""
// (render.FetchedProblem, with the resource variables of defs); err is
// ctx ended while the check waited for its turn (CodeCanceled).
func fetchedContentProblem(ctx context.Context, typ, mediaType string, data []byte, defs []VariableDefinition) (string, error) {
	msg, err := render.FetchedProblem(ctx, typ, mediaType, data, resourceVariables(defs))
	return msg, storeErr("wait to check content", err)
}

// printURLs are the URLs a letter's printing fetches: its content's, when
// its version keeps the content at a URL, and the values of its variables
// of type externalUrl, in that order (a URL two variables give, twice).
func printURLs(l *Letter) iter.Seq[string] {
	return func(yield func(string) bool) {
		if u := l.snapshot.url(); u != "" && !yield(u) {
			return
		}
		for _, d := range l.snapshot.Definitions {
			if d.Type != VariableTypeExternalURL {
				continue
			}
			for _, v := range l.snapshot.Merge {
				if v.Name == d.Name && v.Value != nil && *v.Value != "" && !yield(*v.Value) {
					return
				}
			}
		}
	}
}

// fetches reports whether printing l fetches anything: it is asked of
// every letter written.
func fetches(l *Letter) bool {
	for range printURLs(l) {
		return true
	}
	return false
}
