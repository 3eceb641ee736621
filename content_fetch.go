package lettershop

import (
	"context"
	"fmt"
	"slices"

	"github.com/lettershop/lettershop/egress"
	"github.com/lettershop/lettershop/fetchbatch"
)

// Content given by URL: a version's content downloaded once (import) or
// kept at its URL (externalUrl), and the images and fonts of variables of
// type externalUrl. All of it is fetched one way, fetchURL (the Service's
// Fetcher, under its egress policy, within ExternalFetchTimeout), and what
// a fetch gives is checked as content stored in the service is, each time
// it is fetched: a server's content can change between two fetches.

// fetchFunc fetches content a letter prints from a URL: fetchContent for
// one letter; for a lifecycle run, the results of one batch of fetches
// for all the letters it holds (lifecycle_fetch.go).
type fetchFunc = fetchbatch.Func

// fetchURL fetches url through the Service's Fetcher (WithFetcher, else
// the egress client), within ExternalFetchTimeout, taking at most maxBytes.
// When ctx ends first, it returns ctx's error: the end of the caller, not
// a fault of the URL.
func (s *Service) fetchURL(ctx context.Context, url string, maxBytes int64) ([]byte, string, error) {
	f := s.render.fetcher
	if f == nil {
		f = egressFetcher{s.fetch}
	}
	fctx, cancel := context.WithTimeout(ctx, ExternalFetchTimeout)
	defer cancel()
	body, typ, err := f.Fetch(fctx, url, maxBytes)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, "", ctx.Err()
	case err != nil:
		return nil, "", err
	case int64(len(body)) > maxBytes:
		return nil, "", fmt.Errorf("the answer is larger than the %d bytes taken", maxBytes)
	}
	return body, typ, nil
}

// fetchContent is fetchURL with the limit of content fetched when a letter
// is printed or a version's content is served.
func (s *Service) fetchContent(ctx context.Context, url string) ([]byte, string, error) {
	return s.fetchURL(ctx, url, MaxExternalContent)
}

// notFetched reports whether err says a fetch did not happen for a reason
// of the caller's: nothing is then known of the URL (fetchbatch.NotFetched).
func notFetched(err error) bool { return fetchbatch.NotFetched(err) }

// fetchFailure words a failed fetch for a person, to follow "could not be
// fetched from URL: ".
func fetchFailure(err error) string {
	if egress.TimedOut(err) {
		return fmt.Sprintf("no complete answer within %s", ExternalFetchTimeout)
	}
	return err.Error()
}

// fetchedAs are the media types, besides its own, that a server may give
// content of each type as: names in use before the types were registered,
// and application/octet-stream, bytes of no stated kind, which the checks
// of the content then judge alone. A template must come as text/html.
var fetchedAs = map[ContentType][]string{
	ContentPNG:  {"application/octet-stream"},
	ContentJPEG: {"image/jpg", "image/pjpeg", "application/octet-stream"},
	ContentPDF:  {"application/x-pdf", "application/octet-stream"},
	ContentTTF:  {"font/sfnt", "application/font-sfnt", "application/x-font-ttf", "application/x-font-truetype", "application/octet-stream"},
	ContentOTF:  {"font/sfnt", "application/font-sfnt", "application/x-font-opentype", "application/vnd.ms-opentype", "application/octet-stream"},
}

// fetchedContentProblem says what keeps content fetched for a version of
// type typ, served as mediaType, from standing as its content, or "":
// the media type must be typ (or a name of it), and the bytes pass the
// checks inline content passes (checkContent).
func fetchedContentProblem(typ ContentType, mediaType string, data []byte, defs []VariableDefinition) string {
	if mediaType != string(typ) && !slices.Contains(fetchedAs[typ], mediaType) {
		if mediaType == "" {
			mediaType = "no type"
		}
		return fmt.Sprintf("the server gave %s, and the version holds %s: serve it as %s", mediaType, typ, typ)
	}
	if len(data) == 0 {
		return "the server gave no content"
	}
	return checkContent(string(typ), data, defs)
}

// printURLs are the URLs a letter's printing fetches: its content's, when
// its version keeps the content at a URL, and the values of its variables
// of type externalUrl, in that order, each once.
func printURLs(l *Letter) []string {
	var urls []string
	if u := l.snapshot.url(); u != "" {
		urls = append(urls, u)
	}
	for _, d := range l.snapshot.Definitions {
		if d.Type != VariableTypeExternalURL {
			continue
		}
		for _, v := range l.snapshot.Merge {
			if v.Name == d.Name && v.Value != nil && *v.Value != "" && !slices.Contains(urls, *v.Value) {
				urls = append(urls, *v.Value)
			}
		}
	}
	return urls
}

// fetches reports whether printing l fetches anything (printURLs is not
// empty), without making the list: it is asked of every letter written.
func fetches(l *Letter) bool {
	if l.snapshot.url() != "" {
		return true
	}
	for _, d := range l.snapshot.Definitions {
		if d.Type != VariableTypeExternalURL {
			continue
		}
		for _, v := range l.snapshot.Merge {
			if v.Name == d.Name && v.Value != nil && *v.Value != "" {
				return true
			}
		}
	}
	return false
}
