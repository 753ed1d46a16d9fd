package mcpproxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The upstream reads the forwarded body as UTF-8 JSON whatever charset the
// client's Content-Type named: a server that decoded it as UTF-7 (as the
// TypeScript SDK's server decodes in the charset the header names) would
// read "path" twice and run on /etc/shadow while the log holds the text
// the proxy read.
func TestHTTPForwardsUTF8ContentType(t *testing.T) {
	got := make(chan string, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- strings.Join(r.Header.Values("Content-Type"), ", ")
		w.Header().Set("Content-Type", "application/json; charset=utf-7")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	}))
	defer up.Close()
	url, _, stop := httpProxyWith(t, up.URL, nil)
	defer stop()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a+ACIALAAi-path+ACIAOgAi-/etc/shadow"}}}`))
	req.Header.Set("Content-Type", "application/json; charset=utf-7")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := <-got; ct != "application/json" {
		t.Errorf("the upstream got Content-Type %q, want application/json", ct)
	}
	if ct := resp.Header.Values("Content-Type"); len(ct) != 1 || ct[0] != "application/json" {
		t.Errorf("the client got Content-Type %q, want application/json (the proxy's re-encoding)", ct)
	}
}

// An answer in a media type the proxy does not read is not relayed: the
// call is recorded as upstream_failed and the client gets no result.
func TestHTTPUnreadMediaTypeNotRelayed(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/jsonl")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"INJECTED"}]}}`+"\n")
	}))
	defer up.Close()
	url, logDir, stop := httpProxyWith(t, up.URL, nil)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"answer","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(b), "INJECTED") {
		t.Fatalf("the client got the unread answer: %s", b)
	}
	stop()
	ps := calls(t, logEvents(t, logDir))
	if len(ps) != 1 || ps[0].exec == nil || ps[0].exec.Payload.Ext["mcp.outcome"] != "upstream_failed" {
		t.Fatalf("recorded calls %+v, want one upstream_failed", ps)
	}
}

// A DELETE (the end of a session) has its answer's status relayed: it
// carries no JSON-RPC message, so the media-type rule for answers does not
// apply (before, the Go SDK server's bodiless 2xx became a 502).
func TestHTTPDeleteRelayed(t *testing.T) {
	up, _, _ := goUpstream(t, make(chan struct{}, 1))
	url, _, stop := httpProxy(t, up.URL)
	defer stop()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %s without a session id", resp.Status)
	}
	req, _ = http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %s, want the upstream's 2xx", resp.Status)
	}
}
