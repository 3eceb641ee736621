package egress_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/egress"
)

// A HostList matches as a Policy's Allow list does: names in any case and
// with or without a final dot, on either side; "*.domain" for the names
// under it; addresses bracketed or not, an IPv4-mapped one as its IPv4
// address; networks. Empty entries are skipped.
func TestHostList(t *testing.T) {
	l, err := egress.ListHosts("Hooks.Example.COM.", " *.example.org ", "", "10.0.0.1", "[::1]", "192.168.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{
		"hooks.example.com": true, "HOOKS.example.com.": true, "a.b.example.org": true, "a.example.org.": true,
		"10.0.0.1": true, "10.0.0.1.": true, "::ffff:10.0.0.1": true, "::1": true, "[::1]": true, "0:0::1": true, "192.168.7.7": true,
		"example.org": false, "example.com": false, "x.hooks.example.com": false, "127.0.0.1": false, "10.0.0.2": false,
		"": false,
	} {
		if got := l.Match(host); got != want {
			t.Errorf("Match(%q) = %v, want %v", host, got, want)
		}
	}
	if l.Empty() {
		t.Errorf("Empty: true for %v", l)
	}
	if got, want := l.String(), "hooks.example.com,*.example.org,10.0.0.1,::1,192.168.0.0/16"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if e, err := egress.ListHosts("", " "); err != nil || !e.Empty() || e.Match("example.com") {
		t.Errorf("a list of empty entries: %v, %v; want empty, matching nothing", e, err)
	}

	// A policy's list matches the same hosts.
	p, err := egress.Allow("Hooks.Example.COM.", "*.example.org", "10.0.0.1", "[::1]")
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"hooks.example.com.", "a.b.example.org", "[::1]", "10.0.0.1"} {
		if err := p.CheckHost(host); err != nil {
			t.Errorf("the policy refuses %s, which its list matches: %v", host, err)
		}
	}
}

// ListHosts checks its entries as Allow does: an entry of no known form (a
// malformed network above all, which is not a host name either) or one
// that names only refused addresses is an error naming it, and the error
// is Allow's.
func TestListHostsChecksEntries(t *testing.T) {
	for _, bad := range []string{"10.0.0.0/33", "10.0.0.0/x", "not a host", "a..b", "http://example.com", "example.com:80",
		"169.254.0.0/16", "169.254.169.254", "fe80::1%eth0", "0x7f000001", "*"} {
		l, err := egress.ListHosts("hooks.example.com", bad)
		if err == nil {
			t.Errorf("ListHosts(%q) = %v, no error", bad, l)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("ListHosts(%q): %q does not name the entry", bad, err)
		}
		if _, perr := egress.Allow(bad); perr == nil || perr.Error() != err.Error() {
			t.Errorf("ListHosts(%q): %q, but Allow says %v", bad, err, perr)
		}
	}
}

// Classify sorts a request's error as Fetch does: a refusal stays itself,
// a timeout and a name not found say so, another failure is no answer.
func TestClassify(t *testing.T) {
	u, _ := url.Parse("https://hooks.example.com/in")
	ctx := context.Background()
	refused := egress.Default().CheckHost("169.254.169.254")
	wantKind(t, "refused", egress.Classify(ctx, u, &url.Error{Op: "Post", URL: u.String(), Err: refused}, time.Second), egress.KindRefused, "link-local")
	wantKind(t, "client timeout", egress.Classify(ctx, u, &url.Error{Op: "Post", URL: u.String(), Err: timeoutErr{}}, 3*time.Second),
		egress.KindTimeout, "no complete answer within 3s")
	wantKind(t, "not found", egress.Classify(ctx, u, &url.Error{Op: "Post", URL: u.String(), Err: &net.DNSError{Err: "no such host", Name: "hooks.example.com", IsNotFound: true}}, time.Second),
		egress.KindUnreachable, "the host hooks.example.com is not found")
	e := wantKind(t, "refused connection", egress.Classify(ctx, u, &url.Error{Op: "Post", URL: u.String(), Err: errors.New("connection refused")}, time.Second),
		egress.KindUnreachable, "no answer: connection refused")
	if e != nil && e.Error() != "no answer: connection refused" {
		t.Errorf("the request is named in %q", e.Error())
	}
	// Refused at the dial of the URL asked for, with a password, which an
	// http.Client writes as ***: not a redirect.
	withUser, _ := url.Parse("https://user:pw@hooks.example.com/in")
	e = wantKind(t, "refused, with a password", egress.Classify(ctx, withUser, &url.Error{Op: "Post", URL: "https://user:***@hooks.example.com/in", Err: egress.Default().CheckHost("169.254.169.254")}, time.Second),
		egress.KindRefused, "link-local")
	if e != nil && strings.Contains(e.Error(), "redirected") {
		t.Errorf("the URL asked for is taken for a redirect: %q", e.Error())
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	var ee *egress.Error
	if err := egress.Classify(canceled, u, &url.Error{Op: "Post", URL: u.String(), Err: context.Canceled}, time.Second); !errors.Is(err, context.Canceled) || errors.As(err, &ee) {
		t.Errorf("canceled: %v, want the context's error as it is", err)
	}
}

// timeoutErr is a net.Error that timed out, as an http.Client's Timeout
// ends a request.
type timeoutErr struct{}

func (timeoutErr) Error() string {
	return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
}
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
