// Package rpcdial opens JSON-RPC clients whose HTTP requests are counted: the
// one way AFR's fork (evm) and replayer (tracesim) dial an endpoint, so that
// their request statistics mean the same thing.
package rpcdial

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/rpc"
)

// Dial connects to url (http, https, ws or ipc) as rpc.DialOptions does.
// For an http(s) url every HTTP request the client sends, a batch or a retry
// included, adds one to requests; hc is the client to send them with (nil
// means a default http.Client) and is not modified. Other transports are not
// counted and ignore hc. The error is rpc.DialOptions's, unwrapped.
func Dial(ctx context.Context, url string, hc *http.Client, requests *atomic.Int64) (*rpc.Client, error) {
	var opts []rpc.ClientOption
	if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
		if hc == nil {
			hc = &http.Client{}
		}
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		counted := *hc
		counted.Transport = countingTransport{base: base, n: requests}
		opts = append(opts, rpc.WithHTTPClient(&counted))
	}
	return rpc.DialOptions(ctx, url, opts...)
}

// countingTransport counts HTTP requests.
type countingTransport struct {
	base http.RoundTripper
	n    *atomic.Int64
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.base.RoundTrip(r)
}
