package egress

import (
	"net/netip"
	"strings"
)

// HostList is a list of hosts, matched as a Policy's Allow list is: a
// name matches itself and "*.domain" the names under the domain, in any
// case and with or without a final dot; an address matches the addresses
// and networks listed, an IPv4-mapped IPv6 address as its IPv4 one. It
// decides nothing about refused addresses: that is the Policy's. The zero
// HostList is empty.
type HostList struct {
	// names are lower-case without a final dot; "*.example.com" for the
	// names under a domain.
	names []string
	nets  []netip.Prefix
}

// ListHosts returns the list of entries: names, "*.domain", IP addresses
// (bracketed or not) and networks. Spaces around an entry are ignored and
// an empty entry is skipped. Entries are not checked (Allow does): one of
// no known form is a name, matched as it is written.
func ListHosts(entries ...string) HostList {
	var l HostList
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if n, err := netip.ParsePrefix(e); err == nil {
			if n = n.Masked(); n.Addr().Is4In6() && n.Bits() >= 96 {
				n = netip.PrefixFrom(n.Addr().Unmap(), n.Bits()-96)
			}
			l.nets = append(l.nets, n)
		} else if a, ok := hostAddr(hostName(e)); ok {
			l.nets = append(l.nets, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		} else {
			l.names = append(l.names, hostName(e))
		}
	}
	return l
}

// Empty reports whether l lists no host.
func (l HostList) Empty() bool { return len(l.names) == 0 && len(l.nets) == 0 }

// String lists l's entries, comma-separated.
func (l HostList) String() string { return Policy{hosts: l.names, nets: l.nets}.String() }

// Match reports whether host (a name, or an IP address bracketed or not)
// is listed.
func (l HostList) Match(host string) bool {
	host = hostName(host)
	if a, ok := hostAddr(host); ok {
		return containsAddr(l.nets, a)
	}
	return matchName(l.names, host)
}

// hostAddr is host as an IP address without a zone, brackets taken off.
func hostAddr(host string) (netip.Addr, bool) {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if host == "" || !strings.Contains(host, ":") && (host[len(host)-1] < '0' || host[len(host)-1] > '9') {
		return netip.Addr{}, false // a name: no parse, and no error made
	}
	a, err := netip.ParseAddr(host)
	return a.WithZone(""), err == nil
}

// hostName is a host name as lists keep it: lower case, without a final
// dot.
func hostName(host string) string { return strings.ToLower(strings.TrimSuffix(host, ".")) }

// matchName reports whether names lists name (as hostName keeps it),
// itself or by a *.domain.
func matchName(names []string, name string) bool {
	for _, h := range names {
		if rest, ok := strings.CutPrefix(h, "*."); ok {
			if strings.HasSuffix(name, "."+rest) {
				return true
			}
		} else if name == h {
			return true
		}
	}
	return false
}

// containsAddr reports whether a is in one of nets.
func containsAddr(nets []netip.Prefix, a netip.Addr) bool {
	a = a.WithZone("")
	for _, n := range nets {
		if n.Contains(a) || n.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}
