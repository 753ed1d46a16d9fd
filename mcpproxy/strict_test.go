package mcpproxy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/mcpproxy"
	"github.com/agentflightrecorder/afr/verifier"
)

// runServer is a minimal MCP server over newline-delimited frames, one
// that answers even a cancelled call: tools/call of "hold" is answered only
// when a call of "release" comes (held answers first); "big" is answered
// with 64 KiB of text; any other tool is answered at once with its name and
// arguments as the server read them.
func runServer(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	var held []jsonrpc.ID
	answer := func(id jsonrpc.ID, result any) {
		b, err := json.Marshal(result)
		if err == nil {
			b, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: b})
		}
		if err != nil {
			panic(err)
		}
		out.Write(append(b, '\n'))
	}
	text := func(s string) any { return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}} }
	for sc.Scan() {
		msg, err := jsonrpc.DecodeMessage(sc.Bytes())
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || !req.IsCall() {
			continue
		}
		switch req.Method {
		case "initialize":
			answer(req.ID, map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "afr-test-server", "version": "1"}})
		case "tools/call":
			var params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			json.Unmarshal(req.Params, &params)
			switch params.Name {
			case "hold":
				held = append(held, req.ID)
			case "release":
				for _, id := range held {
					answer(id, text("held"))
				}
				held = nil
				answer(req.ID, text("release"))
			case "big":
				answer(req.ID, text(strings.Repeat("x", 64<<10)))
			default:
				answer(req.ID, text(params.Name+" "+string(params.Arguments)))
			}
		default:
			answer(req.ID, map[string]any{})
		}
	}
	return 0
}

// rawStdio is a client of raw frames of the proxy in front of server:
// send writes one frame, recv returns the next response (notifications
// skipped), end closes the client's side and waits for the proxy.
func rawStdio(t *testing.T, cfg childConfig) (send func(string), recv func() map[string]any, end func()) {
	t.Helper()
	cmd := proxyCmd(t, cfg)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		out := bufio.NewReader(outPipe)
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	send = func(s string) {
		t.Helper()
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv = func() map[string]any {
		t.Helper()
		for {
			var line []byte
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("the proxy's output ended")
				}
				line = l
			case <-time.After(10 * time.Second): // a failure bound, not a wait for an outcome
				t.Fatal("no answer from the proxy in 10 s")
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("the proxy sent %q: %v", line, err)
			}
			if _, ok := m["method"]; !ok {
				return m
			}
		}
	}
	end = func() {
		t.Helper()
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the proxy after the client left: %v", err)
		}
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := recv(); m["id"] != "init" || m["result"] == nil {
		t.Fatalf("initialize answer: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send, recv, end
}

// errorCode is the code of a JSON-RPC error response (0: not one).
func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// refusals are the refused frames a log records.
func refusals(evs []*verifier.Event) (out []*verifier.Event) {
	for _, ev := range evs {
		if ev.Envelope.Tool == "mcp/refused" {
			out = append(out, ev)
		}
	}
	return out
}

// TestStdioFoldedKeys: a tools/call naming two tools (or giving two
// argument objects) by keys equal under case folding, or by a duplicate
// key, is refused and recorded as refused: the policy cannot be told one
// tool while the server runs another. Before, the proxy read the last of
// "name" and "Name" (Go's encoding/json), the filesystem server the exact
// "name": the policy allowed read_text_file and the server wrote the file.
func TestStdioFoldedKeys(t *testing.T) {
	server := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"name":"reads","rules":[{"name":"reads","effect":"allow","tools":["read_*"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	logDir := filepath.Join(t.TempDir(), "log")
	send, recv, end := rawStdio(t, childConfig{Log: logDir, Policy: policy, Server: []string{server, root}})
	target := filepath.Join(root, "pwned.txt")
	args := fmt.Sprintf(`{"path":%q,"content":"pwned"}`, target)
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","Name":"read_text_file","arguments":` + args + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","name":"read_text_file","arguments":` + args + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":` + args + `,"ARGUMENTS":{"path":"x"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"x","Path":"y"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","Method":"tools/list","params":{"name":"read_text_file"}}`,
	}
	for i, f := range frames {
		send(f)
		if m := recv(); errorCode(m) != mcpproxy.CodeMalformedFrame || m["id"] != nil {
			t.Errorf("frame %d: answer %v, want a parse error with id null", i+1, m)
		}
	}
	end()
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("a refused call reached the server and wrote %s (%v)", target, err)
	}
	evs := logEvents(t, logDir)
	if got := refusals(evs); len(got) != len(frames) {
		t.Fatalf("%d refusals recorded for %d frames", len(got), len(frames))
	}
	for _, ev := range evs {
		if ev.Payload.Intent != nil {
			t.Errorf("an intent recorded for a refused frame: %+v", ev.Payload.Intent)
		}
	}
}

// TestStdioReusedIDAndLateAnswer: a call reusing the id of one in flight
// is refused (before, its answer was recorded as the first call's); a
// cancellation naming its request twice (requestId and RequestId) is
// refused (before, the proxy cancelled the one, the server the other); and
// the answer to a cancelled call, when the server still sends one, is
// recorded as late (before, it passed unrecorded).
func TestStdioReusedIDAndLateAnswer(t *testing.T) {
	logDir := filepath.Join(t.TempDir(), "log")
	send, recv, end := rawStdio(t, childConfig{Log: logDir, Server: []string{"env", serverEnv + "=1", os.Args[0], "-test.run=^$"}})
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`)
	if m := recv(); m["id"] != 7.0 || errorCode(m) != jsonrpc.CodeInvalidRequest {
		t.Fatalf("a reused id: answer %v, want an invalid-request error", m)
	}
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"RequestId":8}}`)
	if m := recv(); m["id"] != nil || errorCode(m) != mcpproxy.CodeMalformedFrame {
		t.Fatalf("a cancellation naming two requests: answer %v, want a parse error", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8,"reason":"too slow"}}`)
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"release","arguments":{}}}`)
	for _, want := range []float64{7, 8, 9} {
		if m := recv(); m["id"] != want || m["result"] == nil {
			t.Fatalf("answer %v, want the result of call %v", m, want)
		}
	}
	end()
	evs := logEvents(t, logDir)
	if got := refusals(evs); len(got) != 2 || fmt.Sprint(got[0].Payload.Ext[mcpproxy.ExtRequestID]) != "7" ||
		!strings.Contains(fmt.Sprint(got[1].Payload.Ext[mcpproxy.ExtError]), `"RequestId"`) {
		t.Fatalf("refusals %v, want the reused id 7 and the folded cancellation", got)
	}
	var outcomes []string
	for _, p := range calls(t, evs) {
		o := fmt.Sprintf("%s:%v", p.intent.Payload.Intent.Tool, p.exec.Payload.Ext[mcpproxy.ExtOutcome])
		if p.exec.Payload.Ext[mcpproxy.ExtLate] == true {
			o += ":late"
		}
		if p.intent.Payload.Intent.Tool == "hold" && p.exec.Payload.Ext[mcpproxy.ExtOutcome] == "ok" && recordedOutput(p.exec) != "held" {
			t.Errorf("call %v recorded with output %v, want held", p.intent.Payload.Ext[mcpproxy.ExtRequestID], recordedOutput(p.exec))
		}
		outcomes = append(outcomes, o)
	}
	want := "hold:cancelled hold:ok hold:ok:late release:ok" // in log order: 8 cancelled, 7 answered, 8 answered late
	if got := strings.Join(outcomes, " "); got != want {
		t.Fatalf("recorded %s, want %s", got, want)
	}
}

// TestHTTPFoldedKeys is TestStdioFoldedKeys in the streamable-HTTP mode
// with the Go SDK's server: the policy allows sum, and a call naming fail
// and sum by "name" and "Name" is refused (before, the policy allowed and
// the log recorded sum while the server ran fail).
func TestHTTPFoldedKeys(t *testing.T) {
	up, posts, _ := goUpstream(t, make(chan struct{}, 1))
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"name":"sums","rules":[{"name":"sums","effect":"allow","tools":["sum"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := mcpproxy.ReadPolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	url, logDir, stop := httpProxyWith(t, up.URL, p)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fail","Name":"sum","arguments":{"a":1,"b":2}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2},"Arguments":{"a":5,"b":5}}}`,
	} {
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m map[string]any
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(b, &m) != nil || errorCode(m) != mcpproxy.CodeMalformedFrame {
			t.Errorf("POST %s: %s %s, want 400 with a parse error", body, resp.Status, b)
		}
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("the upstream got %d POSTs", n)
	}
	stop()
	evs := logEvents(t, logDir)
	if len(evs) != 2 || len(refusals(evs)) != 2 {
		t.Fatalf("recorded %d events (%d refusals), want 2 refusals", len(evs), len(refusals(evs)))
	}
}

// TestHTTPEventStreamLineEnds: an upstream whose event stream ends lines
// with CR, CRLF or LF, or begins with a byte order mark, has its answer
// recorded, and the client gets the event re-serialised with LF line ends
// (before, the proxy split on LF only: a CR-only stream's answer reached
// the client, whose standard parser dispatches it, unrecorded).
func TestHTTPEventStreamLineEnds(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"forty-two"}]}}`
	for name, stream := range map[string]string{
		"cr":    ": keep-alive\rid: e1\revent: message\rdata: " + answer + "\r\r",
		"crlf":  ": keep-alive\r\nid: e1\r\nevent: message\r\ndata: " + answer + "\r\n\r\n",
		"bom":   "\uFEFFid: e1\ndata: " + answer + "\n\n",
		"split": "id: e1\ndata: " + answer[:17] + "\ndata:" + answer[17:] + "\n\n", // joined by LF, JSON whitespace
	} {
		t.Run(name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, stream)
			}))
			defer up.Close()
			url, logDir, stop := httpProxyWith(t, up.URL, nil)
			resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"answer","arguments":{}}}`))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := "id: e1\nevent: message\ndata: " + answer + "\n\n"; string(b) != want {
				t.Errorf("the client got %q, want %q", b, want)
			}
			stop()
			ps := calls(t, logEvents(t, logDir))
			if len(ps) != 1 || ps[0].exec.Payload.Ext[mcpproxy.ExtOutcome] != "ok" || recordedOutput(ps[0].exec) != "forty-two" ||
				ps[0].exec.Payload.Execution.Status != format.StatusOK {
				t.Fatalf("recorded calls %+v, want the answer", ps)
			}
		})
	}
}
