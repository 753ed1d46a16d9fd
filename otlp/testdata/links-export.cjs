// Exports an agent invocation of four chat calls, each followed by two
// tool executions (twelve parent links), with the OpenTelemetry JS SDK's
// OTLP/HTTP exporter. Usage: node links-export.cjs URL simple|batch
// With "simple" a SimpleSpanProcessor exports each span as it ends, so
// children arrive first, each in its own request (the export of one span
// is awaited before the next span ends, so the order is the end order);
// with "batch" a BatchSpanProcessor sends them together at shutdown.
// Prints {"trace": id, "spans": {spanId: parentSpanId}} once the export is done.
'use strict';
const api = require('@opentelemetry/api');
const { TracerProvider, BatchSpanProcessor, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');

async function main() {
  const [url, mode] = process.argv.slice(2);
  if (!url || (mode !== 'simple' && mode !== 'batch')) throw new Error('usage: node links-export.cjs URL simple|batch');
  api.diag.setLogger(new api.DiagConsoleLogger(), api.DiagLogLevel.WARN);
  let failed = null;
  const exporter = new OTLPTraceExporter({ url });
  const exportOnce = exporter.export.bind(exporter);
  exporter.export = (spans, done) => exportOnce(spans, (res) => {
    if (res.code !== 0) failed = res.error || new Error('export failed');
    done(res);
  });
  const processor = mode === 'simple' ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'links-agent', 'service.version': '2.1.0', 'host.name': 'build-7' }),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer('links-export', '1.0.0');
  const under = (span) => api.trace.setSpan(api.ROOT_CONTEXT, span);
  const parents = {};
  const end = async (span, parent) => {
    span.end();
    parents[span.spanContext().spanId] = parent ? parent.spanContext().spanId : '';
    if (mode === 'simple') await provider.forceFlush();
  };

  const agent = tracer.startSpan('invoke_agent planner', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' },
  });
  let previous = null;
  for (let i = 0; i < 4; i++) {
    const chat = tracer.startSpan('chat gpt-4o', {
      kind: api.SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o',
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `step ${i}` }] }]),
      },
      links: previous ? [{ context: previous.spanContext(), attributes: { 'link.kind': 'previous_step' } }] : [],
    }, under(agent));
    for (let j = 0; j < 2; j++) {
      const tool = tracer.startSpan(`execute_tool read_file`, {
        attributes: {
          'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.id': `call_${i}_${j}`,
          'gen_ai.tool.call.arguments': JSON.stringify({ path: `/tmp/${i}-${j}` }),
          'gen_ai.tool.call.result': `contents of /tmp/${i}-${j}`,
        },
      }, under(chat));
      await end(tool, chat);
    }
    await end(chat, agent);
    previous = chat;
  }
  await end(agent, null);

  await provider.forceFlush();
  await provider.shutdown();
  if (failed) throw failed;
  process.stdout.write(JSON.stringify({ trace: agent.spanContext().traceId, spans: parents }) + '\n');
}

main().catch((err) => { console.error(err); process.exit(1); });
