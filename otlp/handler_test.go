package otlp_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// byTool indexes events by their tool, failing on duplicates.
func byTool(t *testing.T, evs []*verifier.Event) map[string]*verifier.Event {
	t.Helper()
	m := map[string]*verifier.Event{}
	for _, ev := range evs {
		if _, dup := m[ev.Envelope.Tool]; dup {
			t.Fatalf("two events with tool %q", ev.Envelope.Tool)
		}
		m[ev.Envelope.Tool] = ev
	}
	return m
}

func otelExt(t *testing.T, ev *verifier.Event) map[string]any {
	t.Helper()
	m, ok := ev.Payload.Ext["otel"].(map[string]any)
	if !ok {
		t.Fatalf("event %d (%s) has no ext otel: %v", ev.Seq, ev.Envelope.Tool, ev.Payload.Ext)
	}
	return m
}

func parents(ev *verifier.Event) []uint64 {
	if ev.Payload.Context == nil {
		return nil
	}
	return ev.Payload.Context.Parents
}

// export posts body and returns the partial success of the 200 answer.
func export(t *testing.T, url, contentType string, body []byte) ptraceotlp.ExportPartialSuccess {
	t.Helper()
	return exportEncoded(t, url, contentType, "", body)
}

// exportEncoded is export with a content encoding.
func exportEncoded(t *testing.T, url, contentType, contentEncoding string, body []byte) ptraceotlp.ExportPartialSuccess {
	t.Helper()
	code, body := post(t, url, contentType, contentEncoding, body)
	json := contentType == "application/json"
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	resp := ptraceotlp.NewExportResponse()
	var err error
	if json {
		err = resp.UnmarshalJSON(body)
	} else {
		err = resp.UnmarshalProto(body)
	}
	if err != nil {
		t.Fatalf("response does not decode: %v (%q)", err, body)
	}
	return resp.PartialSuccess()
}

// TestGenAISpans: the same spans as protobuf and as JSON become the same
// events: kinds, tools, arguments, results, failures, durations, parents.
func TestGenAISpans(t *testing.T) {
	for _, enc := range []string{"application/x-protobuf", "application/json"} {
		t.Run(enc, func(t *testing.T) {
			r := newReceiver(t, otlp.Options{KeepUnknown: true}, recorder.SyncGroup)
			body := protoBody(t, genAITraces())
			if enc == "application/json" {
				body = jsonBody(t, genAITraces())
			}
			ps := export(t, r.url(), enc, body)
			if ps.RejectedSpans() != 0 || ps.ErrorMessage() != "" {
				t.Fatalf("partial success %d %q", ps.RejectedSpans(), ps.ErrorMessage())
			}
			evs := byTool(t, r.events(t))
			if len(evs) != 5 {
				t.Fatalf("%d events, want 5: %v", len(evs), slices.Collect(mapsKeys(evs)))
			}
			agent, chat, tool, broken, other := evs["invoke_agent planner"], evs["chat gpt-4o"], evs["read_file"], evs["delete_file"], evs["GET /index.html"]
			for name, ev := range map[string]*verifier.Event{"agent": agent, "chat": chat, "tool": tool, "broken": broken, "other": other} {
				if ev == nil {
					t.Fatalf("no %s event among %v", name, slices.Collect(mapsKeys(evs)))
				}
			}
			// Kinds.
			for ev, want := range map[*verifier.Event]format.Kind{agent: format.KindObservation, chat: format.KindResponse, tool: format.KindToolCall, broken: format.KindToolCall, other: format.KindObservation} {
				if ev.Envelope.Kind != want {
					t.Errorf("%s: kind %s, want %s", ev.Envelope.Tool, ev.Envelope.Kind, want)
				}
			}
			// Parents: each span's parent was recorded first, in the same request.
			if p := parents(agent); len(p) != 0 {
				t.Errorf("agent has parents %v", p)
			}
			for ev, parent := range map[*verifier.Event]*verifier.Event{chat: agent, tool: chat, broken: chat, other: agent} {
				if p := parents(ev); !slices.Equal(p, []uint64{parent.Seq}) || parent.Seq >= ev.Seq {
					t.Errorf("%s: parents %v, want [%d] (%s)", ev.Envelope.Tool, p, parent.Seq, parent.Envelope.Tool)
				}
			}
			// Run, id and event time: the service, the span's ids, its start.
			for _, ev := range []*verifier.Event{agent, chat, tool, broken, other} {
				o := otelExt(t, ev)
				if e := ev.Envelope; e.Run != "go-agent" || e.ID != o["trace_id"].(string)+"-"+o["span_id"].(string) || e.EventTime != ev.Payload.Execution.Start {
					t.Errorf("%s: run %q id %q event_time %d, want go-agent, trace-span, the span's start", e.Tool, e.Run, e.ID, e.EventTime)
				}
				if r := o["resource"].(map[string]any); r["deployment.environment.name"] != "test" || r["service.name"] != nil {
					t.Errorf("%s: resource %v, want the attributes but service.name", ev.Envelope.Tool, r)
				}
			}
			// The tool call: intent with structured arguments, result, duration.
			in := tool.Payload.Intent
			if in == nil || in.Tool != "read_file" || in.Args["path"] != "/etc/hosts" || fmt.Sprint(in.Args["limit"]) != "10" {
				t.Errorf("tool intent %+v", in)
			}
			if g, _ := tool.Payload.Ext["gen_ai"].(map[string]any); g["tool_result"] != nil || g["tool_call_id"] != "call_1" || g["operation"] != "execute_tool" {
				t.Errorf("tool ext gen_ai %v", g)
			}
			x := tool.Payload.Execution
			if x == nil || x.Status != format.StatusOK || time.Duration(x.End-x.Start) != time.Second || x.Start != t0.Add(3*time.Second).UnixNano() || x.Output == nil || x.Output.Text != "127.0.0.1 localhost" {
				t.Errorf("tool execution %+v", x)
			}
			o := otelExt(t, tool)
			if o["trace_id"] != traceID.String() || o["span_id"] != toolSpan.String() || o["parent_span_id"] != chatSpan.String() || o["scope"] != "agent-sdk" {
				t.Errorf("tool ext otel %v", o)
			}
			links, _ := o["links"].([]any)
			if l, _ := links[0].(map[string]any); len(links) != 1 || l["trace_id"] != traceID.String() || l["span_id"] != otherSpan.String() || l["attributes"].(map[string]any)["reason"] != "retry" {
				t.Errorf("tool links %v", o["links"])
			}
			attrs, _ := o["attributes"].(map[string]any)
			if attrs["gen_ai.tool.call.id"] != nil || attrs["gen_ai.tool.call.arguments"] != nil || attrs["gen_ai.tool.call.result"] != nil {
				t.Errorf("tool attributes kept %v (arguments and result belong in intent and ext)", attrs)
			}
			// The failed tool call, with structured (not JSON-text) arguments.
			if bx := broken.Payload.Execution; bx == nil || bx.Status != format.StatusFailed || bx.Error != "permission denied" {
				t.Errorf("failed tool execution %+v", bx)
			}
			if broken.Payload.Intent == nil || broken.Payload.Intent.Args["path"] != "/etc/passwd" {
				t.Errorf("failed tool intent %+v", broken.Payload.Intent)
			}
			// The chat call: model, usage (older prompt_tokens name), finish reasons, output text.
			g, _ := chat.Payload.Ext["gen_ai"].(map[string]any)
			if g["model"] != "gpt-4o" || fmt.Sprint(g["input_tokens"]) != "120" || fmt.Sprint(g["output_tokens"]) != "42" ||
				fmt.Sprint(g["finish_reasons"]) != "[tool_calls]" || g["output_text"] != nil {
				t.Errorf("chat ext gen_ai %v", g)
			}
			if c := chat.Payload.Content; c == nil || c.Text != "Reading the hosts file." {
				t.Errorf("chat content %+v", c)
			}
			if chat.Payload.Code == nil || chat.Payload.Code.ModelID != "gpt-4o" {
				t.Errorf("chat code %+v", chat.Payload.Code)
			}
			if o := otelExt(t, chat); o["kind"] != "client" {
				t.Errorf("chat span kind %v", o["kind"])
			}
			// The unknown span keeps its attributes.
			if a, _ := otelExt(t, other)["attributes"].(map[string]any); a["http.request.method"] != "GET" {
				t.Errorf("unknown span attributes %v", a)
			}
		})
	}
}

func mapsKeys(m map[string]*verifier.Event) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestUnknownSpansIgnored: without KeepUnknown a span of no GenAI
// operation is acknowledged (not rejected) and not recorded.
func TestUnknownSpansIgnored(t *testing.T) {
	r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
	ps := export(t, r.url(), "application/x-protobuf", protoBody(t, genAITraces()))
	if ps.RejectedSpans() != 0 {
		t.Fatalf("rejected %d: %s", ps.RejectedSpans(), ps.ErrorMessage())
	}
	evs := byTool(t, r.events(t))
	if len(evs) != 4 || evs["GET /index.html"] != nil {
		t.Fatalf("events %v, want the four GenAI spans", slices.Collect(mapsKeys(evs)))
	}
}

// TestParentsAcrossRequests: a child that arrives before its parent names
// it by id, and readers resolve the id once the parent is recorded; a
// child that arrives after its parent links to it by seq.
func TestParentsAcrossRequests(t *testing.T) {
	r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
	full := genAITraces()
	only := func(ids ...pcommon.SpanID) ptrace.Traces {
		td := ptrace.NewTraces()
		full.CopyTo(td)
		td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().RemoveIf(func(sp ptrace.Span) bool {
			return !slices.Contains(ids, sp.SpanID())
		})
		return td
	}
	for _, ids := range [][]pcommon.SpanID{{toolSpan}, {chatSpan, agentSpan}, {brokenSpan}} {
		ps := export(t, r.url(), "application/json", jsonBody(t, only(ids...)))
		if ps.RejectedSpans() != 0 {
			t.Fatalf("rejected %d: %s", ps.RejectedSpans(), ps.ErrorMessage())
		}
	}
	evs := byTool(t, r.events(t))
	tool, chat, broken := evs["read_file"], evs["chat gpt-4o"], evs["delete_file"]
	if p := parents(tool); len(p) != 0 || !slices.Equal(tool.Payload.Context.ParentIDs, []string{chat.Envelope.ID}) || chat.Seq < tool.Seq {
		t.Errorf("early child: parents %v, parent ids %v, want [%s]", p, tool.Payload.Context.ParentIDs, chat.Envelope.ID)
	}
	if links := causalLinks(t, r.dir, tool.Seq); len(links) != 1 || links[0].From != chat.Seq || links[0].Unresolved {
		t.Errorf("early child's causal links %+v, want one from %d", links, chat.Seq)
	}
	if p := parents(broken); !slices.Equal(p, []uint64{chat.Seq}) || len(broken.Payload.Context.ParentIDs) != 0 {
		t.Errorf("late child: parents %v (chat is %d), parent ids %v", p, chat.Seq, broken.Payload.Context.ParentIDs)
	}
}

// TestSpanMemoryBounded: past Options.SpanMemory recorded spans, the
// oldest is forgotten and its late child names it by id.
func TestSpanMemoryBounded(t *testing.T) {
	r := newReceiver(t, otlp.Options{SpanMemory: 2, KeepUnknown: true}, recorder.SyncGroup)
	send := func(id, parent pcommon.SpanID) {
		td := ptrace.NewTraces()
		sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(traceID)
		sp.SetSpanID(id)
		sp.SetParentSpanID(parent)
		sp.SetName(fmt.Sprintf("span %x", id[:2]))
		export(t, r.url(), "application/x-protobuf", protoBody(t, td))
	}
	a, b, c := pcommon.SpanID{1}, pcommon.SpanID{2}, pcommon.SpanID{3}
	send(a, pcommon.SpanID{})
	send(b, pcommon.SpanID{})
	send(c, pcommon.SpanID{}) // a is forgotten
	send(pcommon.SpanID{4}, a)
	send(pcommon.SpanID{5}, c)
	evs := r.events(t)
	if p := parents(evs[3]); len(p) != 0 || !slices.Equal(evs[3].Payload.Context.ParentIDs, []string{evs[0].Envelope.ID}) {
		t.Errorf("child of a forgotten span: parents %v, parent ids %v", p, evs[3].Payload.Context.ParentIDs)
	}
	if links := causalLinks(t, r.dir, 3); len(links) != 1 || links[0].From != 0 || links[0].Unresolved {
		t.Errorf("child of a forgotten span: causal links %+v, want one from 0", links)
	}
	if p := parents(evs[4]); !slices.Equal(p, []uint64{2}) {
		t.Errorf("child of a remembered span: parents %v, want [2]", p)
	}
}

// TestOlderLogRejects: a log of format version 2 cannot hold the version 3
// fields events made from spans carry, so its spans are rejected with the
// reason (not retried: 200 with partial_success) and nothing is recorded.
func TestOlderLogRejects(t *testing.T) {
	dir := t.TempDir()
	rec := logtest.Open(t, dir, recorder.Options{Recorder: "otlp-test", FormatVersion: 2})
	srv := httptest.NewServer(otlp.NewHandler(rec, otlp.Options{}))
	defer srv.Close()
	ps := export(t, srv.URL+otlp.TracesPath, "application/x-protobuf", protoBody(t, genAITraces()))
	if ps.RejectedSpans() != 4 || !strings.Contains(ps.ErrorMessage(), "version 3") {
		t.Errorf("partial success %d %q, want the four GenAI spans rejected for the log's version", ps.RejectedSpans(), ps.ErrorMessage())
	}
	if n := rec.Position(); n.Next != 0 {
		t.Errorf("position %+v, want nothing recorded", n)
	}
}

// TestModelTextForms: the model's output text lands in content (a
// response event) whichever form an instrumentation sends it in: message
// parts (v1.37), gen_ai.completion as an attribute or span event (before
// v1.28), or indexed gen_ai.completion.<n>.content attributes (OpenLLMetry),
// joined in index order, their roles left in the attributes.
func TestModelTextForms(t *testing.T) {
	forms := map[string]func(sp ptrace.Span){
		"messages": func(sp ptrace.Span) {
			sp.Attributes().PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"one"},{"type":"text","content":"two"}]}]`)
		},
		"attribute": func(sp ptrace.Span) { sp.Attributes().PutStr("gen_ai.completion", "one\ntwo") },
		"event": func(sp ptrace.Span) {
			sp.Events().AppendEmpty().SetName("gen_ai.content.completion")
			sp.Events().At(0).Attributes().PutStr("gen_ai.completion", "one\ntwo")
		},
		"indexed": func(sp ptrace.Span) {
			sp.Attributes().PutStr("gen_ai.completion.10.content", "two")
			sp.Attributes().PutStr("gen_ai.completion.2.content", "one")
			sp.Attributes().PutStr("gen_ai.completion.2.role", "assistant")
		},
	}
	r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	var names []string
	for name, put := range forms {
		sp := spans.AppendEmpty()
		sp.SetTraceID(traceID)
		sp.SetSpanID(pcommon.SpanID{byte(len(names) + 1)})
		sp.Attributes().PutStr("gen_ai.operation.name", "chat")
		sp.Attributes().PutStr("gen_ai.request.model", name)
		put(sp)
		names = append(names, name)
	}
	if ps := export(t, r.url(), "application/x-protobuf", protoBody(t, td)); ps.RejectedSpans() != 0 {
		t.Fatalf("rejected %d: %s", ps.RejectedSpans(), ps.ErrorMessage())
	}
	evs := r.events(t)
	if len(evs) != len(forms) {
		t.Fatalf("%d events, want %d", len(evs), len(forms))
	}
	for _, ev := range evs {
		attrs, _ := otelExt(t, ev)["attributes"].(map[string]any)
		if c := ev.Payload.Content; ev.Envelope.Kind != format.KindResponse || c == nil || c.Text != "one\ntwo" {
			t.Errorf("%s: kind %s content %+v, want a response of %q", ev.Envelope.Tool, ev.Envelope.Kind, c, "one\ntwo")
		}
		for k := range attrs {
			if strings.HasSuffix(k, ".content") || k == "gen_ai.completion" || k == "gen_ai.output.messages" {
				t.Errorf("%s: %s left in the attributes beside content", ev.Envelope.Tool, k)
			}
		}
		if ev.Envelope.Tool == "chat indexed" && attrs["gen_ai.completion.2.role"] != "assistant" {
			t.Errorf("indexed: attributes %v, want the role kept", attrs)
		}
	}
}
