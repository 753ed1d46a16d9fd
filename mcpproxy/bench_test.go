package mcpproxy_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkToolCall measures the latency a tools/call gains through the
// proxy: server-everything's echo tool called directly and through the
// proxy (recording with SyncGroup, an fsync before each answer is
// forwarded), alternating, in the same run. It reports the median of each
// and their difference.
func BenchmarkToolCall(b *testing.B) {
	server := npmServer(b, "mcp-server-everything")
	direct := connect(b, exec.Command(server), nil)
	defer direct.Close()
	proxied := connect(b, proxyCmd(b, childConfig{Log: filepath.Join(b.TempDir(), "log"), Sync: "group", Server: []string{server}}), nil)
	defer proxied.Close()
	compareLatency(b, direct, proxied, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "benchmark"}})
}

// BenchmarkHTTPToolCall is BenchmarkToolCall in the streamable-HTTP mode:
// the Go SDK's streamable-HTTP server (its sum tool, answered on an event
// stream) called directly and through the proxy on loopback, recording
// with SyncGroup.
func BenchmarkHTTPToolCall(b *testing.B) {
	up, _, _ := goUpstream(b, make(chan struct{}, 1))
	url, _, _ := httpProxy(b, up.URL)
	direct := connectHTTP(b, up.URL)
	defer direct.Close()
	proxied := connectHTTP(b, url)
	defer proxied.Close()
	compareLatency(b, direct, proxied, &mcp.CallToolParams{Name: "sum", Arguments: map[string]any{"a": 1, "b": 2}})
}

// BenchmarkLargeOutput is BenchmarkToolCall for a 1 MiB output: the
// reference filesystem server's read_text_file of a 1 MiB file, directly
// and through the proxy (SyncGroup), alternating. The output is over
// DefaultMaxOutput, so the log keeps its digest and size.
func BenchmarkLargeOutput(b *testing.B) {
	server := npmServer(b, "mcp-server-filesystem")
	root := b.TempDir()
	file := filepath.Join(root, "big.txt")
	if err := os.WriteFile(file, bytes.Repeat([]byte("0123456789abcdef\n"), 1<<16), 0o644); err != nil {
		b.Fatal(err)
	}
	direct := connect(b, exec.Command(server, root), nil)
	defer direct.Close()
	proxied := connect(b, proxyCmd(b, childConfig{Log: filepath.Join(b.TempDir(), "log"), Sync: "group", Server: []string{server, root}}), nil)
	defer proxied.Close()
	compareLatency(b, direct, proxied, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": file}})
}

// compareLatency calls the tool directly and through the proxy,
// alternating, and reports the median of each and their difference.
func compareLatency(b *testing.B, direct, proxied *mcp.ClientSession, params *mcp.CallToolParams) {
	ctx := context.Background()
	call := func(s *mcp.ClientSession) time.Duration {
		start := time.Now()
		if _, err := s.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for range 20 { // warm up both paths
		call(direct)
		call(proxied)
	}
	var d, p []time.Duration
	b.ResetTimer()
	for b.Loop() {
		d = append(d, call(direct))
		p = append(p, call(proxied))
	}
	median := func(xs []time.Duration) float64 {
		slices.Sort(xs)
		return float64(xs[len(xs)/2].Microseconds())
	}
	md, mp := median(d), median(p)
	b.ReportMetric(md, "direct-µs-median")
	b.ReportMetric(mp, "proxy-µs-median")
	b.ReportMetric(mp-md, "added-µs-median")
	b.ReportMetric(mp/md, "×direct")
}
