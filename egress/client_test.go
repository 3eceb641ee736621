package egress_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lettershop/lettershop/egress"
)

// No test here sends anything off this machine: names are looked up in a
// table, servers listen on loopback, and every client refuses, before it
// dials, an address that is not loopback (a refusal the policy failed to
// make is reported as a test failure, not sent).

// table is a Resolver that answers from a map: each name's answers in
// turn, the last one again once they run out.
type table struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	asked   []string
}

func newTable(kv ...any) *table {
	t := &table{answers: map[string][][]netip.Addr{}}
	for i := 0; i+1 < len(kv); i += 2 {
		var addrs []netip.Addr
		for _, a := range strings.Fields(kv[i+1].(string)) {
			addrs = append(addrs, netip.MustParseAddr(a))
		}
		name := kv[i].(string)
		t.answers[name] = append(t.answers[name], addrs)
	}
	return t
}

func (t *table) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.asked = append(t.asked, host)
	answers, ok := t.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	addrs := answers[0]
	if len(answers) > 1 {
		t.answers[host] = answers[1:]
	}
	var out []netip.Addr
	for _, a := range addrs {
		if network == "ip" || network == "ip4" && a.Unmap().Is4() || network == "ip6" && a.Is6() && !a.Is4In6() {
			out = append(out, a)
		}
	}
	return out, nil
}

func (t *table) lookups() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.asked...)
}

// dials records what a client dialled, and stops any dial off loopback.
type dials struct {
	t  *testing.T
	mu sync.Mutex
	to []netip.AddrPort
}

func (d *dials) record(ap netip.AddrPort) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.to = append(d.to, ap)
	if !ap.Addr().IsLoopback() {
		d.t.Errorf("the client was about to dial %s, which the policy should have refused", ap)
		return errors.New("test: a dial off this machine was stopped")
	}
	return nil
}

func (d *dials) list() []netip.AddrPort {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]netip.AddrPort(nil), d.to...)
}

// newClient returns a client of p that looks names up in r and dials only
// loopback addresses, and the record of its dials.
func newClient(t *testing.T, p egress.Policy, r egress.Resolver, opts ...egress.Option) (*egress.Client, *dials) {
	t.Helper()
	c := egress.New(p, append([]egress.Option{egress.WithResolver(r)}, opts...)...)
	d := &dials{t: t}
	egress.SetDialed(c, d.record)
	t.Cleanup(c.HTTP().CloseIdleConnections)
	return c, d
}

// port is the port of a test server.
func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// The Control hook refuses what the policy refuses, as the dial is made:
// called directly, and run by a real dialer, whose socket it closes before
// any connection.
func TestControl(t *testing.T) {
	p := egress.Default()
	for addr, ok := range map[string]bool{
		"169.254.169.254:80":          false,
		"[fe80::1]:80":                false,
		"[fe80::1%lo]:80":             false,
		"[::ffff:169.254.169.254]:80": false,
		"[fd00:ec2::254]:80":          false,
		"100.100.100.200:80":          false,
		"0.0.0.0:80":                  false,
		"[::]:80":                     false,
		"224.0.0.1:80":                false,
		"255.255.255.255:80":          false,
		"example.com:80":              false, // a dial of a name: not an address the hook can judge
		"127.0.0.1:80":                true,
		"[::1]:80":                    true,
		"10.0.0.1:443":                true,
		"192.168.0.1:8080":            true,
	} {
		err := p.Control("tcp", addr, nil)
		if ok && err != nil {
			t.Errorf("Control(%s) = %v, want nil", addr, err)
		}
		if !ok {
			wantKind(t, addr, err, egress.KindRefused)
		}
	}
	restricted, err := egress.Allow("10.0.0.0/8", "files.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := restricted.Control("tcp4", "10.9.8.7:80", nil); err != nil {
		t.Errorf("restricted, 10.9.8.7: %v", err)
	}
	wantKind(t, "restricted, 127.0.0.1", restricted.Control("tcp4", "127.0.0.1:80", nil), egress.KindRefused, "not among")

	// A real dialer runs the hook on the address it is about to connect
	// to, the numeric forms written canonically by then.
	for _, addr := range []string{"169.254.169.254:80", "[::ffff:169.254.169.254]:80", "[::ffff:a9fe:a9fe]:80", "[fe80::1]:80", "[64:ff9b::a9fe:a9fe]:80"} {
		var seen []string
		d := net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
			seen = append(seen, address)
			if err := p.Control(network, address, c); err != nil {
				return err
			}
			t.Errorf("%s: the policy let the dial through; stopped", address)
			return errors.New("test: stopped")
		}}
		_, err := d.DialContext(t.Context(), "tcp", addr)
		wantKind(t, addr, err, egress.KindRefused, "never connects")
		if len(seen) != 1 {
			t.Errorf("%s: the hook saw %v", addr, seen)
		}
	}
}

// A loopback server is allowed, by address and by a name that resolves to
// it; the body and its media type come back.
func TestFetchLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != egress.UserAgent {
			t.Errorf("User-Agent %q", r.Header.Get("User-Agent"))
		}
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "Text/HTML; charset=utf-8")
			w.Write([]byte("<p>Hello {{name}}</p>"))
		case "/bare":
			w.Header()["Content-Type"] = nil // no Content-Type: the body shows it
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		case "/odd":
			w.Header().Set("Content-Type", "not a type;;")
			w.Write([]byte("%PDF-1.7\n"))
		}
	}))
	defer srv.Close()
	r := newTable("files.test", "127.0.0.1", "six.test", "::1 127.0.0.1")
	c, d := newClient(t, egress.Default(), r)
	for u, want := range map[string]egress.Content{
		srv.URL + "/page": {Body: []byte("<p>Hello {{name}}</p>"), MediaType: "text/html"},
		"http://files.test:" + port(t, srv) + "/page": {Body: []byte("<p>Hello {{name}}</p>"), MediaType: "text/html"},
		srv.URL + "/bare": {Body: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), MediaType: "image/png"},
		srv.URL + "/odd":  {Body: []byte("%PDF-1.7\n"), MediaType: "application/pdf"},
	} {
		got, err := c.Fetch(t.Context(), u, 1000)
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if !bytes.Equal(got.Body, want.Body) || got.MediaType != want.MediaType || got.URL != u {
			t.Errorf("%s: %q %q from %s, want %q %q", u, got.Body, got.MediaType, got.URL, want.Body, want.MediaType)
		}
	}
	if len(d.list()) == 0 {
		t.Error("no dial was recorded")
	}
	// FetchBody gives what Fetch got, apart; a failure as Fetch's.
	if body, typ, err := c.FetchBody(t.Context(), srv.URL+"/page", 1000); err != nil || string(body) != "<p>Hello {{name}}</p>" || typ != "text/html" {
		t.Errorf("FetchBody = %q, %q, %v", body, typ, err)
	}
	if body, typ, err := c.FetchBody(t.Context(), srv.URL+"/page", 5); !errors.As(err, new(*egress.Error)) || body != nil || typ != "" {
		t.Errorf("FetchBody over its limit = %q, %q, %v; want an *egress.Error", body, typ, err)
	}
	// A name with an IPv6 address where the server is not, and an IPv4
	// one where it is: the second is tried.
	if _, err := c.Fetch(t.Context(), "http://six.test:"+port(t, srv)+"/page", 1000); err != nil {
		t.Errorf("six.test: %v", err)
	}
}

// A name that resolves to a refused address, all of its addresses or one,
// is refused before anything is dialled; so is a host written as a number,
// which is never looked up.
func TestFetchRefusedAddresses(t *testing.T) {
	r := newTable(
		"meta.test", "169.254.169.254",
		"mixed.test", "127.0.0.1 169.254.169.254",
		"mapped.test", "::ffff:169.254.169.254",
		"v6meta.test", "fd00:ec2::254",
		"nat64.test", "64:ff9b::a9fe:a9fe",
		"zero.test", "0.0.0.0",
	)
	c, d := newClient(t, egress.Default(), r)
	for _, host := range []string{"meta.test", "mixed.test", "mapped.test", "v6meta.test", "nat64.test", "zero.test"} {
		_, err := c.Fetch(t.Context(), "http://"+host+"/latest/meta-data/", 1000)
		e := wantKind(t, host, err, egress.KindRefused, host+" resolves to", "never connects")
		if e != nil && (!e.Addr.IsValid() || e.URL != "http://"+host+"/latest/meta-data/") {
			t.Errorf("%s: address %v, url %q", host, e.Addr, e.URL)
		}
	}
	for _, u := range []string{
		"http://0xA9FEA9FE/", "http://2852039166/", "http://0251.0376.0251.0376/", "http://[::ffff:169.254.169.254]/",
		"http://[::ffff:a9fe:a9fe]/", "http://169.254.169.254/", "http://[fe80::1%25lo]/", "http://100.100.100.200/",
	} {
		_, err := c.Fetch(t.Context(), u, 1000)
		wantKind(t, u, err, egress.KindRefused)
	}
	// The dial refuses numeric forms too, given as they are.
	for _, addr := range []string{"0xA9FEA9FE:80", "2852039166:80", "0251.0376.0251.0376:80", "[::ffff:169.254.169.254]:80", "[::ffff:a9fe:a9fe]:80", "169.254.169.254:80"} {
		_, err := c.DialContext(t.Context(), "tcp", addr)
		wantKind(t, addr, err, egress.KindRefused)
	}
	if got := d.list(); len(got) != 0 {
		t.Errorf("dialled %v", got)
	}
	if got := strings.Join(r.lookups(), " "); got != "meta.test mixed.test mapped.test v6meta.test nat64.test zero.test" {
		t.Errorf("names looked up: %s", got)
	}
}

// A name that resolved to an allowed address and then to a refused one
// (DNS rebinding) is refused on the dial after the change.
func TestDialRebinding(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	r := newTable("rebind.test", "127.0.0.1", "rebind.test", "169.254.169.254")
	c, d := newClient(t, egress.Default(), r)
	conn, err := c.DialContext(t.Context(), "tcp", "rebind.test:"+p)
	if err != nil {
		t.Fatalf("the first dial: %v", err)
	}
	conn.Close()
	_, err = c.DialContext(t.Context(), "tcp", "rebind.test:"+p)
	wantKind(t, "the second dial", err, egress.KindRefused, "rebind.test resolves to 169.254.169.254")
	if got := d.list(); len(got) != 1 || got[0].String() != "127.0.0.1:"+p {
		t.Errorf("dialled %v, want the first address only", got)
	}
}

// A redirect from the loopback server to a refused address is refused
// before anything is dialled, whatever form the address takes; redirects
// to allowed places are followed, up to the limit and not one more.
func TestFetchRedirects(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
	})
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			w.Write([]byte("arrived"))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusMovedPermanently)
	})
	r := newTable("meta.test", "169.254.169.254", "files.test", "127.0.0.1")
	c, d := newClient(t, egress.Default(), r, egress.WithMaxRedirects(3))
	to := func(target string) string { return srv.URL + "/to?u=" + url.QueryEscape(target) }
	for target, words := range map[string][]string{
		"http://169.254.169.254/latest/meta-data/": {"redirected to http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		"http://[::ffff:169.254.169.254]/":         {"redirected to", "written as an IPv6 address"},
		"http://[::ffff:a9fe:a9fe]:8080/":          {"169.254.169.254"},
		"http://0xA9FEA9FE/":                       {"written another way"},
		"http://2852039166/":                       {"169.254.169.254"},
		"http://[fe80::1]/":                        {"link-local"},
		"http://[fd00:ec2::254]/":                  {"cloud metadata"},
		"http://meta.test/computeMetadata/":        {"redirected to http://meta.test/computeMetadata/", "meta.test resolves to 169.254.169.254"},
		"http://metadata.google.internal/":         {"cloud metadata service"},
	} {
		_, err := c.Fetch(t.Context(), to(target), 1000)
		wantKind(t, target, err, egress.KindRefused, words...)
	}
	for _, target := range []string{"ftp://files.test/a", "file:///etc/passwd", "http://user:pw@files.test/", "gopher://127.0.0.1/"} {
		_, err := c.Fetch(t.Context(), to(target), 1000)
		e := wantKind(t, target, err, egress.KindBadURL, "redirected to")
		if e != nil && strings.Contains(e.Error(), "pw") {
			t.Errorf("%s: the error shows the password: %v", target, e)
		}
	}
	for _, a := range d.list() {
		if a.String() != "127.0.0.1:"+port(t, srv) {
			t.Errorf("dialled %s", a)
		}
	}

	// Three redirects are followed; a fourth is refused.
	got, err := c.Fetch(t.Context(), srv.URL+"/hop/3", 1000)
	if err != nil || string(got.Body) != "arrived" || got.URL != srv.URL+"/hop/0" {
		t.Errorf("three redirects: %v, %v", got, err)
	}
	_, err = c.Fetch(t.Context(), srv.URL+"/hop/4", 1000)
	wantKind(t, "four redirects", err, egress.KindRedirects, "more than 3 times")
	// Through a name, to a name.
	if got, err := c.Fetch(t.Context(), to("http://files.test:"+port(t, srv)+"/hop/0"), 1000); err != nil || string(got.Body) != "arrived" {
		t.Errorf("a redirect to an allowed name: %v, %v", got, err)
	}

	// With none followed, a 3xx is the answer: HTTP returns it, Fetch
	// says what it was.
	none, _ := newClient(t, egress.Default(), r, egress.WithMaxRedirects(0))
	_, err = none.Fetch(t.Context(), srv.URL+"/hop/1", 1000)
	if e := wantKind(t, "no redirects", err, egress.KindStatus, "301", "does not follow"); e != nil && e.StatusCode != 301 {
		t.Errorf("status %d", e.StatusCode)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, to("http://169.254.169.254/"), strings.NewReader("{}"))
	resp, err := none.HTTP().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "http://169.254.169.254/" {
		t.Errorf("the answer %d to %q, want the 302 itself", resp.StatusCode, resp.Header.Get("Location"))
	}

	// A restricted policy refuses a redirect off its list.
	only, err := egress.Allow("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := newClient(t, only, newTable("other.test", "127.0.0.2"), egress.WithMaxRedirects(3))
	_, err = rc.Fetch(t.Context(), to("http://10.1.2.3/"), 1000)
	wantKind(t, "a redirect off the list", err, egress.KindRefused, "not among the hosts and networks this server may reach (127.0.0.0/8)")
}

// A policy restricted to names and networks: a listed name may go to
// loopback; an address or a name not listed may not, decided before any
// connection.
func TestFetchRestricted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	r := newTable("files.test", "127.0.0.1", "other.test", "127.0.0.1", "meta.test", "169.254.169.254")
	p, err := egress.Allow("files.test", "*.meta.test", "meta.test", "10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	c, d := newClient(t, p, r)
	if got, err := c.Fetch(t.Context(), "http://files.test:"+port(t, srv)+"/", 100); err != nil || string(got.Body) != "ok" {
		t.Errorf("the listed name: %v, %v", got, err)
	}
	before := len(d.list())
	_, err = c.Fetch(t.Context(), srv.URL, 100)
	wantKind(t, "an address not listed", err, egress.KindRefused, "127.0.0.1 is not among", "files.test, *.meta.test, meta.test, 10.0.0.0/8")
	_, err = c.Fetch(t.Context(), "http://other.test:"+port(t, srv)+"/", 100)
	wantKind(t, "a name not listed", err, egress.KindRefused, "other.test (at 127.0.0.1) is not among")
	_, err = c.Fetch(t.Context(), "http://meta.test/", 100)
	wantKind(t, "a listed name at a refused address", err, egress.KindRefused, "meta.test resolves to 169.254.169.254")
	if got := d.list(); len(got) != before {
		t.Errorf("dialled %v after the first fetch", got[before:])
	}
}

// A proxy in the environment is not used: it would dial for the client,
// out of the policy's sight.
func TestFetchIgnoresProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("direct")) }))
	defer srv.Close()
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	c, _ := newClient(t, egress.Default(), newTable("files.test", "127.0.0.1"))
	if got, err := c.Fetch(t.Context(), "http://files.test:"+port(t, srv)+"/", 100); err != nil || string(got.Body) != "direct" {
		t.Errorf("%v, %v", got, err)
	}
}

// The body cap, at its boundary on both sides, with and without a
// Content-Length.
func TestFetchMaxBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		body := bytes.Repeat([]byte("x"), n)
		if r.URL.Query().Has("chunked") {
			w.Write(body[:n/2])
			w.(http.Flusher).Flush()
			w.Write(body[n/2:])
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write(body)
	}))
	defer srv.Close()
	c, _ := newClient(t, egress.Default(), newTable())
	const limit = 100
	for _, chunked := range []string{"", "&chunked"} {
		for _, n := range []int{0, limit - 1, limit} {
			got, err := c.Fetch(t.Context(), fmt.Sprintf("%s/?n=%d%s", srv.URL, n, chunked), limit)
			if err != nil || len(got.Body) != n {
				t.Errorf("%d bytes%s: %v", n, chunked, err)
			}
		}
		for _, n := range []int{limit + 1, 10 * limit} {
			_, err := c.Fetch(t.Context(), fmt.Sprintf("%s/?n=%d%s", srv.URL, n, chunked), limit)
			if e := wantKind(t, fmt.Sprintf("%d bytes%s", n, chunked), err, egress.KindTooLarge, "100 bytes taken"); e != nil && e.Limit != limit {
				t.Errorf("limit %d", e.Limit)
			}
		}
	}
	_, err := c.Fetch(t.Context(), fmt.Sprintf("%s/?n=%d", srv.URL, limit+1), limit)
	wantKind(t, "a Content-Length over the cap", err, egress.KindTooLarge, "the answer is 101 bytes")

	// No cap given is DefaultMaxBytes.
	if got, err := c.Fetch(t.Context(), fmt.Sprintf("%s/?n=%d", srv.URL, egress.DefaultMaxBytes), 0); err != nil || len(got.Body) != egress.DefaultMaxBytes {
		t.Errorf("DefaultMaxBytes: %v", err)
	}
	_, err = c.Fetch(t.Context(), fmt.Sprintf("%s/?n=%d&chunked", srv.URL, egress.DefaultMaxBytes+1), -1)
	wantKind(t, "DefaultMaxBytes+1", err, egress.KindTooLarge, "10 MiB")
}

// deadline is a context whose deadline the test makes pass: Done closes,
// and Err is context.DeadlineExceeded, when pass is called.
type deadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newDeadline(parent context.Context) *deadline {
	return &deadline{Context: parent, done: make(chan struct{})}
}

func (d *deadline) pass() { d.once.Do(func() { close(d.done) }) }

func (d *deadline) Done() <-chan struct{} { return d.done }

func (d *deadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// The time cap, at its boundary on both sides: an answer that comes before
// the deadline is taken, one that would come after is not, whether the
// deadline passes before the header or during the body.
func TestFetchDeadline(t *testing.T) {
	arrived := make(chan string, 1)
	// A release a path of its own: a handler of a request whose deadline
	// passed may not have seen its client go yet, and must not take the
	// release meant for the next path's request.
	releases := map[string]chan struct{}{"/header": make(chan struct{}), "/body": make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Length", "10")
			w.Write([]byte("12345"))
			w.(http.Flusher).Flush()
		}
		arrived <- r.URL.Path
		select {
		case <-releases[r.URL.Path]:
			if r.URL.Path == "/body" {
				w.Write([]byte("67890"))
			} else {
				w.Write([]byte("1234567890"))
			}
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	c, _ := newClient(t, egress.Default(), newTable())
	for _, path := range []string{"/header", "/body"} {
		// The answer comes before the deadline passes.
		ctx := newDeadline(t.Context())
		done := make(chan error, 1)
		go func() {
			got, err := c.Fetch(ctx, srv.URL+path, 100)
			if err == nil && string(got.Body) != "1234567890" {
				err = fmt.Errorf("body %q", got.Body)
			}
			done <- err
		}()
		<-arrived
		releases[path] <- struct{}{}
		if err := <-done; err != nil {
			t.Errorf("%s, answered in time: %v", path, err)
		}
		ctx.pass()

		// The deadline passes before the answer.
		ctx = newDeadline(t.Context())
		go func() {
			_, err := c.Fetch(ctx, srv.URL+path, 100)
			done <- err
		}()
		<-arrived
		ctx.pass()
		wantKind(t, path+", the deadline passed", <-done, egress.KindTimeout, "before the deadline")
	}

	// A context already past its deadline sends nothing.
	ctx := newDeadline(t.Context())
	ctx.pass()
	_, err := c.Fetch(ctx, srv.URL+"/header", 100)
	wantKind(t, "a deadline passed already", err, egress.KindTimeout)
	select {
	case p := <-arrived:
		t.Errorf("a request to %s arrived", p)
	default:
	}

	// A canceled context is the caller's doing, not a failure to report.
	cctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Fetch(cctx, srv.URL+"/header", 100); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

// The client's own timeout ends a request the server never answers, and
// says how long it waited.
func TestFetchTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	c, _ := newClient(t, egress.Default(), newTable(), egress.WithTimeout(time.Millisecond))
	_, err := c.Fetch(t.Context(), srv.URL, 100)
	wantKind(t, "no answer", err, egress.KindTimeout, "no complete answer within 1ms")
}

func TestFetchFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		if to := r.URL.Query().Get("to"); to != "" {
			w.Header().Set("Location", to)
		}
		w.WriteHeader(code)
	}))
	defer srv.Close()
	c, _ := newClient(t, egress.Default(), newTable("empty.test", ""))
	for code, words := range map[int]string{404: "the server answered 404 Not Found", 500: "500 Internal Server Error", 300: "300", 304: "304"} {
		_, err := c.Fetch(t.Context(), fmt.Sprintf("%s/%d", srv.URL, code), 100)
		if e := wantKind(t, strconv.Itoa(code), err, egress.KindStatus, words); e != nil && e.StatusCode != code {
			t.Errorf("%d: StatusCode %d", code, e.StatusCode)
		}
	}
	for _, code := range []int{200, 204, 299} {
		if _, err := c.Fetch(t.Context(), fmt.Sprintf("%s/%d", srv.URL, code), 100); err != nil {
			t.Errorf("%d: %v", code, err)
		}
	}

	_, err := c.Fetch(t.Context(), "http://nowhere.test/a.pdf", 100)
	wantKind(t, "a name not found", err, egress.KindUnreachable, "the host nowhere.test is not found")
	_, err = c.Fetch(t.Context(), "http://empty.test/a.pdf", 100)
	wantKind(t, "a name without addresses", err, egress.KindUnreachable, "not found")
	// A redirect to a name not found names that name, not the first URL's.
	_, err = c.Fetch(t.Context(), srv.URL+"/302?to=http://nowhere.test/a.pdf", 100)
	if e := wantKind(t, "a redirect to a name not found", err, egress.KindUnreachable,
		"the server redirected to http://nowhere.test/a.pdf: the host nowhere.test is not found"); e != nil && strings.Contains(e.Error(), "127.0.0.1") {
		t.Errorf("the error names the first URL's host: %v", e)
	}

	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	_, err = c.Fetch(t.Context(), closed, 100)
	wantKind(t, "a closed port", err, egress.KindUnreachable, "no answer", "refused")

	_, err = c.Fetch(t.Context(), "ftp://files.test/a.pdf", 100)
	wantKind(t, "ftp", err, egress.KindBadURL, "only http and https")
}

// WithDialTimeout bounds the opening of a connection, its TLS handshake
// included: a server that takes the connection and never answers the
// handshake fails the fetch when the dial timeout passes, not when the
// request's deadline does.
func TestDialTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, conn) // taken, never answered
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	c, _ := newClient(t, egress.Default(), newTable(), egress.WithDialTimeout(20*time.Millisecond))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = c.Fetch(ctx, "https://"+ln.Addr().String()+"/a.pdf", 100)
	if err == nil || !strings.Contains(err.Error(), "TLS handshake did not end within the dial timeout") || ctx.Err() != nil {
		t.Errorf("a handshake never answered: %v (context: %v); want the handshake's timeout", err, ctx.Err())
	}
}

// CloseIdleConnections closes a Client's idle connections once it has
// opened one, and costs nothing on a Client that never dialled: asking its
// Transport had it set up HTTP/2 first, for every Service made and closed.
func TestCloseIdleConnections(t *testing.T) {
	r := newTable()
	made := testing.AllocsPerRun(50, func() { _ = egress.New(egress.Default(), egress.WithResolver(r)) })
	closed := testing.AllocsPerRun(50, func() { egress.New(egress.Default(), egress.WithResolver(r)).CloseIdleConnections() })
	if closed > made {
		t.Errorf("a Client that never dialled: %v allocations made and closed, %v made", closed, made)
	}

	var mu sync.Mutex
	states := map[http.ConnState]int{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		mu.Lock()
		states[s]++
		mu.Unlock()
	}
	srv.Start()
	defer srv.Close()
	c, _ := newClient(t, egress.Default(), r)
	if _, err := c.Fetch(t.Context(), srv.URL, 100); err != nil {
		t.Fatal(err)
	}
	c.CloseIdleConnections()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := states[http.StateClosed]
		mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the connection fetched on was not closed")
		}
	}
}
