package egress_test

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/lettershop/lettershop/egress"
)

// wantKind checks that err is an *egress.Error of kind k whose text holds
// each of words.
func wantKind(t *testing.T, what string, err error, k egress.Kind, words ...string) *egress.Error {
	t.Helper()
	var e *egress.Error
	if !errors.As(err, &e) {
		t.Errorf("%s: %v (%T), want an *egress.Error of kind %s", what, err, err, k)
		return nil
	}
	if e.Kind != k {
		t.Errorf("%s: kind %s (%v), want %s", what, e.Kind, e, k)
	}
	for _, w := range words {
		if !strings.Contains(e.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, e.Error(), w)
		}
	}
	return e
}

// The refused ranges, at their edges on both sides, and the forms of IPv6
// that carry a refused IPv4 address.
func TestCheckAddr(t *testing.T) {
	refused := map[string]string{
		"169.254.0.0":                 "link-local",
		"169.254.169.254":             "cloud metadata",
		"169.254.170.2":               "link-local",
		"169.254.255.255":             "link-local",
		"fe80::":                      "link-local",
		"fe80::1":                     "link-local",
		"febf:ffff:ffff:ffff::1":      "link-local",
		"fe80::1%eth0":                "link-local",
		"::ffff:169.254.169.254":      "written as an IPv6 address",
		"::ffff:a9fe:1":               "link-local",
		"::169.254.169.254":           "carries the IPv4 address 169.254.169.254",
		"::ffff:0:169.254.169.254":    "carries the IPv4 address",
		"64:ff9b::169.254.169.254":    "carries the IPv4 address",
		"64:ff9b:1::a9fe:a9fe":        "carries the IPv4 address",
		"2002:a9fe:a9fe::1":           "carries the IPv4 address 169.254.169.254",
		"fd00:ec2::254":               "cloud metadata",
		"fd20:ce::254":                "cloud metadata",
		"fd00:ec2::23":                "cloud metadata",
		"fd00:42::42":                 "cloud metadata",
		"100.100.100.200":             "cloud metadata",
		"192.0.0.192":                 "cloud metadata",
		"168.63.129.16":               "WireServer",
		"0.0.0.0":                     "unspecified",
		"0.255.255.255":               "unspecified",
		"::":                          "unspecified",
		"::ffff:0.0.0.0":              "unspecified",
		"224.0.0.1":                   "multicast",
		"239.255.255.255":             "multicast",
		"ff02::1":                     "multicast",
		"240.0.0.0":                   "reserved or broadcast",
		"255.255.255.255":             "reserved or broadcast",
		"::ffff:255.255.255.255":      "reserved or broadcast",
		"2002:e000:1::":               "multicast",
		"::ffff:100.100.100.200":      "cloud metadata",
		"64:ff9b::100.100.100.200":    "cloud metadata",
		"::ffff:0:0.1.2.3":            "unspecified",
		"::ffff:169.254.169.254%eth0": "link-local",
	}
	allowed := []string{
		"169.253.255.255", "169.255.0.0", "fec0::1", "fe7f:ffff::1",
		"127.0.0.1", "127.255.255.254", "::1", "::ffff:127.0.0.1", "10.0.0.1", "172.16.0.1", "192.168.1.1",
		"fd00::1", "fd00:ec2::253", "fd00:ec2::255", "fd00:ec2::22", "fd00:ec2::24", "fd00:42::41", "fd20:ce::253", "100.100.100.199", "100.100.100.201",
		"100.64.0.1", "192.0.0.191", "192.0.0.193", "168.63.129.15", "168.63.129.17",
		"1.0.0.0", "223.255.255.255", "93.184.216.34", "2001:db8::1", "64:ff9b::808:808", "2002:808:808::1",
	}
	for _, p := range []egress.Policy{{}, egress.Default()} {
		for s, why := range refused {
			wantKind(t, s, p.CheckAddr(netip.MustParseAddr(s)), egress.KindRefused, why, "lettershop never connects")
		}
		for _, s := range allowed {
			if err := p.CheckAddr(netip.MustParseAddr(s)); err != nil {
				t.Errorf("%s: %v, want it allowed by default", s, err)
			}
		}
	}
	wantKind(t, "no address", egress.Default().CheckAddr(netip.Addr{}), egress.KindRefused)
}

// Hosts written as numbers are the addresses they stand for: refused when
// the address is, and otherwise to be written the usual way.
func TestCheckHostNumbers(t *testing.T) {
	p := egress.Default()
	for _, h := range []string{
		"0xA9FEA9FE", "0xa9fea9fe", "2852039166", "0251.0376.0251.0376", "0xa9.0xfe.0xa9.0xfe", "169.254.43518",
		"169.16689662", "0251.254.169.254", "[::ffff:169.254.169.254]", "[::ffff:a9fe:a9fe]", "::ffff:a9fe:a9fe",
		"169.254.169.254", "[fe80::1]", "0", "0x0", "0.0", "4294967295", "0xFFFFFFFF",
	} {
		wantKind(t, h, p.CheckHost(h), egress.KindRefused)
	}
	e := wantKind(t, "0xA9FEA9FE", p.CheckHost("0xA9FEA9FE"), egress.KindRefused, "169.254.169.254", "written another way")
	if e != nil && e.Addr != netip.MustParseAddr("169.254.169.254") {
		t.Errorf("the refused address is %v", e.Addr)
	}
	for h, want := range map[string]string{
		"0x7f000001": "127.0.0.1", "2130706433": "127.0.0.1", "127.1": "127.0.0.1", "0177.0.0.1": "127.0.0.1",
		"10.0.0.01": "10.0.0.1", "127.0.0.1.": "127.0.0.1", "1.2.3": "1.2.0.3",
	} {
		wantKind(t, h, p.CheckHost(h), egress.KindBadURL, "write it as "+want)
	}
	for _, h := range []string{"1.2.3.4.5", "256.1.1.1", "1.256.1.1", "1.2.65536", "4294967296", "08.0.0.1", "1..2", "example.123"} {
		wantKind(t, h, p.CheckHost(h), egress.KindBadURL)
	}
	for _, h := range []string{"127.0.0.1", "[::1]", "::1", "10.1.2.3", "localhost", "files.example.com", "FILES.Example.COM.", "a-b_c.example", "123.example.com", "0x1.example"} {
		if err := p.CheckHost(h); err != nil {
			t.Errorf("%s: %v, want it allowed", h, err)
		}
	}
	for _, h := range []string{"", "exa mple.com", "a..b", "ex\x00ample.com", "bücher.example", "-" + strings.Repeat("a", 64) + ".com", "[::1%lo]"} {
		wantKind(t, h, p.CheckHost(h), egress.KindBadURL)
	}
	wantKind(t, "metadata name", p.CheckHost("metadata.google.internal."), egress.KindRefused, "cloud metadata")
}

func TestCheckURL(t *testing.T) {
	p := egress.Default()
	for _, u := range []string{
		"http://127.0.0.1/a.pdf", "https://files.example.com/a.pdf?x=1", "http://127.0.0.1:1/", "https://example.com:65535/x",
		"http://[::1]:8080/x", "HTTPS://Example.com/", "http://example.com/a#frag",
	} {
		if got, err := p.CheckURL(u); err != nil || got == nil {
			t.Errorf("%s: %v, want it taken", u, err)
		}
	}
	bad := []string{
		"", "/relative", "example.com/a", "ftp://example.com/a", "file:///etc/passwd", "gopher://127.0.0.1:70/", "http:example.com",
		"http:///a", "http://example.com:0/", "http://example.com:65536/", "http://example.com:/", "http://exa mple.com/",
		"http://example.com\\@127.0.0.1/", "http://example.com/\t", "http://[::1%25lo]/", "http://0x7f000001/",
		"http://user@example.com/", "http://user:pw@example.com/", "http://@example.com/", "http://example.com:80@127.0.0.1/",
	}
	for _, u := range bad {
		_, err := p.CheckURL(u)
		wantKind(t, u, err, egress.KindBadURL)
	}
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/", "http://0xA9FEA9FE/", "http://2852039166/", "http://0251.0376.0251.0376/",
		"http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]:80/", "http://[fe80::1%25eth0]/", "http://[fd00:ec2::254]/",
		"http://metadata.google.internal/computeMetadata/v1/",
	} {
		_, err := p.CheckURL(u)
		if e := wantKind(t, u, err, egress.KindRefused); e != nil && e.URL == "" {
			t.Errorf("%s: the error names no url", u)
		}
	}
}

func TestAllow(t *testing.T) {
	p, err := egress.ParseAllow(" files.example.com, *.cdn.example.org ,10.0.0.0/8, 192.168.1.7,fd00::/8, ::ffff:172.16.0.0/108, Hooks.Example.NET.")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Restricted() || egress.Default().Restricted() {
		t.Errorf("Restricted: %v, and %v for the default", p.Restricted(), egress.Default().Restricted())
	}
	if got, want := p.String(), "files.example.com,*.cdn.example.org,hooks.example.net,10.0.0.0/8,192.168.1.7,fd00::/8,172.16.0.0/12"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	again, err := egress.ParseAllow(p.String())
	if err != nil || !again.Equal(p) || again.Equal(egress.Default()) {
		t.Errorf("ParseAllow(String()) = %v, %v; want the same policy", again, err)
	}
	if q, err := egress.ParseAllow(" , "); err != nil || !q.Equal(egress.Default()) {
		t.Errorf("an empty list: %v, %v; want the default policy", q, err)
	}

	for h, ok := range map[string]bool{
		"files.example.com": true, "FILES.example.com.": true, "a.cdn.example.org": true, "a.b.cdn.example.org": true,
		"hooks.example.net": true, "10.255.0.1": true, "192.168.1.7": true, "[fd12::1]": true, "172.31.255.255": true,
		"::ffff:10.0.0.1":       true,
		"cdn.example.org":       false, // *.domain is the names under it
		"example.com":           false,
		"other.example.com":     false,
		"evilfiles.example.com": false,
		"127.0.0.1":             false,
		"192.168.1.8":           false,
		"11.0.0.1":              false,
		"172.32.0.0":            false,
		"[fe80::1]":             false,
	} {
		err := p.CheckHost(h)
		switch {
		case ok && err != nil:
			t.Errorf("%s: %v, want it allowed", h, err)
		case !ok && err == nil:
			// A name not listed passes CheckHost when networks are
			// listed: the dial decides on its addresses.
			if net.ParseIP(strings.Trim(h, "[]")) != nil {
				t.Errorf("%s: allowed, want it refused", h)
			}
		}
	}
	wantKind(t, "not listed", p.CheckAddr(netip.MustParseAddr("192.168.1.8")), egress.KindRefused, "not among", "10.0.0.0/8")

	// Restricted to names only, a name not listed can never pass.
	names, err := egress.Allow("files.example.com")
	if err != nil {
		t.Fatal(err)
	}
	wantKind(t, "a name not listed", names.CheckHost("other.example.com"), egress.KindRefused, "not among the hosts and networks this server may reach (files.example.com)")
	wantKind(t, "an address not listed", names.CheckHost("127.0.0.1"), egress.KindRefused)
	if err := names.CheckHost("files.example.com"); err != nil {
		t.Errorf("the listed name: %v", err)
	}

	// The refused addresses stay refused.
	wide, err := egress.Allow("0.0.0.0/0", "::/0", "169.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"169.254.169.254", "fe80::1", "::ffff:169.254.1.1", "100.100.100.200"} {
		wantKind(t, a, wide.CheckAddr(netip.MustParseAddr(a)), egress.KindRefused, "never connects")
	}
	if err := wide.CheckAddr(netip.MustParseAddr("169.1.2.3")); err != nil {
		t.Errorf("169.1.2.3 in 169.0.0.0/8: %v", err)
	}

	for _, bad := range []string{
		"169.254.0.0/16", "169.254.169.254", "169.254.0.0/24", "fe80::/10", "fe80::/64", "fd00:ec2::254", "::ffff:169.254.0.0/112",
		"224.0.0.0/4", "0.0.0.0", "10.0.0.0/33", "10.0.0.0/x", "http://example.com", "example.com:80", "a..b", "*.", "0x7f000001",
		"fe80::1%eth0", "exa mple.com", "", "*",
	} {
		if _, err := egress.Allow(bad); err == nil {
			t.Errorf("Allow(%q): no error", bad)
		}
	}
	if _, err := egress.ParseAllow("files.example.com,169.254.169.254,a..b"); err == nil ||
		!strings.Contains(err.Error(), "169.254.169.254") || !strings.Contains(err.Error(), "a..b") {
		t.Errorf("ParseAllow with two bad entries: %v, want both named", err)
	}
}
