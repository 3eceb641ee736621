package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults of a Client.
const (
	// DefaultTimeout is how long a request may take, from the dial to the
	// last byte of the answer.
	DefaultTimeout = 30 * time.Second
	// DefaultDialTimeout is how long one connection may take to open.
	DefaultDialTimeout = 10 * time.Second
	// DefaultMaxRedirects is how many redirects a request follows.
	DefaultMaxRedirects = 5
	// DefaultMaxBytes is the most bytes Fetch takes when given no limit.
	DefaultMaxBytes = 10 << 20
	// UserAgent is the User-Agent of Fetch's requests.
	UserAgent = "lettershop-fetch/1"
)

// maxHeaderBytes caps the header of an answer.
const maxHeaderBytes = 64 << 10

// Resolver looks up a host's addresses. *net.Resolver is one; tests give
// one that answers from a table, so that no query leaves the machine.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Client makes requests under a Policy: every connection it opens is to an
// address the policy allows, checked as it is dialled, and every request
// ends within its timeout. It is safe for concurrent use; make one and
// keep it, for its connections are reused.
type Client struct {
	policy       Policy
	resolver     Resolver
	timeout      time.Duration
	dialTimeout  time.Duration
	maxRedirects int
	http         *http.Client
	// opened is set by the first DialContext: a Client that never dialled
	// holds no connection to close.
	opened atomic.Bool

	// dialed, when set (tests), is told of every address just before it is
	// dialled, and stops the dial by an error.
	dialed func(netip.AddrPort) error
}

// Option configures a Client.
type Option func(*Client)

// WithResolver sets how names are looked up. The default is
// net.DefaultResolver.
func WithResolver(r Resolver) Option { return func(c *Client) { c.resolver = r } }

// WithTimeout sets how long a request may take, from the dial to the last
// byte of the answer; d <= 0 is DefaultTimeout. A context's earlier
// deadline ends it sooner.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithDialTimeout sets how long one connection may take to open; d <= 0 is
// DefaultDialTimeout.
func WithDialTimeout(d time.Duration) Option { return func(c *Client) { c.dialTimeout = d } }

// WithMaxRedirects sets how many redirects a request follows; each is
// checked against the policy before anything is dialled. With 0 none is
// followed, and a 3xx is the answer (HTTP's client then returns it; Fetch
// fails with KindStatus). n < 0 is DefaultMaxRedirects.
func WithMaxRedirects(n int) Option { return func(c *Client) { c.maxRedirects = n } }

// New returns a Client of the policy p.
func New(p Policy, opts ...Option) *Client {
	c := &Client{policy: p, resolver: net.DefaultResolver, maxRedirects: DefaultMaxRedirects}
	for _, o := range opts {
		o(c)
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.dialTimeout <= 0 {
		c.dialTimeout = DefaultDialTimeout
	}
	if c.maxRedirects < 0 {
		c.maxRedirects = DefaultMaxRedirects
	}
	c.http = &http.Client{
		Transport: &http.Transport{
			// No proxy: a proxy would dial for us, out of the policy's
			// sight.
			Proxy:                  nil,
			DialContext:            c.DialContext,
			ForceAttemptHTTP2:      true,
			TLSHandshakeTimeout:    c.dialTimeout,
			MaxResponseHeaderBytes: maxHeaderBytes,
			IdleConnTimeout:        90 * time.Second,
			MaxIdleConns:           32,
		},
		Timeout:       c.timeout,
		CheckRedirect: c.checkRedirect,
	}
	return c
}

// Policy returns the policy of c.
func (c *Client) Policy() Policy { return c.policy }

// HTTP returns the http.Client of c, for requests Fetch does not make (a
// webhook's POST). It dials through DialContext, follows redirects as
// WithMaxRedirects says, checking each, uses no proxy and ends a request
// at the timeout. Its fields are c's own: change none of them.
func (c *Client) HTTP() *http.Client { return c.http }

// CloseIdleConnections closes the idle connections of c's HTTP client,
// as http.Client's method does, when it ever opened one. A Service and its
// deliverer each make a Client and close its connections when they end;
// asking a Transport that never made a request to close them has it set
// up HTTP/2 first, 13 allocations and 1.4 KB for each Client of every
// test's Service that fetched nothing and posted no event.
func (c *Client) CloseIdleConnections() {
	if c.opened.Load() {
		c.http.CloseIdleConnections()
	}
}

// DialContext opens a connection to address (host:port) under the policy:
// the host is checked (CheckHost), a name is looked up with the Resolver,
// the connection is refused if any of its addresses is, and each address
// is dialled with a Control hook that checks it again as it is dialled. A
// refusal is an *Error of KindRefused.
func (c *Client) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c.opened.Store(true)
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &Error{Kind: KindBadURL, Err: err, msg: fmt.Sprintf("%q is not a host and port", address)}
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return nil, &Error{Kind: KindBadURL, msg: fmt.Sprintf("the port %q is not one from 1 to 65535", portText)}
	}
	literal, listed, cerr := c.policy.checkHost(host)
	if cerr != nil {
		return nil, cerr
	}
	name := ""
	addrs := []netip.Addr{literal}
	if !literal.IsValid() {
		name = host
		if addrs, err = c.lookup(ctx, network, host); err != nil {
			return nil, err
		}
		// One refused address refuses the name: dialling the others would
		// make its answers depend on the order of the lookup.
		for _, a := range addrs {
			if e := c.policy.checkAddr(a, name, listed); e != nil {
				return nil, e
			}
		}
	}
	var errs []error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a.Unmap(), uint16(port))
		if c.dialed != nil {
			if err := c.dialed(ap); err != nil {
				return nil, err
			}
		}
		d := net.Dialer{Timeout: c.dialTimeout, Control: c.policy.control(name, listed)}
		conn, err := d.DialContext(ctx, network, ap.String())
		if err == nil {
			return conn, nil
		}
		var refused *Error
		if errors.As(err, &refused) {
			return nil, refused
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) > 1 {
		return nil, fmt.Errorf("%w (and %d more addresses of %s failed)", errs[0], len(errs)-1, host)
	}
	return nil, errs[0]
}

// lookup returns the addresses of the name host for network.
func (c *Client) lookup(ctx context.Context, network, host string) ([]netip.Addr, error) {
	ipNet := "ip"
	switch network {
	case "tcp4", "udp4":
		ipNet = "ip4"
	case "tcp6", "udp6":
		ipNet = "ip6"
	}
	addrs, err := c.resolver.LookupNetIP(ctx, ipNet, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return addrs, nil
}

// checkRedirect checks a redirect's target before anything is dialled.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if c.maxRedirects == 0 {
		return http.ErrUseLastResponse
	}
	target := req.URL.Redacted()
	if len(via) > c.maxRedirects {
		return &Error{Kind: KindRedirects, URL: target,
			msg: fmt.Sprintf("the server redirected more than %d times (the last to %s)", c.maxRedirects, target)}
	}
	if _, err := c.policy.CheckURL(req.URL.String()); err != nil {
		var e *Error
		errors.As(err, &e)
		e.URL = target
		e.msg = fmt.Sprintf("the server redirected to %s, which is refused: %s", target, e.msg)
		return e
	}
	return nil
}

// Content is what Fetch got.
type Content struct {
	// Body is the answer's body, at most the bytes asked for.
	Body []byte
	// MediaType is the answer's media type, lower-case and without
	// parameters ("image/png"): its Content-Type, or, when it has none or
	// one that does not parse, the type its first bytes show
	// (http.DetectContentType).
	MediaType string
	// URL is where the body came from, after any redirects.
	URL string
}

// Fetch gets rawURL, after checking it (CheckURL), and returns its body,
// of at most maxBytes (<= 0: DefaultMaxBytes), and its media type. Any
// failure is an *Error whose Kind and text say why: a URL not taken or
// refused, a refused address or redirect, no answer in time, a status
// other than 2xx, a body over maxBytes. Only a canceled ctx returns
// ctx.Err() as it is.
func (c *Client) Fetch(ctx context.Context, rawURL string, maxBytes int64) (*Content, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	u, err := c.policy.CheckURL(rawURL)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{Kind: KindBadURL, URL: u.Redacted(), Err: err, msg: fmt.Sprintf("the request could not be made: %v", err)}
	}
	req.Header.Set("User-Agent", UserAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.failure(ctx, u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := fmt.Sprintf("the server answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
			msg += ", a redirect this request does not follow"
		}
		return nil, &Error{Kind: KindStatus, URL: u.Redacted(), StatusCode: resp.StatusCode, msg: msg}
	}
	if resp.ContentLength > maxBytes {
		return nil, &Error{Kind: KindTooLarge, URL: u.Redacted(), Limit: maxBytes,
			msg: fmt.Sprintf("the answer is %d bytes, more than the %s taken", resp.ContentLength, size(maxBytes))}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, c.failure(ctx, u, err)
	}
	if int64(len(body)) > maxBytes {
		return nil, &Error{Kind: KindTooLarge, URL: u.Redacted(), Limit: maxBytes,
			msg: fmt.Sprintf("the answer is larger than the %s taken", size(maxBytes))}
	}
	return &Content{Body: body, MediaType: mediaType(resp.Header.Get("Content-Type"), body), URL: resp.Request.URL.Redacted()}, nil
}

// FetchBody is Fetch giving the body and its media type apart, the form
// of a function that fetches.
func (c *Client) FetchBody(ctx context.Context, rawURL string, maxBytes int64) ([]byte, string, error) {
	got, err := c.Fetch(ctx, rawURL, maxBytes)
	if err != nil {
		return nil, "", err
	}
	return got.Body, got.MediaType, nil
}

// mediaType is the media type of header, else the one body shows.
func mediaType(header string, body []byte) string {
	if t, _, err := mime.ParseMediaType(header); err == nil {
		return t
	}
	t, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	return t
}

// failure turns what a request returned into an *Error (Classify).
func (c *Client) failure(ctx context.Context, u *url.URL, err error) error {
	return Classify(ctx, u, err, c.timeout)
}

// Classify turns what an HTTP request to u returned, an error of an
// http.Client's Do or of reading its answer, into an *Error whose Kind and
// text say why, as a Client's Fetch does: an *Error already (a refusal) as
// it is, with its URL; no complete answer within timeout, or before ctx's
// deadline, KindTimeout; a name not found, no connection, anything else
// KindUnreachable. ctx is the caller's context: once canceled, its error
// is returned as it is.
func Classify(ctx context.Context, u *url.URL, err error, timeout time.Duration) error {
	var e *Error
	if errors.As(err, &e) {
		if e.URL == "" {
			// Refused at the dial, which knows no URL: the request's says
			// whether it followed a redirect.
			e.URL = u.Redacted()
			var ue *url.Error
			if errors.As(err, &ue) && !sameURL(ue.URL, u) {
				e.URL = ue.URL
				e.msg = fmt.Sprintf("the server redirected to %s, which is refused: %s", ue.URL, e.msg)
			}
		}
		return e
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	at := u.Redacted()
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		msg := fmt.Sprintf("no complete answer within %s", timeout)
		switch {
		case ctx.Err() != nil:
			msg = "no complete answer before the deadline"
		case dialTimedOut(err):
			msg = "no connection: its TCP or TLS handshake did not end within the dial timeout"
		}
		return &Error{Kind: KindTimeout, URL: at, Err: err, msg: msg}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		// The name looked up is the redirect's when one was followed,
		// not u's.
		host, via := u.Hostname(), ""
		var ue *url.Error
		if errors.As(err, &ue) && !sameURL(ue.URL, u) {
			if r, perr := url.Parse(ue.URL); perr == nil {
				host, via = r.Hostname(), fmt.Sprintf("the server redirected to %s: ", ue.URL)
			}
		}
		if dns.IsNotFound {
			return &Error{Kind: KindUnreachable, URL: at, Err: err, msg: fmt.Sprintf("%sthe host %s is not found", via, host)}
		}
		return &Error{Kind: KindUnreachable, URL: at, Err: err, msg: fmt.Sprintf("%sthe host %s could not be looked up: %s", via, host, dns.Err)}
	}
	return &Error{Kind: KindUnreachable, URL: at, Err: err, msg: fmt.Sprintf("no answer: %v", unwrapURLError(err))}
}

// dialTimedOut reports whether err is a connection's opening that timed
// out: its dial, or its TLS handshake (net/http's error for that has no
// type of its own to match).
func dialTimedOut(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" && op.Timeout() {
		return true
	}
	return strings.Contains(err.Error(), "TLS handshake timeout")
}

// sameURL reports whether raw, the URL of a *url.Error, is u: as an
// http.Client writes it (a password as ***), or as u.Redacted does.
func sameURL(raw string, u *url.URL) bool {
	if raw == u.Redacted() || raw == u.String() {
		return true
	}
	if _, ok := u.User.Password(); ok {
		return raw == strings.Replace(u.String(), u.User.String()+"@", u.User.Username()+":***@", 1)
	}
	return false
}
