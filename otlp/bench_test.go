package otlp_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// batchTraces is one export of an agent turn: an invoke_agent root, a
// chat call and n-2 tool calls under it, with arguments and results.
func batchTraces(turn, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "bench-agent")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	trace := pcommon.TraceID{byte(turn >> 24), byte(turn >> 16), byte(turn >> 8), byte(turn), 1}
	root := pcommon.SpanID{0xa, byte(turn >> 8), byte(turn)}
	for i := range n {
		sp := spans.AppendEmpty()
		sp.SetTraceID(trace)
		sp.SetSpanID(pcommon.SpanID{1, byte(i >> 8), byte(i), byte(turn >> 8), byte(turn)})
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(t0.Add(time.Duration(i) * time.Millisecond)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(t0.Add(time.Duration(i+1) * time.Millisecond)))
		a := sp.Attributes()
		switch i {
		case 0:
			sp.SetSpanID(root)
			sp.SetName("invoke_agent planner")
			a.PutStr("gen_ai.operation.name", "invoke_agent")
			a.PutStr("gen_ai.agent.name", "planner")
		case 1:
			sp.SetParentSpanID(root)
			sp.SetName("chat gpt-4o")
			a.PutStr("gen_ai.operation.name", "chat")
			a.PutStr("gen_ai.request.model", "gpt-4o")
			a.PutInt("gen_ai.usage.input_tokens", 1200)
			a.PutInt("gen_ai.usage.output_tokens", 300)
		default:
			sp.SetParentSpanID(root)
			sp.SetName("execute_tool read_file")
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "read_file")
			a.PutStr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", i))
			a.PutStr("gen_ai.tool.call.arguments", fmt.Sprintf(`{"path":"/src/file%d.go","limit":200}`, i))
			a.PutStr("gen_ai.tool.call.result", "package main\n\nfunc main() {}\n")
		}
	}
	return td
}

// BenchmarkReceiver: spans per second exported over loopback HTTP
// (protobuf, one request per agent turn of 100 spans) into a log with
// group durability, against recorder.Record of the same events in-process
// with the same concurrency (the root, then the rest at once), in the same
// run.
func BenchmarkReceiver(b *testing.B) {
	const spansPerRequest = 100
	b.Run("otlp-http", func(b *testing.B) {
		r := newReceiver(b, otlp.Options{}, recorder.SyncGroup)
		bodies := make([][]byte, 16)
		for i := range bodies {
			bodies[i] = protoBody(b, batchTraces(i, spansPerRequest))
		}
		b.ResetTimer()
		for i := range b.N {
			if code, out := post(b, r.url(), "application/x-protobuf", "", bodies[i%len(bodies)]); code != 200 {
				b.Fatalf("status %d: %s", code, out)
			}
		}
		b.ReportMetric(float64(b.N*spansPerRequest)/b.Elapsed().Seconds(), "spans/s")
	})
	b.Run("record-in-process", func(b *testing.B) {
		// The same events: recorded once through the receiver, read back.
		src := newReceiver(b, otlp.Options{}, recorder.SyncNone)
		post(b, src.url(), "application/x-protobuf", "", protoBody(b, batchTraces(0, spansPerRequest)))
		var evs []format.Event
		for _, ev := range src.events(b) {
			e := ev.Envelope
			evs = append(evs, format.Event{Tool: e.Tool, Kind: e.Kind, EventTime: e.EventTime, Run: e.Run, ID: e.ID, Payload: *ev.Payload})
		}
		rec := logtest.Open(b, b.TempDir(), recorder.Options{Recorder: "otlp-test", Sync: recorder.SyncGroup, EpochSize: 16})
		ctx := context.Background()
		b.ResetTimer()
		for range b.N {
			if _, err := rec.Record(ctx, evs[0]); err != nil {
				b.Fatal(err)
			}
			var wg sync.WaitGroup
			for _, ev := range evs[1:] {
				wg.Go(func() {
					if _, err := rec.Record(ctx, ev); err != nil {
						b.Error(err)
					}
				})
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.N*len(evs))/b.Elapsed().Seconds(), "spans/s")
	})
}
