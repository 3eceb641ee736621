package lettershop

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lettershop/lettershop/signedlink"
)

// Download links.
//
// A link names the letter ({id}.pdf) and when it expires; its signature
// (package signedlink) carries the account, which the link must identify
// but should not show, and a serial number that makes every link
// different. A link changed in any part (letter, expiry, signature) is
// refused. Every link to one letter serves the same bytes, rendered once
// (renderLetter's cache).

// DefaultDownloadTTL is how long a download link lasts unless
// WithDownloadTTL says otherwise.
const DefaultDownloadTTL = 15 * time.Minute

// WithDownloadTTL sets how long a link from DownloadURL stays good. The
// default is DefaultDownloadTTL.
func WithDownloadTTL(d time.Duration) Option {
	return func(s *Service) { s.download.ttl = d }
}

// downloadState is the Service's download-link state, set up on first use
// so that New need not know about it.
type downloadState struct {
	ttl  time.Duration
	once sync.Once
	// links signs download links and opens their signatures.
	links *signedlink.Signer
}

func (s *Service) downloads() *downloadState {
	d := &s.download
	d.once.Do(func() {
		if d.ttl <= 0 {
			d.ttl = DefaultDownloadTTL
		}
		// Servers sharing WithTokenKey share links; signedlink keeps its
		// keys apart from the pagination tokens'.
		d.links = signedlink.New(s.tokenKey, nil)
	})
	return d
}

// DownloadURL returns a fresh signed link to the letter's PDF, good for the
// download link lifetime (DefaultDownloadTTL unless WithDownloadTTL):
// {base}/files/letters/{id}.pdf?expires=...&signature=... The link needs no
// API key; OpenDownload serves it.
func (s *Service) DownloadURL(ctx context.Context, account, id string) (string, error) {
	ctx = s.readClocks(ctx)
	l, err := s.getLetter(ctx, account, id)
	if err != nil {
		return "", err
	}
	d := s.downloads()
	// Rounded up to the second, so a link lasts at least the lifetime.
	exp := s.now(account).Add(d.ttl)
	expires := exp.Unix()
	if exp.After(time.Unix(expires, 0)) {
		expires++
	}
	e := strconv.FormatInt(expires, 10)
	sig := d.links.Sign(account, l.ID, e, d.links.NextSerial())
	return s.baseURL + "/files/letters/" + l.ID + ".pdf?expires=" + e + "&signature=" + sig, nil
}

// OpenDownload serves a signed link made by DownloadURL: file is the last
// path element ({id}.pdf), expires and signature its query parameters. It
// returns the rendered PDF. An expired or altered link is a CodeForbidden
// error; a link to a letter that no longer exists, CodeNotFound.
func (s *Service) OpenDownload(ctx context.Context, file, expires, signature string) ([]byte, error) {
	id, ok := strings.CutSuffix(file, ".pdf")
	if !ok || !ValidID(letterPrefix, id) {
		return nil, errLinkInvalid
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || strconv.FormatInt(exp, 10) != expires {
		return nil, errLinkInvalid
	}
	account, ok := s.downloads().links.Open(id, expires, signature)
	if !ok {
		return nil, errLinkInvalid
	}
	ctx = s.readClocks(ctx)
	if !s.now(account).Before(time.Unix(exp, 0)) {
		return nil, errorf(CodeForbidden, "the download link has expired: ask for a new one at /letters/%s/download", id)
	}
	l, err := s.getLetter(ctx, account, id)
	if err != nil {
		return nil, err
	}
	return s.renderLetter(ctx, account, l)
}

var errLinkInvalid = errorf(CodeForbidden, "the download link is not valid")
