package mcpproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/mcpproxy"
	"github.com/agentflightrecorder/afr/recorder"
)

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

// goUpstream is a streamable-HTTP MCP server of the Go SDK on loopback
// with tools sum, fail (an error result) and hang (which tells started
// and answers only when release is called, or the test ends), counting
// the POSTs it gets.
func goUpstream(t testing.TB, started chan<- struct{}) (up *httptest.Server, posts *atomic.Int64, release func()) {
	t.Helper()
	released := make(chan struct{})
	release = sync.OnceFunc(func() { close(released) })
	srv := mcp.NewServer(&mcp.Implementation{Name: "afr-upstream", Version: "0.1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "sum", Description: "adds two integers"}, func(_ context.Context, _ *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
		return nil, sumOut{Sum: in.A + in.B}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "fail", Description: "always fails"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("this tool always fails")
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "hang", Description: "answers when the test ends"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		started <- struct{}{}
		<-released
		return nil, nil, errors.New("released")
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	posts = new(atomic.Int64)
	up = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	t.Cleanup(release) // runs first
	return up, posts, release
}

// httpProxy is the proxy on loopback in front of upstream, recording into
// a new log; stop ends it and closes the log.
func httpProxy(t testing.TB, upstream string) (url, logDir string, stop func()) {
	t.Helper()
	return httpProxyWith(t, upstream, nil)
}

// httpProxyWith is httpProxy gating calls with policy (nil: none).
func httpProxyWith(t testing.TB, upstream string, policy *mcpproxy.Policy) (url, logDir string, stop func()) {
	t.Helper()
	return httpProxyOpts(t, upstream, mcpproxy.Options{Policy: policy})
}

// httpProxyOpts is httpProxy with opts (its Recorder and Log set here).
func httpProxyOpts(t testing.TB, upstream string, opts mcpproxy.Options) (url, logDir string, stop func()) {
	t.Helper()
	logDir = filepath.Join(t.TempDir(), "log")
	r := logtest.Open(t, logDir, recorder.Options{Recorder: "mcp-test", Sync: recorder.SyncGroup})
	opts.Recorder, opts.Log = r, os.Stderr
	h, err := mcpproxy.NewHTTP(upstream, opts)
	if err != nil {
		t.Fatal(err)
	}
	ps := httptest.NewServer(h)
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		ps.Close()
		h.Close(context.Background())
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(stop)
	return ps.URL, logDir, stop
}

func connectHTTP(t testing.TB, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "afr-test", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func toolNames(r *mcp.ListToolsResult) (n []string) {
	for _, tl := range r.Tools {
		n = append(n, tl.Name)
	}
	return n
}

// sameThroughProxy runs tools/list and the calls through the proxy and
// directly, checks that the answers are equal, and returns the texts.
func sameThroughProxy(t *testing.T, proxied, direct *mcp.ClientSession, calls []*mcp.CallToolParams) (tools []string, outputs []string) {
	t.Helper()
	ctx := context.Background()
	pt, err := proxied.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dt, err := direct.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	pj, _ := json.Marshal(pt.Tools)
	dj, _ := json.Marshal(dt.Tools)
	if string(pj) != string(dj) || len(pt.Tools) == 0 {
		t.Fatalf("tools through the proxy %s, directly %s", pj, dj)
	}
	for _, c := range calls {
		got, err := proxied.CallTool(ctx, c)
		if err != nil {
			t.Fatalf("%s through the proxy: %v", c.Name, err)
		}
		want, err := direct.CallTool(ctx, c)
		if err != nil {
			t.Fatalf("%s directly: %v", c.Name, err)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if string(gj) != string(wj) {
			t.Fatalf("%s: through the proxy %s, directly %s", c.Name, gj, wj)
		}
		outputs = append(outputs, texts(t, got))
	}
	return toolNames(pt), outputs
}

// checkRecorded checks the log's first events: the initialize and
// tools/list observations, then one intent/execution pair per call with
// the arguments, the output text and the status of each.
func checkRecorded(t *testing.T, logDir, server string, tools []string, steps []*mcp.CallToolParams, outputs []string, failed []bool) {
	t.Helper()
	evs := logEvents(t, logDir)
	init, list := evs[0], evs[1]
	if init.Payload.Ext[mcpproxy.ExtMethod] != "initialize" || init.Payload.Ext[mcpproxy.ExtServer].(map[string]any)["name"] != server {
		t.Fatalf("first event is not the initialize observation of %s: %+v", server, init.Payload)
	}
	var listed []string
	for _, n := range list.Payload.Ext[mcpproxy.ExtTools].([]any) {
		listed = append(listed, n.(string))
	}
	if list.Payload.Ext[mcpproxy.ExtMethod] != "tools/list" || !slices.Equal(listed, tools) {
		t.Fatalf("second event is not the tools/list observation of %v: %+v", tools, list.Payload)
	}
	ps := calls(t, evs)
	if len(ps) != len(steps) {
		t.Fatalf("%d recorded calls, want %d", len(ps), len(steps))
	}
	for i, c := range steps {
		in, ex := ps[i].intent, ps[i].exec
		if in.Payload.Intent.Tool != c.Name || fmt.Sprint(in.Payload.Intent.Args) != fmt.Sprint(c.Arguments) {
			t.Errorf("call %d: intent %s %v, want %s %v", i, in.Payload.Intent.Tool, in.Payload.Intent.Args, c.Name, c.Arguments)
		}
		if !slices.Equal(in.Payload.Context.Parents, []uint64{list.Seq}) {
			t.Errorf("call %d: intent's parents %v, want the tools/list observation %d", i, in.Payload.Context.Parents, list.Seq)
		}
		want := format.StatusOK
		if failed[i] {
			want = format.StatusFailed
		}
		if recordedOutput(ex) != outputs[i] || ex.Payload.Execution.Status != want || ex.Payload.Execution.Start == 0 {
			t.Errorf("call %d: execution %+v, ext %v; want status %s, output %q", i, ex.Payload.Execution, ex.Payload.Ext, want, outputs[i])
		}
	}
}

// TestHTTPGoSDK: the Go SDK's client through the proxy to the Go SDK's
// streamable-HTTP server gets what it gets directly (tools/list, calls
// answered on event streams, an error result), and the log verifies and
// holds each call as an intent/execution pair.
func TestHTTPGoSDK(t *testing.T) {
	up, _, _ := goUpstream(t, make(chan struct{}, 1))
	url, logDir, stop := httpProxy(t, up.URL)
	proxied := connectHTTP(t, url)
	direct := connectHTTP(t, up.URL)
	steps := []*mcp.CallToolParams{
		{Name: "sum", Arguments: map[string]any{"a": 2, "b": 40}},
		{Name: "fail", Arguments: map[string]any{}},
		{Name: "sum", Arguments: map[string]any{"a": -1, "b": 1}},
	}
	tools, outputs := sameThroughProxy(t, proxied, direct, steps)
	if outputs[0] != `{"sum":42}` {
		t.Fatalf("sum(2, 40) = %q", outputs[0])
	}
	direct.Close()
	if err := proxied.Close(); err != nil { // a DELETE through the proxy
		t.Fatalf("closing the proxied session: %v", err)
	}
	stop()
	checkRecorded(t, logDir, "afr-upstream", tools, steps, outputs, []bool{false, true, false})
}

// TestHTTPUpstreamGone: the upstream dropping its connections while a
// call is in flight (the call's and the session's event streams) gives
// the client an error for the call, and the log
// records the call's outcome as upstream_failed.
func TestHTTPUpstreamGone(t *testing.T) {
	started := make(chan struct{}, 1)
	up, _, release := goUpstream(t, started)
	url, logDir, stop := httpProxy(t, up.URL)
	s := connectHTTP(t, url)
	if _, err := s.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "hang", Arguments: map[string]any{}})
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the hang tool did not start")
	}
	up.CloseClientConnections()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("the call succeeded after the upstream went away")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client got no answer after the upstream went away")
	}
	release() // the server's session ends only when its handlers return
	s.Close()
	stop()
	ps := calls(t, logEvents(t, logDir))
	if len(ps) != 1 {
		t.Fatalf("%d recorded calls, want 1", len(ps))
	}
	ex := ps[0].exec.Payload
	if ps[0].intent.Payload.Intent.Tool != "hang" || ex.Execution.Status != format.StatusFailed || ex.Ext[mcpproxy.ExtOutcome] != "upstream_failed" {
		t.Fatalf("the hang call recorded as %+v, ext %v", ex.Execution, ex.Ext)
	}
}

// TestHTTPMalformedBody: a POST that is not JSON-RPC gets 400 with a
// JSON-RPC parse error, never reaches the upstream and is recorded as
// refused.
func TestHTTPMalformedBody(t *testing.T) {
	up, posts, _ := goUpstream(t, make(chan struct{}, 1))
	url, logDir, stop := httpProxy(t, up.URL)
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":`, `not json`, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`} {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var wire struct {
			Error *jsonrpc.Error `json:"error"`
		}
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(b, &wire) != nil || wire.Error == nil || wire.Error.Code != jsonrpc.CodeParseError {
			t.Errorf("POST %q: %s %s, want 400 with a JSON-RPC parse error", body, resp.Status, b)
		}
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("the upstream got %d POSTs", n)
	}
	req, _ := http.NewRequest(http.MethodPut, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("PUT: %s, want 405", resp.Status)
	}
	stop()
	evs := logEvents(t, logDir)
	if len(evs) != 3 {
		t.Fatalf("%d events recorded for 3 malformed requests, want 3 refusals", len(evs))
	}
	for _, ev := range evs {
		if ev.Envelope.Tool != "mcp/refused" || ev.Payload.Ext[mcpproxy.ExtOutcome] != "refused" {
			t.Errorf("a malformed request recorded as %s %v, want a refusal", ev.Envelope.Tool, ev.Payload.Ext)
		}
	}
}

// TestHTTPEverything: the reference everything server in its
// streamable-HTTP mode (Node's MCP SDK, resumable event streams) as the
// upstream: answers equal a direct session's and the calls are recorded.
func TestHTTPEverything(t *testing.T) {
	upURL := everythingHTTP(t)
	url, logDir, stop := httpProxy(t, upURL)
	proxied := connectHTTP(t, url)
	direct := connectHTTP(t, upURL)
	steps := []*mcp.CallToolParams{
		{Name: "echo", Arguments: map[string]any{"message": "through the proxy"}},
		{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}},
	}
	tools, outputs := sameThroughProxy(t, proxied, direct, steps)
	direct.Close()
	if err := proxied.Close(); err != nil {
		t.Fatalf("closing the proxied session: %v", err)
	}
	stop()
	checkRecorded(t, logDir, "mcp-servers/everything", tools, steps, outputs, []bool{false, false})
}

// everythingHTTP starts the reference everything server in its
// streamable-HTTP mode on a loopback port (stopped when the test ends) and
// returns its endpoint URL once it listens.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	server := npmServer(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(server, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the everything server did not listen on port %d: %v", port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}
