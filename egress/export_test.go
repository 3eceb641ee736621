package egress

import "net/netip"

// SetDialed has c tell f of every address just before it is dialled; an
// error from f stops the dial. Tests use it to see what was dialled, and to
// stop any dial of an address not on this machine.
func SetDialed(c *Client, f func(netip.AddrPort) error) { c.dialed = f }
