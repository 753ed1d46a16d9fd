// Exports GenAI spans with the OpenTelemetry JS SDK's OTLP/HTTP exporter:
// an agent invocation whose chat call is followed by two tool executions,
// one of which fails. Usage: node genai-export.cjs URL
// Prints the span ids as JSON on standard output once the export is done.
'use strict';
const api = require('@opentelemetry/api');
const { TracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');

async function main() {
  const url = process.argv[2];
  if (!url) throw new Error('usage: node genai-export.cjs URL');
  api.diag.setLogger(new api.DiagConsoleLogger(), api.DiagLogLevel.WARN);
  let failed = null;
  const exporter = new OTLPTraceExporter({ url });
  const exportOnce = exporter.export.bind(exporter);
  exporter.export = (spans, done) => exportOnce(spans, (res) => {
    if (res.code !== 0) failed = res.error || new Error('export failed');
    done(res);
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'node-agent' }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('genai-export', '1.0.0');
  const under = (span) => api.trace.setSpan(api.ROOT_CONTEXT, span);

  const agent = tracer.startSpan('invoke_agent planner', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner', 'gen_ai.provider.name': 'openai' },
  });
  const chat = tracer.startSpan('chat gpt-4o', {
    kind: api.SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06', 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 42,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'I will read the hosts file.' }], finish_reason: 'tool_calls' }]),
    },
  }, under(agent));
  chat.end();
  const tool = tracer.startSpan('execute_tool read_file', {
    attributes: {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': JSON.stringify({ path: '/etc/hosts', limit: 10 }),
      'gen_ai.tool.call.result': '127.0.0.1 localhost',
    },
  }, under(agent));
  tool.end();
  const broken = tracer.startSpan('execute_tool delete_file', {
    attributes: {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'delete_file', 'gen_ai.tool.call.id': 'call_2',
      'gen_ai.tool.call.arguments': JSON.stringify({ path: '/etc/passwd' }),
    },
  }, under(agent));
  broken.recordException(new Error('permission denied'));
  broken.setStatus({ code: api.SpanStatusCode.ERROR, message: 'permission denied: /etc/passwd' });
  broken.end();
  agent.end();

  await provider.forceFlush();
  await provider.shutdown();
  if (failed) throw failed;
  const id = (s) => s.spanContext().spanId;
  process.stdout.write(JSON.stringify({
    trace: agent.spanContext().traceId, agent: id(agent), chat: id(chat), tool: id(tool), broken: id(broken),
  }) + '\n');
}

main().catch((err) => { console.error(err); process.exit(1); });
