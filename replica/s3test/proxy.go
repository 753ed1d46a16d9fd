package s3test

import (
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Fault is what a Proxy does to a request instead of passing it on.
type Fault int

const (
	// Pass passes requests on.
	Pass Fault = iota
	// Down closes the connection without an answer, as a server that is
	// down or unreachable.
	Down
	// Unavailable answers 503 Service Unavailable with an S3 error.
	Unavailable
	// Slow passes the request on after the proxy's delay.
	Slow
	// CutUpload closes the connection of a PUT after half its body was
	// read (other requests pass).
	CutUpload
)

// Proxy is a loopback HTTP proxy in front of a server that injects faults
// into the requests sent through it.
type Proxy struct {
	// Endpoint is the proxy's URL, to use in place of the server's.
	Endpoint string
	rp       *httputil.ReverseProxy

	mu       sync.Mutex
	fault    Fault
	left     int // faults still to inject; < 0: until Set again
	delay    time.Duration
	injected chan Fault
}

// NewProxy starts a proxy in front of the server at endpoint and stops it
// in t.Cleanup.
func NewProxy(t testing.TB, endpoint string) *Proxy {
	t.Helper()
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Endpoint: "http://" + l.Addr().String(), rp: httputil.NewSingleHostReverseProxy(target),
		delay: 2 * time.Second, injected: make(chan Fault, 1024)}
	srv := &http.Server{Handler: p}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return p
}

// Set makes the proxy inject fault into the next n requests it applies to
// (n < 0: every one until Set again); Set(Pass, 0) ends the faults.
func (p *Proxy) Set(fault Fault, n int) {
	p.mu.Lock()
	p.fault, p.left = fault, n
	p.mu.Unlock()
}

// SetDelay sets how long Slow holds a request (default 2s).
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// Injected delivers each fault as it is injected.
func (p *Proxy) Injected() <-chan Fault { return p.injected }

// take returns the fault to inject into r, if any.
func (p *Proxy) take(r *http.Request) (Fault, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fault == Pass || p.left == 0 || (p.fault == CutUpload && r.Method != http.MethodPut) {
		return Pass, 0
	}
	if p.left > 0 {
		p.left--
	}
	select {
	case p.injected <- p.fault:
	default:
	}
	return p.fault, p.delay
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fault, delay := p.take(r)
	switch fault {
	case Down:
		hangUp(w)
		return
	case Unavailable:
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code><Message>injected by the test proxy</Message></Error>`)
		return
	case Slow:
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	case CutUpload:
		io.CopyN(io.Discard, r.Body, max(r.ContentLength/2, 1))
		hangUp(w)
		return
	}
	p.rp.ServeHTTP(w, r)
}

// hangUp closes the request's connection without an answer.
func hangUp(w http.ResponseWriter) {
	if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
		c.Close()
	}
}
