package mcpproxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/mcpproxy"
	"github.com/agentflightrecorder/afr/verifier"
)

// refusalsFrom are the refusals of a log whose frame came from source.
func refusalsFrom(evs []*verifier.Event, source string) (out []*verifier.Event) {
	for _, ev := range refusals(evs) {
		if ev.Payload.Context.Inputs[0].Source == source {
			out = append(out, ev)
		}
	}
	return out
}

// TestStdioMessageBound: a frame from the client larger than MaxMessage is
// answered with CodeTooLarge and recorded, one from the server is dropped
// and recorded, and the session goes on (before, frames had no bound: a
// peer that never sent a newline grew the proxy's memory without end).
func TestStdioMessageBound(t *testing.T) {
	logDir := filepath.Join(t.TempDir(), "log")
	send, recv, end := rawStdio(t, childConfig{Log: logDir, MaxMessage: 4096, Server: []string{"env", serverEnv + "=1", os.Args[0], "-test.run=^$"}})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"` + strings.Repeat("x", 5000) + `"}}}`
	send(big)
	if m := recv(); m["id"] != nil || errorCode(m) != mcpproxy.CodeTooLarge {
		t.Fatalf("an over-size frame: answer %v, want error %d", m, mcpproxy.CodeTooLarge)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := recv(); m["id"] != 3.0 || m["result"] == nil {
		t.Fatalf("answer %v, want the ping's (the over-size answer to 2 dropped)", m)
	}
	end()
	evs := logEvents(t, logDir)
	client, server := refusalsFrom(evs, "mcp:client"), refusalsFrom(evs, "mcp:server")
	if len(client) != 1 || !strings.Contains(fmt.Sprint(client[0].Payload.Ext[mcpproxy.ExtError]), fmt.Sprintf("of %d bytes", len(big))) || len(server) != 1 {
		t.Fatalf("refusals: %d of the client's frames (%v), %d of the server's; want one each", len(client), client, len(server))
	}
	if ps := calls(t, evs); len(ps) != 1 || ps[0].exec.Payload.Ext[mcpproxy.ExtOutcome] != "abandoned" {
		t.Fatalf("recorded calls %+v, want big abandoned", ps)
	}
}

// A POST body over the bound gets 413 with a JSON-RPC error and is
// recorded as refused (before, the 413 left no record).
func TestHTTPBodyTooLargeRecorded(t *testing.T) {
	up, posts, _ := goUpstream(t, make(chan struct{}, 1))
	url, logDir, stop := httpProxy(t, up.URL)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"pad":"` + strings.Repeat("x", mcpproxy.DefaultMaxMessage) + `"}}}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var m map[string]any
	if resp.StatusCode != http.StatusRequestEntityTooLarge || json.Unmarshal(b, &m) != nil || errorCode(m) != mcpproxy.CodeTooLarge {
		t.Fatalf("%s %s, want 413 with error %d", resp.Status, b, mcpproxy.CodeTooLarge)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("the upstream got %d POSTs", n)
	}
	stop()
	if got := refusalsFrom(logEvents(t, logDir), "mcp:client"); len(got) != 1 {
		t.Fatalf("%d refusals recorded, want 1", len(got))
	}
}

// An upstream JSON answer over the bound is not read, nor relayed: the
// call is recorded as upstream_failed and the refusal as the server's
// (before, any size was read into memory and forwarded).
func TestHTTPAnswerTooLarge(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"INJECTED`+strings.Repeat("x", mcpproxy.DefaultMaxMessage)+`"}]}}`)
	}))
	defer up.Close()
	url, logDir, stop := httpProxy(t, up.URL)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"answer","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var m map[string]any
	if strings.Contains(string(b), "INJECTED") || json.Unmarshal(b, &m) != nil || errorCode(m) != mcpproxy.CodeServerGone {
		t.Fatalf("the client got %.200s, want error %d", b, mcpproxy.CodeServerGone)
	}
	stop()
	evs := logEvents(t, logDir)
	if got := refusalsFrom(evs, "mcp:server"); len(got) != 1 {
		t.Fatalf("%d refusals recorded, want 1", len(got))
	}
	if ps := calls(t, evs); len(ps) != 1 || ps[0].exec.Payload.Ext[mcpproxy.ExtOutcome] != "upstream_failed" {
		t.Fatalf("recorded calls %+v, want one upstream_failed", ps)
	}
}

// An event stream that ends without the answer and without an event id
// (the client cannot resume it) has its call recorded as upstream_failed
// and answered with an error event (before, the client got nothing and the
// log said nothing until the proxy stopped). With an event id the client
// resumes with a GET, and the answer there is recorded.
func TestHTTPStreamEndsWithoutAnswer(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"resumed"}]}}`
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"answer","arguments":{}}}`
	for name, c := range map[string]struct {
		post, get, wantPost, outcome string
	}{
		"not resumable": {post: `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}` + "\n\n", outcome: "upstream_failed"},
		"resumable":     {post: "id: e1\ndata: \n\n", get: "id: e2\ndata: " + answer + "\n\n", wantPost: "id: e1\n\n", outcome: "ok"},
	} {
		t.Run(name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				if r.Method == http.MethodGet {
					io.WriteString(w, c.get)
					return
				}
				io.WriteString(w, c.post)
			}))
			defer up.Close()
			url, logDir, stop := httpProxy(t, up.URL)
			resp, err := http.Post(url, "application/json", strings.NewReader(call))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if c.get == "" {
				_, last, _ := strings.Cut(string(b), "\n\nevent: message\ndata: ")
				var m map[string]any
				if json.Unmarshal([]byte(last), &m) != nil || m["id"] != 1.0 || errorCode(m) != mcpproxy.CodeServerGone {
					t.Fatalf("the client got %q, want the notification and then error %d for id 1", b, mcpproxy.CodeServerGone)
				}
			} else {
				if string(b) != c.wantPost {
					t.Fatalf("the client got %q, want %q", b, c.wantPost)
				}
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Last-Event-ID", "e1")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(b), "resumed") {
					t.Fatalf("the resumed stream: %q", b)
				}
			}
			stop()
			if ps := calls(t, logEvents(t, logDir)); len(ps) != 1 || ps[0].exec.Payload.Ext[mcpproxy.ExtOutcome] != c.outcome {
				t.Fatalf("recorded calls %+v, want one %s", ps, c.outcome)
			}
		})
	}
}

// The events of a stream the proxy does not forward — of another type
// than message, not UTF-8, or not one JSON-RPC message — are recorded as
// refused (before, they were dropped without a record).
func TestHTTPEventRefusalsRecorded(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: other\ndata: {\"INJECTED\":1}\n\ndata: \xff\n\ndata: INJECTED\n\ndata: "+answer+"\n\n")
	}))
	defer up.Close()
	url, logDir, stop := httpProxy(t, up.URL)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"answer","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "event: message\ndata: " + answer + "\n\n"; string(b) != want {
		t.Fatalf("the client got %q, want %q", b, want)
	}
	stop()
	evs := logEvents(t, logDir)
	if got := refusalsFrom(evs, "mcp:server"); len(got) != 3 {
		t.Fatalf("%d refusals recorded, want 3", len(got))
	}
	if ps := calls(t, evs); len(ps) != 1 || ps[0].exec.Payload.Ext[mcpproxy.ExtOutcome] != "ok" {
		t.Fatalf("recorded calls %+v, want the answer", ps)
	}
}
