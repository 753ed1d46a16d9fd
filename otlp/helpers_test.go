package otlp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// receiver is a handler recording into a real log on disk, served on
// loopback.
type receiver struct {
	dir string
	rec *recorder.Recorder
	srv *httptest.Server
}

func newReceiver(t testing.TB, opts otlp.Options, sync recorder.SyncPolicy) *receiver {
	t.Helper()
	dir := t.TempDir()
	rec := logtest.Open(t, dir, recorder.Options{Recorder: "otlp-test", Sync: sync, EpochSize: 16})
	srv := httptest.NewServer(otlp.NewHandler(rec, opts))
	t.Cleanup(srv.Close)
	return &receiver{dir: dir, rec: rec, srv: srv}
}

func (r *receiver) url() string { return r.srv.URL + otlp.TracesPath }

// post sends body and returns the status and response body.
func post(t testing.TB, url, contentType, contentEncoding string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if contentEncoding != "" {
		req.Header.Set("Content-Encoding", contentEncoding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// events closes the log, checks that it verifies against its own epoch
// headers, and returns its events by seq.
func (r *receiver) events(t testing.TB) []*verifier.Event {
	t.Helper()
	if err := r.rec.Close(); err != nil {
		t.Fatal(err)
	}
	return logtest.Events(t, r.dir)
}

// ids of the spans of genAITraces.
var (
	traceID    = pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	agentSpan  = pcommon.SpanID{0xa, 1}
	chatSpan   = pcommon.SpanID{0xc, 1}
	toolSpan   = pcommon.SpanID{0x7, 1}
	brokenSpan = pcommon.SpanID{0x7, 2}
	otherSpan  = pcommon.SpanID{0xe, 1}
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// genAITraces is an agent invocation with a chat call, a tool call, a
// failing tool call and a span of no GenAI operation, children listed
// before their parents (as batch exporters send spans that end first).
func genAITraces() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "go-agent")
	rs.Resource().Attributes().PutStr("deployment.environment.name", "test")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("agent-sdk")
	span := func(id, parent pcommon.SpanID, name string, start, end time.Duration) ptrace.Span {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(traceID)
		sp.SetSpanID(id)
		sp.SetParentSpanID(parent)
		sp.SetName(name)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(t0.Add(start)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(t0.Add(end)))
		return sp
	}
	tool := span(toolSpan, chatSpan, "execute_tool read_file", 3*time.Second, 4*time.Second)
	tool.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
	tool.Attributes().PutStr("gen_ai.tool.name", "read_file")
	tool.Attributes().PutStr("gen_ai.tool.call.id", "call_1")
	tool.Attributes().PutStr("gen_ai.tool.call.arguments", `{"path":"/etc/hosts","limit":10}`)
	tool.Attributes().PutStr("gen_ai.tool.call.result", "127.0.0.1 localhost")
	link := tool.Links().AppendEmpty()
	link.SetTraceID(traceID)
	link.SetSpanID(otherSpan)
	link.Attributes().PutStr("reason", "retry")

	broken := span(brokenSpan, chatSpan, "execute_tool delete_file", 4*time.Second, 5*time.Second)
	broken.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
	broken.Attributes().PutStr("gen_ai.tool.name", "delete_file")
	args := broken.Attributes().PutEmptyMap("gen_ai.tool.call.arguments")
	args.PutStr("path", "/etc/passwd")
	broken.Status().SetCode(ptrace.StatusCodeError)
	broken.Status().SetMessage("permission denied")

	chat := span(chatSpan, agentSpan, "chat gpt-4o", time.Second, 2*time.Second)
	chat.SetKind(ptrace.SpanKindClient)
	chat.Attributes().PutStr("gen_ai.operation.name", "chat")
	chat.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
	chat.Attributes().PutInt("gen_ai.usage.prompt_tokens", 120) // the older name
	chat.Attributes().PutInt("gen_ai.usage.output_tokens", 42)
	chat.Attributes().PutEmptySlice("gen_ai.response.finish_reasons").AppendEmpty().SetStr("tool_calls")
	chat.Attributes().PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"Reading the hosts file."}]}]`)

	agent := span(agentSpan, pcommon.SpanID{}, "invoke_agent planner", 0, 6*time.Second)
	agent.Attributes().PutStr("gen_ai.operation.name", "invoke_agent")
	agent.Attributes().PutStr("gen_ai.agent.name", "planner")

	other := span(otherSpan, agentSpan, "GET /index.html", 5*time.Second, 5*time.Second+time.Millisecond)
	other.Attributes().PutStr("http.request.method", "GET")
	return td
}

func protoBody(t testing.TB, td ptrace.Traces) []byte {
	t.Helper()
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonBody(t testing.TB, td ptrace.Traces) []byte {
	t.Helper()
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// causalLinks are the links into event seq as the log's readers resolve
// them (verifier.Index.CausalChain: by seq and by id within the run).
func causalLinks(t testing.TB, dir string, seq uint64) []verifier.Link {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := verifier.IndexLog(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, links, err := ix.CausalChain(seq)
	if err != nil {
		t.Fatal(err)
	}
	var into []verifier.Link
	for _, l := range links {
		if l.To == seq {
			into = append(into, l)
		}
	}
	return into
}
