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
	"go.opentelemetry.io/collector/pdata/ptrace"
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
		{"JSON with a field under its two names", "application/json", "", []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","trace_id":"eee19b7ec3c1b174a5b5b3b1a3a3a3a3","spanId":"eee19b7ec3c1b174","name":"x"}]}]}]}`), 400, `keys "traceId" and "trace_id"`},
		{"JSON with two values of one AnyValue", "application/json", "", []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"x","attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"read_file","string_value":"delete_file"}}]}]}]}]}`), 400, `keys "stringValue" and "string_value"`},
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

// TestRepeatedAttributeKeys: a span whose attribute list repeats a key
// (OTLP keys MUST be unique) is rejected, naming the key, in protobuf and
// in JSON, at any depth, in span events and in the resource; before, the
// event held the last value (Map.AsRaw) while Map.Get readers, the
// resource's service.name among them, took the first, and keys equal once
// their bad UTF-8 was replaced kept one value at random.
func TestRepeatedAttributeKeys(t *testing.T) {
	td := ptrace.NewTraces()
	span := func(rs ptrace.ResourceSpans, id byte, tool string) ptrace.Span {
		if rs.ScopeSpans().Len() == 0 {
			rs.ScopeSpans().AppendEmpty()
		}
		sp := rs.ScopeSpans().At(0).Spans().AppendEmpty()
		sp.SetTraceID(traceID)
		sp.SetSpanID(pcommon.SpanID{0xf, id})
		sp.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
		sp.Attributes().PutStr("gen_ai.tool.name", tool)
		return sp
	}
	// Keys ending in "#" become, in the encoded body, the key before them:
	// pdata's API cannot make a repeated key, a decoder keeps one.
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "agent")
	span(rs, 1, "read_file").Attributes().PutStr("gen_ai.tool.nam#", "delete_file")
	args := span(rs, 2, "read_file").Attributes().PutEmptyMap("gen_ai.tool.call.arguments")
	args.PutStr("path", "a.txt")
	args.PutStr("pat#", "/etc/passwd")
	ea := span(rs, 3, "read_file").Events().AppendEmpty()
	ea.SetName("gen_ai.tool.message")
	ea.Attributes().PutStr("content", "ok")
	ea.Attributes().PutStr("conten#", "secret")
	span(rs, 4, "clean")
	other := td.ResourceSpans().AppendEmpty()
	other.Resource().Attributes().PutStr("service.name", "agent")
	other.Resource().Attributes().PutStr("service.nam#", "intruder")
	span(other, 5, "read_file")
	repeat := func(b []byte) []byte {
		for _, k := range []string{"gen_ai.tool.name", "path", "content", "service.name"} {
			b = bytes.ReplaceAll(b, []byte(k[:len(k)-1]+"#"), []byte(k))
		}
		return b
	}
	wantReasons := []string{
		`span 0f01000000000000 of trace 0102030405060708090a0b0c0d0e0f10: attribute key "gen_ai.tool.name" given twice`,
		`in attribute "gen_ai.tool.call.arguments": attribute key "path" given twice`,
		`span event 0 ("gen_ai.tool.message"): attribute key "content" given twice`,
		`resource: attribute key "service.name" given twice (OTLP attribute keys are unique)`,
	}
	for _, c := range []struct {
		ctype string
		body  []byte
	}{
		{"application/x-protobuf", repeat(protoBody(t, td))},
		{"application/json", repeat(jsonBody(t, td))},
	} {
		t.Run(c.ctype, func(t *testing.T) {
			r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
			ps := export(t, r.url(), c.ctype, c.body)
			if ps.RejectedSpans() != 4 {
				t.Errorf("rejected %d spans, want 4: %s", ps.RejectedSpans(), ps.ErrorMessage())
			}
			for _, want := range wantReasons {
				if !strings.Contains(ps.ErrorMessage(), want) {
					t.Errorf("partial success %q does not say %q", ps.ErrorMessage(), want)
				}
			}
			evs := r.events(t)
			if len(evs) != 1 || evs[0].Envelope.Tool != "clean" {
				t.Fatalf("%d events, want only the span without a repeated key", len(evs))
			}
		})
	}
	// Keys that differ only in bytes that are not UTF-8 (protobuf only:
	// such JSON is refused whole) are recorded as one key: rejected too.
	bad := ptrace.NewTraces()
	sp := span(bad.ResourceSpans().AppendEmpty(), 6, "read_file")
	sp.Attributes().PutStr("badkeyA", "x")
	sp.Attributes().PutStr("badkeyB", "y")
	span(bad.ResourceSpans().At(0), 7, "clean")
	body := bytes.Replace(protoBody(t, bad), []byte("badkeyA"), []byte("badkey\xff"), 1)
	body = bytes.Replace(body, []byte("badkeyB"), []byte("badkey\xfe"), 1)
	r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
	ps := export(t, r.url(), "application/x-protobuf", body)
	if ps.RejectedSpans() != 1 || !strings.Contains(ps.ErrorMessage(), "attribute key \"badkey\uFFFD\" given twice") {
		t.Fatalf("partial success %d %q, want the span rejected", ps.RejectedSpans(), ps.ErrorMessage())
	}
	if evs := r.events(t); len(evs) != 1 || evs[0].Envelope.Tool != "clean" {
		t.Fatalf("%d events, want only the span without a repeated key", len(evs))
	}
}
