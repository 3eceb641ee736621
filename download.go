package lettershop

import (
	"context"
	"strings"
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
const DefaultDownloadTTL = signedlink.DefaultTTL

// WithDownloadTTL sets how long a link from DownloadURL stays good. The
// default is DefaultDownloadTTL.
func WithDownloadTTL(d time.Duration) Option {
	return func(s *Service) { s.download.TTL = d }
}

// DownloadURL returns a fresh signed link to the letter's PDF, good for the
// download link lifetime (DefaultDownloadTTL unless WithDownloadTTL):
// {base}/files/letters/{id}.pdf?expires=...&signature=... The link needs no
// API key; OpenDownload serves it. An account longer than a link carries
// (signedlink.MaxAccount bytes) gets none: CodeInternal, as the account is
// the server's, not the request's.
func (s *Service) DownloadURL(ctx context.Context, account, id string) (string, error) {
	ctx = s.clocks.Read(ctx)
	l, err := s.getLetter(ctx, account, id)
	if err != nil {
		return "", err
	}
	e, sig, err := s.download.Sign(account, l.ID, s.now(account))
	if err != nil {
		return "", internal("sign the download link", err)
	}
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
	account, exp, ok := s.download.Open(id, expires, signature)
	if !ok {
		return nil, errLinkInvalid
	}
	ctx, erasures := s.Erasures(ctx, account)
	if !s.now(account).Before(exp) {
		return nil, errorf(CodeForbidden, "the download link has expired: ask for a new one at /letters/%s/download", id)
	}
	l, err := s.getLetter(ctx, account, id)
	if err != nil {
		return nil, err
	}
	return s.renderLetter(ctx, account, l, erasures)
}

var errLinkInvalid = errorf(CodeForbidden, "the download link is not valid")
