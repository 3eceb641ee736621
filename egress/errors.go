package egress

import (
	"fmt"
	"net/netip"
)

// Kind says why a request was refused or failed.
type Kind string

// The kinds of Error.
const (
	// KindBadURL: the URL is not one lettershop fetches (not http or https,
	// no host, a user name or password before the host, a host of no valid
	// form). Fixing the URL is the way out.
	KindBadURL Kind = "badURL"
	// KindRefused: the policy refuses the host or the address it resolves
	// to, or a redirect to one. Another URL, or another policy on the
	// server, is the way out.
	KindRefused Kind = "refused"
	// KindUnreachable: the name is not found, the connection is refused or
	// broken, TLS fails. It may pass on a later try.
	KindUnreachable Kind = "unreachable"
	// KindTimeout: no complete answer in time.
	KindTimeout Kind = "timeout"
	// KindStatus: the server answered, with a status other than 2xx
	// (StatusCode).
	KindStatus Kind = "status"
	// KindTooLarge: the answer is larger than the bytes taken (Limit).
	KindTooLarge Kind = "tooLarge"
	// KindRedirects: more redirects than the client follows.
	KindRedirects Kind = "redirects"
)

// Error is why a request was refused or failed, in words a person can act
// on. Error() reads as a reason, to follow a caller's "the url in
// content.content could not be fetched: "; it names the URL only when it
// is another than the one asked for (the target of a redirect).
type Error struct {
	Kind Kind
	// URL is the URL the error is about, without any password, when it is
	// known: the one asked for, or a redirect's target.
	URL string
	// Addr is the refused address, when one is (KindRefused).
	Addr netip.Addr
	// StatusCode is the answer's status (KindStatus).
	StatusCode int
	// Limit is the most bytes taken (KindTooLarge).
	Limit int64
	// Err is the underlying error, if any.
	Err error

	msg string
}

func (e *Error) Error() string { return e.msg }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func badURL(rawURL, msg string) *Error {
	return &Error{Kind: KindBadURL, URL: rawURL, msg: msg}
}

// size writes n bytes for a person: 10 MiB, 512 KiB, 1000 bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
