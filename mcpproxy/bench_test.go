package mcpproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/mcpproxy"
	"github.com/agentflightrecorder/afr/recorder"
)

// BenchmarkToolCall measures the latency a tools/call gains through the
// proxy: server-everything's echo tool called directly and through the
// proxy, alternating, in the same run. It reports the median of each and
// their difference. Sub-benchmarks by the recorder's sync policy: group
// (the default: the intent is durable before the request is forwarded,
// the execution appended before the answer is and made durable by the
// next commit), group-await (AwaitOutcome: the execution durable before
// the answer is forwarded) and write (handed to the operating system, no
// fsync: what the relay and the recording cost without the disk).
func BenchmarkToolCall(b *testing.B) {
	server := npmServer(b, "mcp-server-everything")
	for _, mode := range []string{"group", "group-await", "write"} {
		b.Run(mode, func(b *testing.B) {
			sync, await := strings.CutSuffix(mode, "-await")
			direct := connect(b, exec.Command(server), nil)
			defer direct.Close()
			proxied := connect(b, proxyCmd(b, childConfig{Log: filepath.Join(b.TempDir(), "log"), Sync: sync, Await: await, Server: []string{server}}), nil)
			defer proxied.Close()
			compareLatency(b, direct, proxied, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "benchmark"}})
		})
	}
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

// BenchmarkAnswer1MiB is the proxy's own work on a tools/call with a 1 MiB
// answer, in process and without the disk (SyncNone): FromClient on the
// request, FromServer on the answer.
func BenchmarkAnswer1MiB(b *testing.B) {
	r := logtest.Open(b, filepath.Join(b.TempDir(), "log"), recorder.Options{Recorder: "bench", Sync: recorder.SyncNone})
	p := mcpproxy.New(mcpproxy.Options{Recorder: r})
	text, err := json.Marshal(strings.Repeat("0123456789abcdef\n", 1<<16))
	if err != nil {
		b.Fatal(err)
	}
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/srv/big.txt"}}}` + "\n")
	resp := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}` + "\n")
	ctx := context.Background()
	b.SetBytes(int64(len(resp)))
	for b.Loop() {
		if forward, _ := p.FromClient(ctx, req); forward == nil {
			b.Fatal("the request was not forwarded")
		}
		if p.FromServer(ctx, resp) == nil {
			b.Fatal("the answer was not forwarded")
		}
	}
}
