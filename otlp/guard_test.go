package otlp_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
)

// send posts the genAITraces export as JSON with the given Host (if not
// empty) and headers and returns the status and the body.
func send(t *testing.T, url, host string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(jsonBody(t, genAITraces())))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRefusesWebPages: a web page's request is refused before anything is
// recorded — a DNS-rebinding page (its own name in Host, same-origin for
// the browser) and a cross-origin POST — while an exporter's is recorded.
func TestRefusesWebPages(t *testing.T) {
	r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
	port := r.srv.URL[strings.LastIndex(r.srv.URL, ":"):]
	for name, c := range map[string]struct {
		host   string
		header map[string]string
	}{
		"DNS rebinding":    {"attacker.example" + port, map[string]string{"Origin": "http://attacker.example" + port, "Sec-Fetch-Site": "same-origin"}},
		"cross-origin":     {"", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
		"Origin only":      {"", map[string]string{"Origin": "http://evil.example"}},
		"same-site, other": {"", map[string]string{"Origin": "http://localhost:1", "Sec-Fetch-Site": "same-site"}},
	} {
		if st, body := send(t, r.url(), c.host, c.header); st != http.StatusForbidden || !strings.Contains(body, "loopback:") {
			t.Errorf("%s: %d %s, want 403", name, st, body)
		}
	}
	if st, body := send(t, r.url(), "localhost"+port, nil); st != http.StatusOK {
		t.Fatalf("an exporter naming localhost: %d %s", st, body)
	}
	if n := len(r.events(t)); n != 4 {
		t.Fatalf("%d events, want the 4 of the one accepted export", n)
	}
}

// TestToken: with Options.Token a request without the bearer token, or
// with another, gets 401 (UNAUTHENTICATED) and nothing is recorded.
func TestToken(t *testing.T) {
	r := newReceiver(t, otlp.Options{Token: "s3cret"}, recorder.SyncGroup)
	for name, auth := range map[string]string{"missing": "", "wrong": "Bearer s3cre", "another scheme": "Basic s3cret"} {
		st, body := send(t, r.url(), "", map[string]string{"Authorization": auth})
		if st != http.StatusUnauthorized || !strings.Contains(body, "bearer token") || !strings.Contains(body, `"code":16`) {
			t.Errorf("%s token: %d %s, want 401", name, st, body)
		}
	}
	if st, body := send(t, r.url(), "", map[string]string{"Authorization": "Bearer s3cret"}); st != http.StatusOK {
		t.Fatalf("the token: %d %s", st, body)
	}
	if n := len(r.events(t)); n != 4 {
		t.Fatalf("%d events, want the 4 of the one accepted export", n)
	}
}
