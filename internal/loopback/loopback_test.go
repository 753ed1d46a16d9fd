package loopback_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/internal/loopback"
)

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost:8787": true, "127.0.0.1": true, "127.0.0.1:4318": true, "127.1.2.3:80": true,
		"::1": true, "[::1]": true, "[::1]:8931": true,
		"": false, "localhost.": false, "localhost.attacker.example": false, "attacker.example": false,
		"attacker.example:8787": false, "0.0.0.0:8787": false, "192.168.1.2": false, "[::]:80": false, "127.0.0.1.nip.io": false,
	} {
		if got := loopback.IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestCheck: on a real loopback listener, a DNS-rebinding request (Host
// attacker.example, same-origin for the browser) and cross-origin browser
// POSTs are refused; local programs, and a browser's same-origin page on
// localhost, are not.
func TestCheck(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := loopback.Check(r); err != nil {
			code := 0
			switch {
			case errors.Is(err, loopback.ErrHost):
				code = 421
			case errors.Is(err, loopback.ErrCrossOrigin):
				code = 403
			}
			http.Error(w, err.Error(), code)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, c := range []struct {
		name, method, host string
		header             map[string]string
		code               int
	}{
		{"a program", "POST", "", nil, 200},
		{"a program naming localhost", "POST", "localhost:" + port, nil, 200},
		{"a program naming ::1", "POST", "[::1]:" + port, nil, 200},
		{"DNS rebinding", "POST", "attacker.example:" + port, map[string]string{"Origin": "http://attacker.example:" + port, "Sec-Fetch-Site": "same-origin"}, 421},
		{"DNS rebinding, a GET", "GET", "attacker.example", nil, 421},
		{"cross-site POST", "POST", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, 403},
		{"cross-origin POST, Origin only", "POST", "", map[string]string{"Origin": "http://evil.example"}, 403},
		{"same-site POST from another port", "POST", "", map[string]string{"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"}, 403},
		{"cross-site DELETE", "DELETE", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-origin POST", "POST", "", map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}, 200},
		{"typed in the address bar", "POST", "", map[string]string{"Sec-Fetch-Site": "none"}, 200},
	} {
		req, _ := http.NewRequest(c.method, srv.URL, strings.NewReader("{}"))
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
		resp.Body.Close()
		if resp.StatusCode != c.code {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.code)
		}
	}
}

// TestCheckRemoteAddress: a request that arrived on an address other than
// loopback (a listener other hosts reach) may name any Host; cross-origin
// requests are refused there too.
func TestCheckRemoteAddress(t *testing.T) {
	req := httptest.NewRequest("POST", "http://myhost.example/", nil)
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8787}))
	if err := loopback.Check(req); err != nil {
		t.Fatalf("Host on a remote address: %v", err)
	}
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if err := loopback.Check(req); !errors.Is(err, loopback.ErrCrossOrigin) {
		t.Fatalf("cross-site on a remote address: %v, want ErrCrossOrigin", err)
	}
}

func TestBearer(t *testing.T) {
	for _, c := range []struct {
		header, token string
		want          bool
	}{
		{"Bearer s3cret", "s3cret", true},
		{"bearer s3cret", "s3cret", true},
		{"Bearer s3cret ", "s3cret", true},
		{"Bearer s3cre", "s3cret", false},
		{"Bearer s3cret2", "s3cret", false},
		{"Basic s3cret", "s3cret", false},
		{"s3cret", "s3cret", false},
		{"", "s3cret", false},
		{"Bearer ", "", false},
	} {
		req := httptest.NewRequest("POST", "/", nil)
		req.Header.Set("Authorization", c.header)
		if got := loopback.Bearer(req, c.token); got != c.want {
			t.Errorf("Bearer(%q, %q) = %v, want %v", c.header, c.token, got, c.want)
		}
	}
}

// FuzzIsLoopback: a host without a port is read alike with one, and only
// localhost and loopback addresses are loopback.
func FuzzIsLoopback(f *testing.F) {
	for _, s := range []string{"localhost", "127.0.0.1", "::1", "[::1]", "[::1]:80", "attacker.example", "0.0.0.0", "127.0.0.1.nip.io", "LOCALHOST", "::ffff:127.0.0.1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		got := loopback.IsLoopback(host)
		if _, _, err := net.SplitHostPort(host); err == nil || strings.ContainsAny(host, "[]") {
			return
		}
		if withPort := loopback.IsLoopback(net.JoinHostPort(host, "80")); withPort != got {
			t.Fatalf("IsLoopback(%q) = %v, with a port %v", host, got, withPort)
		}
		if ip := net.ParseIP(host); got && !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
			t.Fatalf("IsLoopback(%q): neither localhost nor a loopback address", host)
		}
	})
}
