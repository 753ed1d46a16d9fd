package serve_test

import (
	"context"
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

// The daemon mounts the OTLP receiver on its own address: a GenAI
// execute_tool span sent there and an event appended through the API go
// into the one log, which verifies after shutdown.
func TestDaemonReceivesOTLP(t *testing.T) {
	dir := t.TempDir()
	d := start(t, serve.Config{Dir: dir, OTLP: &serve.OTLP{Listen: "127.0.0.1:0", Options: otlp.Options{KeepUnknown: true}}})
	if d.OTLPAddr() == nil {
		t.Fatal("no OTLP address")
	}
	span := `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",` +
		`"name":"execute_tool read_file","kind":1,"startTimeUnixNano":"1000","endTimeUnixNano":"2000","attributes":[` +
		`{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"read_file"}}]}]}]}]}`
	resp, err := http.Post("http://"+d.OTLPAddr().String()+"/v1/traces", "application/json", strings.NewReader(span))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("OTLP export: HTTP %d", resp.StatusCode)
	}
	c := newClient(t, d)
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
