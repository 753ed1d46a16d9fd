package otlp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
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
	r := newReceiver(t, otlp.Options{Token: "4f7c0ffee"}, recorder.SyncGroup)
	stdout := runNode(t, "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%204f7c0ffee", "testdata/genai-export.cjs", r.url())
	var ids struct{ Trace, Agent, Chat, Tool, Broken string }
	if err := json.Unmarshal(stdout, &ids); err != nil {
		t.Fatalf("exporter output %q: %v", stdout, err)
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

// runNode runs a script of testdata with node and the npm OpenTelemetry
// packages (installed by make setup), with env added to the environment,
// and returns its standard output. It skips the test when they are absent.
func runNode(t *testing.T, env, script string, args ...string) []byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the real OTLP exporter cannot run (install Node.js and run make setup)")
	}
	if _, err := os.Stat("../node_modules/@opentelemetry/exporter-trace-otlp-http/package.json"); err != nil {
		t.Skip("the npm OpenTelemetry packages are not installed (run make setup): ", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), env)
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	return stdout.Bytes()
}

// TestNodeLinksAnyOrder: the JS SDK exports four chat calls of two tool
// calls each under one agent (twelve parent links), once with its
// SimpleSpanProcessor (each span as it ends: children first, one request
// each) and once with its BatchSpanProcessor (one request). In both logs
// every link resolves to the parent span's event as readers resolve links
// (verifier.Index: by seq, and by id within the run for a child recorded
// before its parent); resource attributes and span links are kept.
func TestNodeLinksAnyOrder(t *testing.T) {
	for _, mode := range []string{"simple", "batch"} {
		t.Run(mode, func(t *testing.T) {
			r := newReceiver(t, otlp.Options{}, recorder.SyncGroup)
			var out struct {
				Trace string
				Spans map[string]string // span id → parent span id
			}
			if err := json.Unmarshal(runNode(t, "", "testdata/links-export.cjs", r.url(), mode), &out); err != nil {
				t.Fatal(err)
			}
			evs := r.events(t)
			if len(evs) != 13 || len(out.Spans) != 13 {
				t.Fatalf("%d events of %d spans, want 13", len(evs), len(out.Spans))
			}
			bySpan := map[string]*verifier.Event{}
			for _, ev := range evs {
				bySpan[otelExt(t, ev)["span_id"].(string)] = ev
			}
			resolved, early := 0, 0
			for span, parent := range out.Spans {
				ev := bySpan[span]
				if ev == nil {
					t.Fatalf("span %s not recorded", span)
				}
				if res := otelExt(t, ev)["resource"].(map[string]any); ev.Envelope.Run != "links-agent" || res["service.version"] != "2.1.0" || res["host.name"] != "build-7" {
					t.Errorf("span %s: run %q, resource %v", span, ev.Envelope.Run, res)
				}
				links := causalLinks(t, r.dir, ev.Seq)
				if parent == "" {
					if len(links) != 0 {
						t.Errorf("root span %s has links %+v", span, links)
					}
					continue
				}
				want := bySpan[parent]
				if len(links) != 1 || links[0].Unresolved || links[0].From != want.Seq {
					t.Errorf("span %s: links %+v, want one from %d (span %s)", span, links, want.Seq, parent)
					continue
				}
				resolved++
				if want.Seq > ev.Seq {
					early++
				}
			}
			if resolved != 12 {
				t.Errorf("%d of 12 links resolved", resolved)
			}
			// Simple: every child arrived before its parent; batch: none did.
			if wantEarly := map[string]int{"simple": 12, "batch": 0}[mode]; early != wantEarly {
				t.Errorf("%d children recorded before their parents, want %d", early, wantEarly)
			}
			chats := 0
			for _, ev := range evs {
				links, _ := otelExt(t, ev)["links"].([]any)
				if ev.Envelope.Kind != format.KindResponse {
					continue
				}
				chats++
				if ev.Payload.Content == nil || !strings.HasPrefix(ev.Payload.Content.Text, "step ") {
					t.Errorf("chat %d: content %+v", ev.Seq, ev.Payload.Content)
				}
				if n := len(links); (ev.Payload.Content.Text == "step 0") != (n == 0) {
					t.Errorf("chat %q: %d span links, want 1 after the first step", ev.Payload.Content.Text, n)
				}
			}
			if chats != 4 {
				t.Errorf("%d response events, want 4", chats)
			}
		})
	}
}
