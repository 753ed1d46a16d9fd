// Package otlp is AFR's OpenTelemetry receiver: an http.Handler for
// OTLP/HTTP trace exports (POST /v1/traces, protobuf or JSON, optionally
// gzip-compressed) that turns spans following the OpenTelemetry GenAI
// semantic conventions into events of a log.
//
// A span's gen_ai.operation.name chooses the event: execute_tool becomes a
// tool_call (the tool, its arguments as the intent, its result, status and
// duration as the execution); chat, text_completion, generate_content and
// embeddings become observations (model, token usage, finish reasons, the
// model's output text); invoke_agent, create_agent, invoke_workflow and
// retrieval become observations that give context. Spans without a GenAI
// operation are kept as context observations or ignored
// (Options.KeepUnknown). A span's parent, when it has been recorded,
// becomes the event's context parent; trace id, span id and parent span id
// are always kept in the payload's ext "otel" (docs/OTEL.md has the table).
//
// The handler answers as the OTLP/HTTP specification says, and only once
// every event of the request is durable in the recorder.EventWriter: 200 with an
// ExportTraceServiceResponse (partial_success counts the spans that could
// not become events, with the reason), 400 for a body that does not
// decode, 413 for one over Options.MaxBodyBytes (compressed or not), 415
// for another content type or encoding, 503 when the sink fails; 401 for a
// request without Options.Token when one is set, and 403 for what a web
// page could send (another host named on a loopback address, a cross-origin
// browser request). Nothing a client sends makes it panic.
//
// Bodies are decoded with go.opentelemetry.io/collector/pdata, the
// OpenTelemetry Collector's own OTLP data model, so the protobuf and the
// OTLP-specific JSON encoding (hex ids, string 64-bit integers, enum
// numbers) are read exactly as the Collector reads them.
//
// Files: handler.go (HTTP: content types, limits, responses), record.go
// (one request's spans into events, parents first, and the bounded map of
// recorded spans), span.go (the mapping of one span), value.go (attribute
// values as ext values).
package otlp
