package otlp_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBadRequests: every malformed, oversized or unsupported request gets
// its documented status with a google.rpc.Status body naming the problem,
// records nothing, and leaves the receiver serving.
func TestBadRequests(t *testing.T) {
	const limit = 64 << 10
	r := newReceiver(t, otlp.Options{MaxBodyBytes: limit}, recorder.SyncGroup)
	valid := protoBody(t, genAITraces())
	bomb := gzipped(t, make([]byte, 64*limit)) // 4 MiB of zeros in a few KiB
	if len(bomb) >= limit {
		t.Fatalf("the bomb is %d bytes compressed, not under the limit", len(bomb))
	}
	cases := []struct {
		name, ctype, cenc string
		body              []byte
		code              int
		msg               string
	}{
		{"wrong content type", "text/plain", "", valid, 415, "content type"},
		{"no content type", "", "", valid, 415, "content type"},
		{"unknown encoding", "application/x-protobuf", "br", valid, 415, "content encoding"},
		{"malformed protobuf", "application/x-protobuf", "", []byte{0x0a, 0xff, 0xff, 0xff, 0x0f, 1, 2}, 400, "not an OTLP"},
		{"JSON sent as protobuf", "application/x-protobuf", "", jsonBody(t, genAITraces()), 400, "not an OTLP"},
		{"malformed JSON", "application/json", "", []byte(`{"resourceSpans": [{"scopeSpans": [`), 400, "not an OTLP"},
		{"JSON of the wrong shape", "application/json", "", []byte(`{"resourceSpans": {"a": 1}}`), 400, "not an OTLP"},
		// docs/SPEC.md, "Reading JSON": pdata's reader took one of two equal names.
		{"JSON with a name twice", "application/json", "", []byte(`{"resourceSpans":[],"resourceSpans":[]}`), 400, "not an OTLP"},
		{"JSON with case-folded names", "application/json", "", []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","TraceId":"eee19b7ec3c1b174a5b5b3b1a3a3a3a3","spanId":"eee19b7ec3c1b174","name":"x"}]}]}]}`), 400, "not an OTLP"},
		{"oversized", "application/x-protobuf", "", bytes.Repeat([]byte{0}, limit+1), 413, "over the limit"},
		{"gzip bomb", "application/x-protobuf", "gzip", bomb, 413, "over the limit"},
		{"not gzip", "application/x-protobuf", "gzip", valid, 400, "gzip"},
		{"truncated gzip", "application/json", "gzip", gzipped(t, jsonBody(t, genAITraces()))[:40], 400, "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := post(t, r.url(), c.ctype, c.cenc, c.body)
			if code != c.code {
				t.Fatalf("status %d, want %d: %s", code, c.code, body)
			}
			st := &status.Status{}
			var err error
			if c.ctype != "application/x-protobuf" {
				err = protojson.Unmarshal(body, st)
			} else {
				err = proto.Unmarshal(body, st)
			}
			if err != nil || !strings.Contains(st.Message, c.msg) {
				t.Fatalf("body %q (%v): want a Status naming %q", body, err, c.msg)
			}
		})
	}
	resp, err := http.Get(r.url())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET: status %d, want 405", resp.StatusCode)
	}
	// Still serving: a gzipped valid request is recorded, and only it.
	ps := exportEncoded(t, r.url(), "application/x-protobuf", "gzip", gzipped(t, valid))
	if ps.RejectedSpans() != 0 {
		t.Fatalf("rejected %d", ps.RejectedSpans())
	}
	if evs := r.events(t); len(evs) != 4 {
		t.Fatalf("%d events, want the 4 of the one valid request", len(evs))
	}
}

// TestRejectedSpans: spans that cannot become events are counted in
// partial_success with the reason; the others of the request are recorded.
func TestRejectedSpans(t *testing.T) {
	r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
	td := genAITraces()
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	deep := spans.AppendEmpty() // attributes nested past the payload's nesting limit
	deep.SetTraceID(traceID)
	deep.SetSpanID(pcommon.SpanID{0xd})
	deep.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
	deep.Attributes().PutStr("gen_ai.tool.name", "deep")
	m := deep.Attributes().PutEmptyMap("gen_ai.tool.call.arguments")
	for range 40 {
		m = m.PutEmptyMap("x")
	}
	noID := spans.AppendEmpty()
	noID.SetTraceID(traceID)
	noID.SetName("no span id")
	ps := export(t, r.url(), "application/json", jsonBody(t, td))
	if ps.RejectedSpans() != 2 || !strings.Contains(ps.ErrorMessage(), "nested 17 levels deep") || !strings.Contains(ps.ErrorMessage(), "empty trace or span id") {
		t.Fatalf("partial success %d %q, want 2 naming the nesting depth and the missing id", ps.RejectedSpans(), ps.ErrorMessage())
	}
	if evs := r.events(t); len(evs) != 4 {
		t.Fatalf("%d events, want 4", len(evs))
	}
}

// TestSinkFailure: when the log refuses every event (here: it is closed),
// the answer is 503 with Retry-After, so the exporter retries later.
func TestSinkFailure(t *testing.T) {
	r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
	if err := r.rec.Close(); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, r.url(), bytes.NewReader(jsonBody(t, genAITraces())))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st map[string]any
	json.NewDecoder(resp.Body).Decode(&st)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(st["message"].(string), "closed") {
		t.Fatalf("status %d, Retry-After %q, body %v", resp.StatusCode, resp.Header.Get("Retry-After"), st)
	}
}
