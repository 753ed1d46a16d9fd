package mcpproxy_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// TestHTTPRefusesWebPages: the streamable-HTTP proxy on loopback refuses
// what a web page on the host could send — a DNS-rebinding request (the
// page's name in Host, same-origin for the browser) and a cross-origin
// POST — before it is recorded or forwarded; a client's passes.
func TestHTTPRefusesWebPages(t *testing.T) {
	up, posts, _ := goUpstream(t, make(chan struct{}, 1))
	url, logDir, stop := httpProxy(t, up.URL)
	port := url[strings.LastIndex(url, ":"):]
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2}}}`
	for name, c := range map[string]struct {
		method, host string
		header       map[string]string
	}{
		"DNS rebinding":        {"POST", "attacker.example" + port, map[string]string{"Origin": "http://attacker.example" + port, "Sec-Fetch-Site": "same-origin"}},
		"DNS rebinding, a GET": {"GET", "attacker.example" + port, nil},
		"cross-origin POST":    {"POST", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
		"cross-origin DELETE":  {"DELETE", "", map[string]string{"Origin": "http://evil.example"}},
	} {
		req, _ := http.NewRequest(c.method, url, strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.host != "" {
			req.Host = c.host
		}
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "loopback:") {
			t.Errorf("%s: %s %s, want 403", name, resp.Status, b)
		}
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("the upstream got %d POSTs", n)
	}
	stop()
	l, err := recorder.OpenLog(logDir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := verifier.IndexLog(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 0 {
		t.Errorf("%d events recorded for a web page's requests", ix.Len())
	}
}
