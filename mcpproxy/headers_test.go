package mcpproxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A request naming a single-valued header of MCP twice is refused (400)
// and not relayed: the proxy files the call under the first Mcp-Session-Id
// while the upstream may read another (Node joins the values, "A, B").
// Before, the proxy routed by the first value and relayed both.
func TestHTTPRepeatedHeaderRefused(t *testing.T) {
	posts := make(chan []string, 4)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts <- r.Header.Values("Mcp-Session-Id")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	}))
	defer up.Close()
	url, _, stop := httpProxyWith(t, up.URL, nil)
	defer stop()
	for _, h := range []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Authorization", "Last-Event-Id"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Add(h, "A")
		req.Header.Add(h, "B")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), h) {
			t.Errorf("%s twice: HTTP %d %s, want 400 naming the header", h, resp.StatusCode, b)
		}
	}
	select {
	case got := <-posts:
		t.Fatalf("relayed to the upstream (Mcp-Session-Id %q)", got)
	default:
	}
}

// The client gets the one session id the proxy filed the session under: an
// upstream answering with two Mcp-Session-Id values had both relayed, and
// a client joining them ("A, B") then named a session the proxy never saw.
func TestHTTPRepeatedSessionIDAnswer(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Mcp-Session-Id", "A")
		w.Header().Add("Mcp-Session-Id", "B")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	}))
	defer up.Close()
	url, _, stop := httpProxyWith(t, up.URL, nil)
	defer stop()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Values("Mcp-Session-Id"); len(got) != 1 || got[0] != "A" {
		t.Fatalf("the client got Mcp-Session-Id %q, want [A]", got)
	}
}
