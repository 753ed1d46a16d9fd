// Package loopback guards the HTTP listeners AFR serves to programs on the
// same host — the recorder daemon (afr serve), the OTLP receiver (afr otlp,
// afr serve --otlp) and the MCP proxy's streamable-HTTP endpoint — against
// web pages in a browser on that host, which can send requests to any
// loopback port.
//
// # Security
//
// Check refuses the two ways such a page gets a request read as a local
// program's:
//
//   - DNS rebinding: the page's own name is made to resolve to 127.0.0.1,
//     so that its requests are same-origin for the browser; they still
//     carry the page's name in Host. A request that arrived on a loopback
//     address must name a loopback host (localhost or a loopback address).
//   - Cross-origin requests: a POST from another origin, which the browser
//     marks with Sec-Fetch-Site or Origin, is refused by the standard
//     library's http.CrossOriginProtection. Requests without those headers
//     (every program that is not a browser) pass.
//
// Bearer compares a bearer token in constant time; a page cannot read the
// token file, so a listener with a token refuses it in any case.
package loopback

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// Errors of Check, each wrapped with the request's Host or origin.
var (
	ErrHost        = errors.New("loopback: the Host of a request to a loopback address is not a loopback name")
	ErrCrossOrigin = errors.New("loopback: cross-origin request from a browser")
)

// IsLoopback reports whether hostport (a host, or host:port; an IPv6
// address with or without brackets) is localhost or a loopback address.
func IsLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var crossOrigin http.CrossOriginProtection

// Check refuses a request that a web page could have sent: one that
// arrived on a loopback address (http.LocalAddrContextKey) naming another
// Host (ErrHost), and a cross-origin browser request with a method other
// than GET, HEAD or OPTIONS (ErrCrossOrigin). A listener on an address
// other hosts reach takes any Host on its other addresses.
func Check(r *http.Request) error {
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && IsLoopback(la.String()) && !IsLoopback(r.Host) {
		return fmt.Errorf("%w: Host %q reached %s (a page can name itself and resolve to loopback)", ErrHost, r.Host, la)
	}
	if err := crossOrigin.Check(r); err != nil {
		return fmt.Errorf("%w: Origin %q, Sec-Fetch-Site %q", ErrCrossOrigin, r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site"))
	}
	return nil
}

// Bearer reports whether r carries the header "Authorization: Bearer
// token" (the scheme in any case), comparing the token in constant time.
// An empty token matches nothing.
func Bearer(r *http.Request, token string) bool {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && token != "" && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
