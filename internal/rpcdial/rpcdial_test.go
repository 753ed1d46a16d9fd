package rpcdial

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestDialCountsHTTPRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`)
	}))
	defer srv.Close()

	var seen atomic.Int64
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	var n atomic.Int64
	c, err := Dial(context.Background(), srv.URL, hc, &n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 2; i++ {
		var id string
		if err := c.CallContext(context.Background(), &id, "eth_chainId"); err != nil {
			t.Fatal(err)
		}
	}
	if got := n.Load(); got != 2 {
		t.Errorf("counted %d requests, want 2", got)
	}
	if got := seen.Load(); got != 2 {
		t.Errorf("the given client's transport sent %d requests, want 2", got)
	}
	if _, ok := hc.Transport.(countingTransport); ok {
		t.Error("Dial modified the given http.Client")
	}
}

func TestDialNilClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`)
	}))
	defer srv.Close()
	var n atomic.Int64
	c, err := Dial(context.Background(), srv.URL, nil, &n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var id string
	if err := c.CallContext(context.Background(), &id, "eth_chainId"); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("counted %d requests, want 1", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
