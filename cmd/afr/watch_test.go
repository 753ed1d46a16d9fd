package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/watch"
)

// afr watch --listen serves the watcher's metrics in Prometheus's text
// format at /metrics, and refuses a request naming another host (a web
// page that made its name resolve to loopback).
func TestWatchMetricsListener(t *testing.T) {
	w, err := watch.New(nil, watch.Config{}, watch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	addrFile := filepath.Join(t.TempDir(), "metrics.addr")
	srv, err := serveMetrics("127.0.0.1:0", addrFile, w)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	b, err := os.ReadFile(addrFile)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + strings.TrimSpace(string(b)) + "/metrics"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "\nafr_watch_polls_total 0\n") ||
		!strings.Contains(string(body), `afr_watch_alarms_active{alarm="anchor_late"} 0`) {
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, body)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = "attacker.example"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a request for another host: %s, want 403", resp.Status)
	}
}
