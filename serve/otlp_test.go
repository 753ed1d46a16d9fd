package serve_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/serve"
	"github.com/agentflightrecorder/afr/verifier"
)

// The daemon mounts the OTLP receiver on its own address, behind the
// daemon's bearer token: a GenAI execute_tool span sent there without the
// token is refused, and one with it and an event appended through the API
// go into the one log, which verifies after shutdown.
func TestDaemonReceivesOTLP(t *testing.T) {
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir, OTLP: &serve.OTLP{Listen: "127.0.0.1:0", Options: otlp.Options{KeepUnknown: true}}})
	if d.OTLPAddr() == nil {
		t.Fatal("no OTLP address")
	}
	span := `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",` +
		`"name":"execute_tool read_file","kind":1,"startTimeUnixNano":"1000","endTimeUnixNano":"2000","attributes":[` +
		`{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"read_file"}}]}]}]}]}`
	otlpURL := "http://" + d.OTLPAddr().String() + "/v1/traces"
	resp, err := http.Post(otlpURL, "application/json", strings.NewReader(span))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("OTLP export without the token: HTTP %d, want 401", resp.StatusCode)
	}
	c := newClient(t, d)
	req, _ := http.NewRequest("POST", otlpURL, strings.NewReader(span))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+d.Token())
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("OTLP export: HTTP %d", resp.StatusCode)
	}
	if st, b := c.do("POST", "/v1/events", `{"tool":"shell","kind":"tool_call","payload":{"intent":{"tool":"shell","args":{"cmd":"ls"}}}}`); st != http.StatusOK {
		t.Fatalf("append: %d %s", st, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(as), verifier.Options{})
	if err != nil || rep.Verdict != verifier.Verified || rep.Events != 2 {
		t.Fatalf("verify: %v %+v", err, rep)
	}
	var tools []string
	if err := l.Records(func(_ uint64, raw []byte) error {
		e, err := format.DecodeEnvelope(raw)
		if err == nil {
			tools = append(tools, e.Tool)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(tools, ",") != "read_file,shell" {
		t.Fatalf("tools recorded: %v, want the span's read_file then the API's shell", tools)
	}
}

// An OTLP address that is not loopback needs AllowRemote, like the API's.
func TestDaemonOTLPLoopbackOnly(t *testing.T) {
	_, err := serve.Start(context.Background(), serve.Config{Dir: t.TempDir(), Recorder: recorder.Options{Recorder: "x"}, Listen: "127.0.0.1:0",
		OTLP: &serve.OTLP{Listen: "0.0.0.0:0"}})
	if err == nil || !strings.Contains(err.Error(), "OTLP receiver") {
		t.Fatalf("a non-loopback OTLP address: %v", err)
	}
}

// TestRefusesWebPages: both of the daemon's listeners refuse what a web
// page on the host could send, even with the right token: a DNS-rebinding
// request (the page's name in Host, same-origin for the browser) and a
// cross-origin POST. Nothing of them is recorded.
func TestRefusesWebPages(t *testing.T) {
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir, OTLP: &serve.OTLP{Listen: "127.0.0.1:0"}})
	for _, l := range []struct{ name, addr, path, contentType, body string }{
		{"API", d.Addr().String(), "/v1/events", "application/json", event(0)},
		{"OTLP", d.OTLPAddr().String(), "/v1/traces", "application/json", `{"resourceSpans":[]}`},
	} {
		_, port, _ := strings.Cut(l.addr, ":")
		for name, c := range map[string]struct {
			host   string
			header map[string]string
		}{
			"DNS rebinding": {"attacker.example:" + port, map[string]string{"Origin": "http://attacker.example:" + port, "Sec-Fetch-Site": "same-origin"}},
			"cross-origin":  {"", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
		} {
			req, _ := http.NewRequest("POST", "http://"+l.addr+l.path, strings.NewReader(l.body))
			req.Header.Set("Content-Type", l.contentType)
			req.Header.Set("Authorization", "Bearer "+d.Token())
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
				t.Errorf("%s, %s: %d %s, want 403", l.name, name, resp.StatusCode, b)
			}
		}
	}
	if p := d.Recorder().Position(); p.Next != 0 {
		t.Fatalf("%d events recorded, want none", p.Next)
	}
}
