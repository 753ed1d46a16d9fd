package otlp

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentflightrecorder/afr/format"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Ext keys of events made from spans (docs/OTEL.md).
const (
	extOTel  = "otel"   // the span: ids, name, kind, resource, scope, attributes, events, links
	extGenAI = "gen_ai" // the GenAI summary: operation, provider, model, usage, tool call id
)

// attrService is the resource attribute naming the service, which becomes
// the event's run.
const attrService = "service.name"

// GenAI attribute names, current and older (docs/OTEL.md lists where each
// comes from).
const (
	attrOperation      = "gen_ai.operation.name"
	attrToolName       = "gen_ai.tool.name"
	attrToolCallID     = "gen_ai.tool.call.id"
	attrToolArgs       = "gen_ai.tool.call.arguments"
	attrToolResult     = "gen_ai.tool.call.result"
	attrProvider       = "gen_ai.provider.name"
	attrSystem         = "gen_ai.system" // older name of gen_ai.provider.name
	attrRequestModel   = "gen_ai.request.model"
	attrResponseModel  = "gen_ai.response.model"
	attrInputTokens    = "gen_ai.usage.input_tokens"
	attrPromptTokens   = "gen_ai.usage.prompt_tokens" // older name of input_tokens
	attrOutputTokens   = "gen_ai.usage.output_tokens"
	attrComplTokens    = "gen_ai.usage.completion_tokens" // older name of output_tokens
	attrFinishReasons  = "gen_ai.response.finish_reasons"
	attrOutputMessages = "gen_ai.output.messages"
	attrCompletion     = "gen_ai.completion" // older: the output text, on the gen_ai.content.completion span event
	attrAgentName      = "gen_ai.agent.name"
	attrAgentID        = "gen_ai.agent.id"
	attrErrorType      = "error.type"

	eventToolMessage = "gen_ai.tool.message" // older: a tool's result (content) and call id (id)
	eventCompletion  = "gen_ai.content.completion"
	eventException   = "exception"
)

// operation classes.
const (
	opUnknown = iota
	opTool
	opModel
	opContext
)

var operations = map[string]int{
	"execute_tool": opTool,
	"chat":         opModel, "text_completion": opModel, "generate_content": opModel, "embeddings": opModel,
	"invoke_agent": opContext, "create_agent": opContext, "invoke_workflow": opContext, "retrieval": opContext,
}

// spanEvent maps one span to an event, without its parent link (record
// adds it). run is the resource's service.name and resource its other
// attributes. It reports false for an unknown span when unknown spans are
// not kept.
func spanEvent(sp ptrace.Span, run string, resource map[string]any, scope string, keepUnknown bool) (format.Event, bool) {
	attrs := clean(sp.Attributes().AsRaw()).(map[string]any)
	op, _ := attrs[attrOperation].(string)
	class := operations[op]
	if class == opUnknown && !keepUnknown {
		return format.Event{}, false
	}
	otel := map[string]any{
		"trace_id": sp.TraceID().String(),
		"span_id":  sp.SpanID().String(),
		"name":     clean(sp.Name()),
		"kind":     strings.ToLower(sp.Kind().String()),
	}
	if !sp.ParentSpanID().IsEmpty() {
		otel["parent_span_id"] = sp.ParentSpanID().String()
	}
	if len(resource) > 0 {
		otel["resource"] = resource
	}
	if scope != "" {
		otel["scope"] = clean(scope)
	}
	if links := spanLinks(sp.Links()); len(links) > 0 {
		otel["links"] = links
	}
	events := spanEvents(sp.Events())
	ev := format.Event{
		Kind:      format.KindObservation,
		EventTime: unixNano(sp.StartTimestamp()),
		Run:       truncate(clean(run).(string), format.MaxIDLength),
		ID:        eventID(sp.TraceID(), sp.SpanID()),
		Payload: format.Payload{
			Execution: execution(sp, attrs, events),
			Ext:       map[string]any{extOTel: otel},
		},
	}
	gen := map[string]any{}
	if op != "" {
		gen["operation"] = op
	}
	if p := first(attrs, attrProvider, attrSystem); p != nil {
		gen["provider"] = p
	}
	model, _ := first(attrs, attrResponseModel, attrRequestModel).(string)
	if model != "" {
		gen["model"] = model
		ev.Payload.Code = &format.CodeProvenance{ModelID: model}
	}
	switch class {
	case opTool:
		ev.Kind = format.KindToolCall
		ev.Tool = toolCall(&ev.Payload, gen, sp.Name(), attrs, events)
	case opModel:
		ev.Tool = joinName(op, model)
		usage(gen, attrs)
		if text, ok := outputText(attrs, events); ok {
			ev.Kind = format.KindResponse
			ev.Payload.Content = format.NewText([]byte(text))
		}
	case opContext:
		name, _ := first(attrs, attrAgentName, attrAgentID).(string)
		ev.Tool = joinName(op, name)
	default:
		ev.Tool = cmp.Or(clean(sp.Name()).(string), "otel span")
	}
	ev.Tool = truncate(ev.Tool, format.MaxStringLength)
	if len(gen) > 0 {
		ev.Payload.Ext[extGenAI] = gen
	}
	if len(attrs) > 0 {
		otel["attributes"] = attrs
	}
	if len(events) > 0 {
		otel["events"] = events
	}
	return ev, true
}

// eventID is the event id of a span (docs/SPEC.md, "Links by id"): its
// trace and span ids in hex, as OTLP JSON writes them, since a span id is
// unique only within its trace.
func eventID(trace pcommon.TraceID, span pcommon.SpanID) string {
	return trace.String() + "-" + span.String()
}

// toolCall fills the intent (tool and arguments), the call id and the
// result (execution.output: the result as sent, a string as it is and a
// structured value as JSON) of an execute_tool span, consuming their attributes, and returns
// the tool name.
func toolCall(p *format.Payload, gen map[string]any, spanName string, attrs map[string]any, events []any) string {
	name, _ := attrs[attrToolName].(string)
	if name == "" {
		name = cmp.Or(strings.TrimSpace(strings.TrimPrefix(spanName, "execute_tool")), "execute_tool")
	}
	p.Intent = &format.Intent{Tool: name}
	if args, ok := attrs[attrToolArgs]; ok {
		delete(attrs, attrToolArgs)
		v, _ := structured(args)
		if m, ok := v.(map[string]any); ok {
			p.Intent.Args = m
		} else {
			p.Intent.Args = map[string]any{"arguments": v}
		}
	}
	result, ok := attrs[attrToolResult]
	delete(attrs, attrToolResult)
	if !ok { // older conventions: the result as a gen_ai.tool.message event
		for _, e := range events {
			e := e.(map[string]any)
			ea, _ := e["attributes"].(map[string]any)
			if e["name"] != eventToolMessage || ea == nil {
				continue
			}
			if result, ok = ea["content"]; ok {
				delete(ea, "content")
				if id, ok := ea["id"]; ok && attrs[attrToolCallID] == nil {
					attrs[attrToolCallID] = id
				}
				break
			}
		}
	}
	if id, ok := attrs[attrToolCallID]; ok {
		delete(attrs, attrToolCallID)
		gen["tool_call_id"] = id
	}
	if ok {
		_, raw := structured(result)
		p.Execution.Output = format.NewText(raw)
	}
	return name
}

// execution is the span's outcome: ok, or failed with the status message
// (else error.type, else the exception event's message), and its times.
func execution(sp ptrace.Span, attrs map[string]any, events []any) *format.Execution {
	x := &format.Execution{Status: format.StatusOK, Start: unixNano(sp.StartTimestamp()), End: unixNano(sp.EndTimestamp())}
	if sp.Status().Code() != ptrace.StatusCodeError {
		return x
	}
	x.Status = format.StatusFailed
	x.Error = clean(sp.Status().Message()).(string)
	if x.Error == "" {
		x.Error, _ = attrs[attrErrorType].(string)
	}
	for _, e := range events {
		e := e.(map[string]any)
		if ea, ok := e["attributes"].(map[string]any); ok && x.Error == "" && e["name"] == eventException {
			t, _ := ea["exception.type"].(string)
			m, _ := ea["exception.message"].(string)
			x.Error = strings.TrimPrefix(t+": "+m, ": ")
		}
	}
	x.Error = truncate(cmp.Or(x.Error, "span status error"), format.MaxStringLength)
	return x
}

// usage copies token counts (current and older names) and finish reasons
// into the GenAI summary.
func usage(gen, attrs map[string]any) {
	if v := first(attrs, attrInputTokens, attrPromptTokens); v != nil {
		gen["input_tokens"] = v
	}
	if v := first(attrs, attrOutputTokens, attrComplTokens); v != nil {
		gen["output_tokens"] = v
	}
	if v, ok := attrs[attrFinishReasons]; ok {
		gen["finish_reasons"] = v
	}
}

// outputText is the model's output text: the text parts of
// gen_ai.output.messages (consumed when text is all they hold), else the
// older gen_ai.completion attribute, its indexed form or span event.
func outputText(attrs map[string]any, events []any) (string, bool) {
	if msgs, ok := attrs[attrOutputMessages]; ok {
		v, _ := structured(msgs)
		text, all := textParts(v)
		if all {
			delete(attrs, attrOutputMessages)
		}
		if text != "" {
			return text, true
		}
	}
	if s, ok := attrs[attrCompletion].(string); ok {
		delete(attrs, attrCompletion)
		return s, true
	}
	if s, ok := indexedCompletions(attrs); ok {
		return s, true
	}
	for _, e := range events {
		e := e.(map[string]any)
		if ea, ok := e["attributes"].(map[string]any); ok && e["name"] == eventCompletion {
			if s, ok := ea[attrCompletion].(string); ok {
				delete(ea, attrCompletion)
				return s, true
			}
		}
	}
	return "", false
}

// indexedCompletions joins, in index order, the gen_ai.completion.<n>.content
// attributes that instrumentations written before the conventions had
// message attributes send (OpenLLMetry: one per choice, beside .role and
// .finish_reason, which stay in the attributes), consuming them.
func indexedCompletions(attrs map[string]any) (string, bool) {
	texts := map[int]string{}
	for k, v := range attrs {
		n, ok := strings.CutPrefix(k, attrCompletion+".")
		n, ok2 := strings.CutSuffix(n, ".content")
		i, err := strconv.Atoi(n)
		s, isText := v.(string)
		if ok && ok2 && err == nil && i >= 0 && isText && strconv.Itoa(i) == n {
			texts[i] = s
		}
	}
	if len(texts) == 0 {
		return "", false
	}
	keys := slices.Sorted(maps.Keys(texts))
	out := make([]string, len(keys))
	for j, i := range keys {
		out[j] = texts[i]
		delete(attrs, attrCompletion+"."+strconv.Itoa(i)+".content")
	}
	return strings.Join(out, "\n"), true
}

// textParts joins the text parts of output messages ([{role, parts:
// [{type, content}]}]) and reports whether every part was text.
func textParts(v any) (string, bool) {
	msgs, ok := v.([]any)
	if !ok {
		return "", false
	}
	var texts []string
	all := true
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		parts, _ := m["parts"].([]any)
		for _, part := range parts {
			part, _ := part.(map[string]any)
			s, isText := part["content"].(string)
			if part["type"] != "text" || !isText {
				all = false
				continue
			}
			texts = append(texts, s)
		}
	}
	return strings.Join(texts, "\n"), all
}

// spanLinks are the span's links as ext values: the linked span's
// trace_id and span_id (hex) and the link's attributes.
func spanLinks(ls ptrace.SpanLinkSlice) []any {
	var out []any
	for i := range ls.Len() {
		l := ls.At(i)
		m := map[string]any{"trace_id": l.TraceID().String(), "span_id": l.SpanID().String()}
		if l.Attributes().Len() > 0 {
			m["attributes"] = clean(l.Attributes().AsRaw())
		}
		out = append(out, m)
	}
	return out
}

// spanEvents are the span's events as ext values: name, time, attributes.
func spanEvents(es ptrace.SpanEventSlice) []any {
	var out []any
	for i := range es.Len() {
		e := es.At(i)
		m := map[string]any{"name": clean(e.Name()), "time": unixNano(e.Timestamp())}
		if e.Attributes().Len() > 0 {
			m["attributes"] = clean(e.Attributes().AsRaw())
		}
		out = append(out, m)
	}
	return out
}

// first is the value of the first attribute present.
func first(attrs map[string]any, names ...string) any {
	for _, n := range names {
		if v, ok := attrs[n]; ok {
			return v
		}
	}
	return nil
}

// joinName is "operation name", the span name the conventions recommend.
func joinName(op, name string) string {
	return strings.TrimSpace(op + " " + name)
}

// unixNano is an OTLP timestamp as Unix nanoseconds (0 when absent or past
// the year 2262).
func unixNano(t pcommon.Timestamp) int64 {
	if uint64(t) > math.MaxInt64 {
		return 0
	}
	return int64(t)
}
