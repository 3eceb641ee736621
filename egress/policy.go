// Package egress is the one policy for every request lettershop makes
// itself: webhook deliveries, content fetched from a URL, images of
// template variables of type externalUrl.
//
// A Policy decides on a host name and on an IP address. It always refuses
// link-local addresses (169.254.0.0/16, fe80::/10), the cloud metadata
// addresses (fd00:ec2::254, fd00:ec2::23, fd20:ce::254, fd00:42::42,
// 100.100.100.200, 192.0.0.192, 168.63.129.16; 169.254.169.254 is
// link-local already), unspecified, multicast, reserved and broadcast
// addresses, and every IPv6 form that carries one of those IPv4 addresses
// (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64, 6to4). Anything
// else is allowed by default, loopback and private ranges included, since
// test suites run their receivers and file servers there; Allow restricts
// a policy to a list of hosts and networks.
//
// The guarantee is the check of the address actually dialled: a Client
// looks a name up itself and dials each address with a net.Dialer whose
// Control hook asks the policy again, just before the connection is made.
// A name that resolves to a refused address (DNS rebinding included), or
// a host written as a number (0xA9FEA9FE, 2852039166), never reaches a
// refused address. See docs/egress.md.
package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Policy decides which hosts and addresses lettershop's own requests may
// reach. The zero value is the default policy (Default): any host but the
// refused addresses. A Policy is a value: copies are independent, and
// safe for concurrent use.
type Policy struct {
	// hosts are lower-case names without a trailing dot, and
	// "*.example.com" for the names under a domain.
	hosts []string
	// nets are masked networks; an address is a /32 or /128.
	nets []netip.Prefix
}

// Default returns the default policy: every host and address but those
// always refused. It is the zero Policy.
func Default() Policy { return Policy{} }

// Allow returns the policy that reaches only the given hosts and networks,
// and never the refused addresses. An entry is a host name
// ("files.example.com"), "*.example.com" for every name under a domain, an
// IP address ("10.0.0.7", "::1", or bracketed, "[::1]") or a network
// ("10.0.0.0/8", "fd00::/8").
// A request to a listed name goes to whatever address the name has, but a
// refused one; a request to any other name goes only to addresses in the
// listed networks. An entry that names only refused addresses is an error,
// as is an entry of no known form. No entries is the default policy.
func Allow(entries ...string) (Policy, error) {
	var p Policy
	var errs []string
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if err := p.add(e); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return Policy{}, errors.New(strings.Join(errs, "; "))
	}
	return p, nil
}

// ParseAllow reads a comma-separated list of Allow's entries, as a flag or
// an environment variable gives it; spaces around entries are ignored. An
// empty list is the default policy.
func ParseAllow(list string) (Policy, error) {
	var entries []string
	for e := range strings.SplitSeq(list, ",") {
		if e = strings.TrimSpace(e); e != "" {
			entries = append(entries, e)
		}
	}
	return Allow(entries...)
}

func (p *Policy) add(e string) error {
	switch {
	case e == "":
		return errors.New("an empty entry: want a host name, *.domain, an IP address or a network such as 10.0.0.0/8")
	case strings.Contains(e, "/"):
		n, err := netip.ParsePrefix(e)
		if err != nil {
			return fmt.Errorf("%q: want a network such as 10.0.0.0/8 or fd00::/8", e)
		}
		n = n.Masked()
		if n.Addr().Is4In6() && n.Bits() >= 96 {
			n = netip.PrefixFrom(n.Addr().Unmap(), n.Bits()-96)
		}
		if what, ok := refusedNet(n); ok {
			return fmt.Errorf("%q: every address in it is %s, which no policy allows", e, what)
		}
		p.nets = append(p.nets, n)
	default:
		if a, err := netip.ParseAddr(unbracket(e)); err == nil {
			if a.Zone() != "" {
				return fmt.Errorf("%q: write the address without a zone", e)
			}
			a = a.Unmap()
			if r, ok := refusal(a); ok {
				return fmt.Errorf("%q: %s", e, r)
			}
			p.nets = append(p.nets, netip.PrefixFrom(a, a.BitLen()))
			return nil
		}
		name := hostName(e)
		if rest, ok := strings.CutPrefix(name, "*."); ok {
			if msg := checkName(rest); msg != "" {
				return fmt.Errorf("%q: %s", e, msg)
			}
		} else if msg := checkName(name); msg != "" {
			return fmt.Errorf("%q: %s", e, msg)
		}
		p.hosts = append(p.hosts, name)
	}
	return nil
}

// Restricted reports whether p reaches only listed hosts and networks.
func (p Policy) Restricted() bool { return len(p.hosts) > 0 || len(p.nets) > 0 }

// String lists p's entries, comma-separated, as ParseAllow reads them; ""
// for the default policy.
func (p Policy) String() string {
	var s []string
	s = append(s, p.hosts...)
	for _, n := range p.nets {
		if n.IsSingleIP() {
			s = append(s, n.Addr().String())
		} else {
			s = append(s, n.String())
		}
	}
	return strings.Join(s, ",")
}

// Equal reports whether p and q allow the same entries, in the same order.
func (p Policy) Equal(q Policy) bool {
	return slices.Equal(p.hosts, q.hosts) && slices.Equal(p.nets, q.nets)
}

// CheckAddr returns nil if p allows connecting to a, else an *Error of
// KindRefused saying why. A restricted policy allows only addresses in its
// networks here: a listed name is allowed by CheckHost and by the dial,
// which know the name.
func (p Policy) CheckAddr(a netip.Addr) error {
	return asError(p.checkAddr(a, "", false))
}

// CheckHost returns nil if p may allow a request to host (a name or an IP
// address, with or without brackets, without a port), else an *Error
// saying why: KindBadURL for a host of no valid form, KindRefused for one
// the policy refuses. A name is looked up only when dialled: CheckHost
// allows a name unless p is restricted to other names and no networks, and
// the dial decides on its addresses.
//
// An IPv4 address written as a number or with parts in hexadecimal or
// octal (0xA9FEA9FE, 2852039166, 0251.0376.0251.0376, 127.1), which some
// resolvers take as the address, is refused in every case: as the refused
// address it stands for, or as an address to write the usual way.
func (p Policy) CheckHost(host string) error {
	_, _, err := p.checkHost(host)
	return asError(err)
}

// asError returns e as an error: nil for a nil e.
func asError(e *Error) error {
	if e == nil {
		return nil
	}
	return e
}

// checkHost decides on host. For an IP address it returns the address
// (valid); for a name, whether the name is listed (so that any address it
// resolves to, but a refused one, may be dialled).
func (p Policy) checkHost(host string) (addr netip.Addr, listed bool, err *Error) {
	h := unbracket(strings.ToLower(host))
	if h == "" {
		return netip.Addr{}, false, badURL("", "no host is given")
	}
	if a, perr := netip.ParseAddr(h); perr == nil {
		if a.Zone() != "" && !a.WithZone("").IsLinkLocalUnicast() {
			return netip.Addr{}, false, badURL("", fmt.Sprintf("the address %s has a zone (%%...), which lettershop does not dial", host))
		}
		return a, false, p.checkAddr(a, "", false)
	}
	if endsInNumber(h) {
		a, ok := parseIPv4Number(h)
		if !ok {
			return netip.Addr{}, false, badURL("", fmt.Sprintf("the host %q is neither a name nor an IP address", host))
		}
		if r, refused := refusal(a); refused {
			return netip.Addr{}, false, &Error{Kind: KindRefused, Addr: a,
				msg: fmt.Sprintf("%s is the address %s written another way; %s", host, a, r)}
		}
		return netip.Addr{}, false, badURL("", fmt.Sprintf("%s is the address %s written another way: write it as %s", host, a, a))
	}
	name := strings.TrimSuffix(h, ".")
	if msg := checkName(name); msg != "" {
		return netip.Addr{}, false, badURL("", fmt.Sprintf("the host %q %s", host, msg))
	}
	if slices.Contains(metadataNames, name) {
		return netip.Addr{}, false, &Error{Kind: KindRefused,
			msg: fmt.Sprintf("%s is the name of a cloud metadata service, which lettershop never connects to", name)}
	}
	if !p.Restricted() {
		return netip.Addr{}, false, nil
	}
	if p.listed(name) {
		return netip.Addr{}, true, nil
	}
	if len(p.nets) == 0 {
		return netip.Addr{}, false, p.notAllowed(name)
	}
	return netip.Addr{}, false, nil
}

// Control is a net.Dialer Control hook: it refuses, before the connection
// is made, an address p does not allow (see CheckAddr). A Client's dials
// run it for every address they connect to, which is what makes the policy
// hold whatever a name resolves to; it is exported for dialers of other
// protocols, and for tests of the decision that send nothing.
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	return p.control("", false)(network, address, nil)
}

// control returns the Control hook of a dial for name (a name the policy
// lists, when listed).
func (p Policy) control(name string, listed bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &Error{Kind: KindRefused, msg: fmt.Sprintf("the address dialled, %q, is not an IP address and port", address)}
		}
		return asError(p.checkAddr(ap.Addr(), name, listed))
	}
}

// checkAddr decides on the address a, which name (when not "") resolved
// to; listed says the policy lists name.
func (p Policy) checkAddr(a netip.Addr, name string, listed bool) *Error {
	if !a.IsValid() {
		return &Error{Kind: KindRefused, msg: "no address is given"}
	}
	if clause, refused := refusedClause(a); refused {
		msg := fmt.Sprintf("%s %s%s", a, clause, never)
		if name != "" {
			msg = fmt.Sprintf("%s resolves to %s, which %s%s", name, a, clause, never)
		}
		return &Error{Kind: KindRefused, Addr: a, msg: msg}
	}
	if !p.Restricted() || listed || p.contains(a) {
		return nil
	}
	if name != "" {
		return p.notAllowed(fmt.Sprintf("%s (at %s)", name, a))
	}
	e := p.notAllowed(a.String())
	e.Addr = a
	return e
}

func (p Policy) notAllowed(what string) *Error {
	return &Error{Kind: KindRefused,
		msg: fmt.Sprintf("%s is not among the hosts and networks this server may reach (%s)", what, strings.ReplaceAll(p.String(), ",", ", "))}
}

// contains reports whether a is in one of p's networks.
func (p Policy) contains(a netip.Addr) bool { return containsAddr(p.nets, a) }

// listed reports whether p lists name, itself or by a *.domain.
func (p Policy) listed(name string) bool { return matchName(p.hosts, name) }

// refusedRange is a range of addresses no policy allows, and what they
// are.
type refusedRange struct {
	net  netip.Prefix
	what string
}

const metadata = "a cloud metadata address"

// refused are the ranges always refused, the most specific first so the
// reason names it.
var refused = []refusedRange{
	// AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack and more; also
	// link-local.
	{netip.MustParsePrefix("169.254.169.254/32"), metadata},
	{netip.MustParsePrefix("fd00:ec2::254/128"), metadata},  // AWS, over IPv6
	{netip.MustParsePrefix("fd00:ec2::23/128"), metadata},   // AWS EKS Pod Identity, over IPv6
	{netip.MustParsePrefix("fd00:42::42/128"), metadata},    // Scaleway, over IPv6
	{netip.MustParsePrefix("fd20:ce::254/128"), metadata},   // Google Cloud, over IPv6
	{netip.MustParsePrefix("100.100.100.200/32"), metadata}, // Alibaba Cloud
	{netip.MustParsePrefix("192.0.0.192/32"), metadata},     // Oracle Cloud's older address
	{netip.MustParsePrefix("168.63.129.16/32"), "Azure's platform address (WireServer)"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified address (0.0.0.0/8, this host on some systems)"},
	{netip.MustParsePrefix("::/128"), "the unspecified address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved or broadcast address"},
}

// metadataNames are the names of cloud metadata services, refused before
// they are looked up (they resolve to refused addresses anyway).
var metadataNames = []string{"metadata.google.internal", "metadata.goog"}

const never = ": lettershop never connects to link-local, cloud metadata, unspecified, multicast or broadcast addresses"

// refusal says why a is always refused, if it is: a sentence that begins
// with a.
func refusal(a netip.Addr) (string, bool) {
	clause, ok := refusedClause(a)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s %s%s", a, clause, never), true
}

// refusedClause says what a is, after a itself, if it is always refused.
func refusedClause(a netip.Addr) (string, bool) {
	a = a.WithZone("")
	if a.Is4In6() {
		if r, ok := refusedAs(a.Unmap()); ok {
			return fmt.Sprintf("is %s written as an IPv6 address, and %s is %s", a.Unmap(), a.Unmap(), r), true
		}
		return "", false
	}
	if r, ok := refusedAs(a); ok {
		return "is " + r, true
	}
	if v4, ok := embeddedIPv4(a); ok {
		if r, ok := refusedAs(v4); ok {
			return fmt.Sprintf("carries the IPv4 address %s, which is %s", v4, r), true
		}
	}
	return "", false
}

func refusedAs(a netip.Addr) (string, bool) {
	for _, r := range refused {
		if r.net.Contains(a) {
			return r.what, true
		}
	}
	return "", false
}

// refusedNet says what the addresses of the network n are, if all of them
// are always refused.
func refusedNet(n netip.Prefix) (string, bool) {
	for _, r := range refused {
		if r.net.Bits() <= n.Bits() && r.net.Contains(n.Addr()) {
			return r.what, true
		}
	}
	return "", false
}

// Prefixes of IPv6 addresses that carry an IPv4 address in their last 32
// bits (6to4 carries it in bits 16 to 47).
var (
	compatible = netip.MustParsePrefix("::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
)

// embeddedIPv4 returns the IPv4 address an IPv6 address of a translating
// or tunnelling form carries, which such an address may reach.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case compatible.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case translated.Contains(a), nat64.Contains(a), nat64Local.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// checkName returns what is wrong with a host name, or "".
func checkName(name string) string {
	if name == "" {
		return "is empty"
	}
	if len(name) > 253 {
		return "is longer than 253 characters"
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return "has an empty label (..)"
		}
		if len(label) > 63 {
			return "has a label longer than 63 characters"
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
			case c >= 0x80:
				return "is not ASCII: write an internationalized name in its xn-- form"
			default:
				return fmt.Sprintf("holds %q, which no host name holds", rune(c))
			}
		}
	}
	if endsInNumber(name) {
		return "ends in a number, which makes it an IPv4 address"
	}
	return ""
}

// endsInNumber reports whether host's last label is a number (decimal, or
// hexadecimal after 0x), which makes it an IPv4 address to a URL parser
// and to some resolvers (the WHATWG URL standard's rule).
func endsInNumber(host string) bool {
	labels := strings.Split(host, ".")
	if len(labels) > 1 && labels[len(labels)-1] == "" {
		labels = labels[:len(labels)-1]
	}
	last := labels[len(labels)-1]
	if last == "" {
		return false
	}
	if strings.Trim(last, "0123456789") == "" {
		return true
	}
	if hex, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return false
}

// parseIPv4Number reads host as inet_aton and URL parsers do: one to four
// parts, each decimal, octal (a leading 0) or hexadecimal (0x), the last
// filling the bytes left.
func parseIPv4Number(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, part := range parts {
		base := 10
		switch {
		case strings.HasPrefix(part, "0x"):
			part, base = part[2:], 16
			if part == "" {
				part = "0"
			}
		case len(part) > 1 && part[0] == '0':
			part, base = part[1:], 8
		}
		n, err := strconv.ParseUint(part, base, 32)
		if err != nil || part == "" {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v = v<<8 | n
			continue
		}
		rest := uint(8 * (4 - i))
		if n >= 1<<rest {
			return netip.Addr{}, false
		}
		v = v<<rest | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
