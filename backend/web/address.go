package web

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"syscall"
)

// The address rule: a fetch may reach only public addresses, checked on
// the address the dialer is about to connect to (after DNS), for every
// connection, redirects included. A name that resolves to a public
// address once and to 127.0.0.1 the next time (DNS rebinding) is refused
// the second time, because the check sees the address, not the name.

// notPublic are the ranges a page is never read from unless the user
// allowed private addresses: besides what netip classifies (loopback,
// private, link-local, multicast, unspecified), the shared address space
// of carrier-grade NAT, "this network", benchmarking and reserved ranges,
// and IPv6's translation and documentation prefixes.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
}

// Public reports whether an address is one a page may be read from
// without the user allowing private addresses.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	switch {
	case !a.IsValid(), a.IsLoopback(), a.IsPrivate(), a.IsUnspecified(),
		a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast(), a.IsMulticast():
		return false
	}
	for _, p := range notPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// addressRule checks each address a fetch dials.
type addressRule struct {
	allowPrivate bool
	allow        []netip.AddrPort // exact addresses allowed anyway
}

// control is the dialer's check (net.Dialer.ControlContext): it runs
// after DNS, on the very address about to be connected to.
func (r addressRule) control(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &blockedError{addr: address}
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	if r.allowPrivate || Public(ap.Addr()) || slices.Contains(r.allow, ap) {
		return nil
	}
	return &blockedError{addr: ap.Addr().String()}
}

// blockedError is a dial refused by the address rule.
type blockedError struct{ addr string }

func (e *blockedError) Error() string {
	return fmt.Sprintf("%s is a private, loopback or otherwise non-public address", e.addr)
}
