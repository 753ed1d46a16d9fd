package otlp_test

import (
	"bytes"
	"math"
	"net/http/httptest"
	"testing"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// oddTraces is a fuzz seed: a span with bytes, text that is not UTF-8, a
// NaN and an empty array among its attributes.
func oddTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(traceID)
	sp.SetSpanID(pcommon.SpanID{9})
	sp.SetParentSpanID(pcommon.SpanID{9})
	sp.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
	sp.Attributes().PutEmptyBytes("gen_ai.tool.call.result").FromRaw([]byte{0xff, 0xfe})
	sp.Attributes().PutStr("gen_ai.tool.call.arguments", "\xff{")
	sp.Attributes().PutDouble("nan", math.NaN())
	sp.Attributes().PutEmptySlice("empty")
	ev := sp.Events().AppendEmpty()
	ev.SetName("gen_ai.tool.message")
	ev.Attributes().PutInt("content", 7)
	return td
}

// repeatedSpans counts the spans whose own attribute list holds a key
// twice, exactly as sent.
func repeatedSpans(td ptrace.Traces) int64 {
	var n int64
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		sss := rss.At(i).ScopeSpans()
		for j := range sss.Len() {
			spans := sss.At(j).Spans()
			for k := range spans.Len() {
				seen := map[string]bool{}
				for key := range spans.At(k).Attributes().All() {
					if seen[key] {
						n++
						break
					}
					seen[key] = true
				}
			}
		}
	}
	return n
}

// FuzzTracesBody: no body makes the handler panic or answer other than 200
// (with a response that decodes) or 400; a 200 never reports more rejected
// spans than the request had, nor fewer than those repeating an attribute
// key.
func FuzzTracesBody(f *testing.F) {
	for _, td := range []ptrace.Traces{genAITraces(), oddTraces()} {
		f.Add(protoBody(f, td), false)
		f.Add(jsonBody(f, td), true)
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}`), true)
	f.Add([]byte{0x0a, 0x02, 0x12, 0x00}, false)
	repeated := genAITraces()
	repeated.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("gen_ai.tool.nam#", "delete_file")
	for _, b := range [][]byte{protoBody(f, repeated), jsonBody(f, repeated)} {
		f.Add(bytes.ReplaceAll(b, []byte("gen_ai.tool.nam#"), []byte("gen_ai.tool.name")), b[0] == '{')
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","attributes":[{"key":"a","value":{"stringValue":"x"}},{"key":"a","value":{"intValue":"1"}}]}]}]}]}`), true)
	rec := logtest.Open(f, f.TempDir(), recorder.Options{Recorder: "fuzz", Sync: recorder.SyncNone})
	h := otlp.NewHandler(rec, otlp.Options{KeepUnknown: true, MaxBodyBytes: 1 << 20})
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		ctype := "application/x-protobuf"
		if asJSON {
			ctype = "application/json"
		}
		req := httptest.NewRequest("POST", otlp.TracesPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 400:
		case 200:
			in := ptraceotlp.NewExportRequest()
			var err error
			if asJSON {
				err = in.UnmarshalJSON(body)
			} else {
				err = in.UnmarshalProto(body)
			}
			if err != nil {
				t.Fatalf("200 for a body that does not decode: %v", err)
			}
			resp := ptraceotlp.NewExportResponse()
			if asJSON {
				err = resp.UnmarshalJSON(w.Body.Bytes())
			} else {
				err = resp.UnmarshalProto(w.Body.Bytes())
			}
			if err != nil {
				t.Fatalf("response does not decode: %v", err)
			}
			if n := resp.PartialSuccess().RejectedSpans(); n < 0 || n > int64(in.Traces().SpanCount()) || n < repeatedSpans(in.Traces()) {
				t.Fatalf("%d rejected of %d spans, %d of which repeat an attribute key", n, in.Traces().SpanCount(), repeatedSpans(in.Traces()))
			}
		default:
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	})
}
