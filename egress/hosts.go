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

// ListHosts returns the list of entries, each read and checked as Allow
// reads it: names, "*.domain", IP addresses and networks. Spaces around an
// entry are ignored and an empty entry is skipped; an entry of no known
// form, or one that names only refused addresses, is an error naming it,
// as Allow's is.
func ListHosts(entries ...string) (HostList, error) {
	given := make([]string, 0, len(entries))
	for _, e := range entries {
		if e = strings.TrimSpace(e); e != "" {
			given = append(given, e)
		}
	}
	p, err := Allow(given...)
	if err != nil {
		return HostList{}, err
	}
	return HostList{names: p.hosts, nets: p.nets}, nil
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
	host = unbracket(host)
	if host == "" || !strings.Contains(host, ":") && (host[len(host)-1] < '0' || host[len(host)-1] > '9') {
		return netip.Addr{}, false // a name: no parse, and no error made
	}
	a, err := netip.ParseAddr(host)
	return a.WithZone(""), err == nil
}

// unbracket is host without the brackets around it, if it has them (an
// IPv6 address as a URL writes it).
func unbracket(host string) string {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		return host[1 : len(host)-1]
	}
	return host
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
