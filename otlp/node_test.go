package otlp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/otlp"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// TestNodeExporter: the OpenTelemetry JS SDK's OTLP/HTTP exporter (npm
// @opentelemetry/exporter-trace-otlp-http, installed by make setup) sends
// an agent's GenAI spans to the receiver over loopback, with the
// receiver's bearer token given as OTEL_EXPORTER_OTLP_HEADERS; the log
// verifies and holds them as events linked as the spans were.
func TestNodeExporter(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the real OTLP exporter cannot run (install Node.js and run make setup)")
	}
	if _, err := os.Stat("../node_modules/@opentelemetry/exporter-trace-otlp-http/package.json"); err != nil {
		t.Skip("the npm OpenTelemetry packages are not installed (run make setup): ", err)
	}
	r := newReceiver(t, otlp.Options{Token: "4f7c0ffee"}, recorder.SyncGroup)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, "testdata/genai-export.cjs", r.url())
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%204f7c0ffee")
	if err := cmd.Run(); err != nil {
		t.Fatalf("node exporter: %v\n%s", err, stderr.String())
	}
	var ids struct{ Trace, Agent, Chat, Tool, Broken string }
	if err := json.Unmarshal(stdout.Bytes(), &ids); err != nil {
		t.Fatalf("exporter output %q: %v", stdout.String(), err)
	}
	evs := byTool(t, r.events(t))
	agent, chat, tool, broken := evs["invoke_agent planner"], evs["chat gpt-4o-2024-08-06"], evs["read_file"], evs["delete_file"]
	if len(evs) != 4 || agent == nil || chat == nil || tool == nil || broken == nil {
		t.Fatalf("events %v, want the agent, its chat and two tool calls", slices.Collect(mapsKeys(evs)))
	}
	for name, c := range map[string]struct {
		ev     *verifier.Event
		span   string
		kind   format.Kind
		parent *verifier.Event
	}{
		"agent":  {agent, ids.Agent, format.KindObservation, nil},
		"chat":   {chat, ids.Chat, format.KindResponse, agent},
		"tool":   {tool, ids.Tool, format.KindToolCall, agent},
		"broken": {broken, ids.Broken, format.KindToolCall, agent},
	} {
		o := otelExt(t, c.ev)
		if o["trace_id"] != ids.Trace || o["span_id"] != c.span || c.ev.Envelope.Run != "node-agent" {
			t.Errorf("%s: ext otel %v, want trace %s span %s", name, o, ids.Trace, c.span)
		}
		if c.ev.Envelope.Kind != c.kind {
			t.Errorf("%s: kind %s, want %s", name, c.ev.Envelope.Kind, c.kind)
		}
		var want []uint64
		if c.parent != nil {
			want = []uint64{c.parent.Seq}
		}
		if p := parents(c.ev); !slices.Equal(p, want) {
			t.Errorf("%s: parents %v, want %v", name, p, want)
		}
	}
	if in, x := tool.Payload.Intent, tool.Payload.Execution; in == nil || in.Args["path"] != "/etc/hosts" || x.Output == nil || x.Output.Text != "127.0.0.1 localhost" {
		t.Errorf("tool intent %+v, execution %+v", in, x)
	}
	if x := broken.Payload.Execution; x == nil || x.Status != format.StatusFailed || x.Error != "permission denied: /etc/passwd" || x.End <= x.Start {
		t.Errorf("failed tool execution %+v", x)
	}
	g, _ := chat.Payload.Ext["gen_ai"].(map[string]any)
	if c := chat.Payload.Content; c == nil || c.Text != "I will read the hosts file." || g["provider"] != "openai" {
		t.Errorf("chat content %+v, ext gen_ai %v", c, g)
	}
}
