package hook_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/hook"
)

// payloads are the recorded payloads of testdata (README.md there).
func payloads(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no payloads in testdata: %v", err)
	}
	m := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[f] = b
	}
	return m
}

// accepted checks that the daemon's own parser takes ev as the event JSON
// a writer sends.
func accepted(t *testing.T, name string, ev format.Event) {
	t.Helper()
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if _, err := format.ParseEventJSON(b); err != nil {
		t.Errorf("%s: the event is refused: %v\n%s", name, err, b)
	}
}

func TestParseRecordedPayloads(t *testing.T) {
	for name, b := range payloads(t) {
		ev, agent, err := hook.Parse(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if want := hook.Agent(filepath.Base(filepath.Dir(name))); agent != want {
			t.Errorf("%s: agent %q, want %q", name, agent, want)
		}
		if ev.Payload.Ext["hook"].(map[string]any)["agent"] != string(agent) {
			t.Errorf("%s: ext %v does not name the agent", name, ev.Payload.Ext)
		}
		accepted(t, name, ev)
	}
}

func TestParseGeminiTimestamp(t *testing.T) {
	ev, _, err := hook.Parse(payloads(t)[filepath.Join("testdata", "gemini-cli", "after-tool-shell.json")])
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 1, 15, 10, 30, 4, 250e6, time.UTC).UnixNano(); ev.EventTime != want {
		t.Errorf("event_time %d, want %d", ev.EventTime, want)
	}
}

func TestParseToolCalls(t *testing.T) {
	for _, tc := range []struct {
		name, payload string
		args          map[string]any
		status        format.Status
		output, error string
	}{
		{"tool_input not an object", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"T","tool_input":"ls","tool_use_id":"u"}`,
			map[string]any{"input": "ls"}, 0, "", ""},
		{"integers stay integers", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"timeout":120000,"big":18446744073709551615}}`,
			map[string]any{"timeout": uint64(120000), "big": uint64(18446744073709551615)}, 0, "", ""},
		{"a string tool_response", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"T","tool_response":"done"}`,
			nil, format.StatusOK, "done", ""},
		{"a Gemini error as a string", `{"session_id":"s","hook_event_name":"AfterTool","tool_name":"T","tool_response":{"llmContent":"x","error":"boom"}}`,
			nil, format.StatusFailed, "x", "boom"},
		{"a failure without an error", `{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"T"}`,
			nil, format.StatusFailed, "", "the tool failed (the payload gives no error)"},
	} {
		ev, _, err := hook.Parse([]byte(tc.payload))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		accepted(t, tc.name, ev)
		p := ev.Payload
		if tc.args != nil {
			if got, _ := json.Marshal(p.Intent.Args); string(got) != mustJSON(tc.args) {
				t.Errorf("%s: args %s, want %s", tc.name, got, mustJSON(tc.args))
			}
			continue
		}
		ex := p.Execution
		var out string
		if ex.Output != nil {
			out = ex.Output.Text
		}
		if ex.Status != tc.status || out != tc.output || ex.Error != tc.error {
			t.Errorf("%s: %v %q %q, want %v %q %q", tc.name, ex.Status, out, ex.Error, tc.status, tc.output, tc.error)
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ payload, err string }{
		{`[]`, "hook: the payload"},
		{`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"A","tool_name":"B"}`, "duplicate"},
		{`{"hook_event_name":"PreToolUse","session_id":"s","Tool_Name":"A","tool_name":"B"}`, "tool_name"},
		{`{"session_id":"s"}`, "no hook_event_name"},
		{`{"session_id":"s","hook_event_name":"SessionStart"}`, `"SessionStart" is not recorded`},
		{`{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, "no session_id"},
		{`{"hook_event_name":"PreToolUse","session_id":"s"}`, "no tool_name"},
		{`{"hook_event_name":"BeforeTool","session_id":"s","tool_name":"t","timestamp":"yesterday"}`, "not an ISO 8601 time"},
		{`{"hook_event_name":"BeforeTool","session_id":"s","tool_name":"t","tool_input":{"n":1e999}}`, "tool_input"},
		{`{"hook_event_name":"UserPromptSubmit","session_id":"` + strings.Repeat("s", 257) + `"}`, "run is 257 bytes, limit 256"},
	} {
		if _, _, err := hook.Parse([]byte(tc.payload)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want one holding %q", tc.payload, err, tc.err)
		}
	}
}

// The hook before a Gemini CLI call and the hook after it derive the same
// id however the arguments' members are ordered; another tool or other
// arguments give another id.
func TestCallID(t *testing.T) {
	before := `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"t","tool_input":{"a":1,"b":"x"}}`
	after := `{"session_id":"s","hook_event_name":"AfterTool","tool_name":"t","tool_input":{"b":"x","a":1},"tool_response":{"llmContent":"ok"}}`
	in, _, err := hook.Parse([]byte(before))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := hook.Parse([]byte(after))
	if err != nil {
		t.Fatal(err)
	}
	if in.ID == "" || out.Payload.Context.ParentIDs[0] != in.ID {
		t.Errorf("intent id %q, outcome's parent ids %v", in.ID, out.Payload.Context.ParentIDs)
	}
	args := map[string]any{"a": uint64(1), "b": "x"}
	if hook.CallID("t", args) != in.ID || hook.CallID("u", args) == in.ID || hook.CallID("t", map[string]any{"a": uint64(2), "b": "x"}) == in.ID {
		t.Error("CallID does not tell calls apart by tool and arguments")
	}
}

func TestReply(t *testing.T) {
	if hook.ClaudeCode.Reply() != "" || hook.GeminiCLI.Reply() != "{}\n" {
		t.Errorf("replies %q, %q", hook.ClaudeCode.Reply(), hook.GeminiCLI.Reply())
	}
}

// FuzzParse: Parse never panics, and every event it returns is one the
// daemon accepts.
func FuzzParse(f *testing.F) {
	for _, b := range payloads(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, _, err := hook.Parse(b)
		if err != nil {
			return
		}
		accepted(t, "fuzzed payload", ev)
	})
}

// TestToolNames: a tool call's tool is its name in the importers'
// vocabulary and its intent keeps the agent's own name; a tool the
// vocabulary has no entry for (an MCP tool) is other, as on import.
func TestToolNames(t *testing.T) {
	for _, c := range []struct{ name, tool string }{
		{"Bash", "shell"}, {"run_shell_command", "shell"}, {"Edit", "file_edit"}, {"read_file", "file_read"},
		{"mcp__github__create_issue", "other"},
	} {
		e, _, err := hook.Parse([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"` + c.name + `","tool_input":{},"tool_use_id":"t1"}`))
		if err != nil {
			t.Fatal(err)
		}
		if e.Tool != c.tool || e.Payload.Intent == nil || e.Payload.Intent.Tool != c.name {
			t.Errorf("%s: tool %q, intent %+v; want tool %q and intent.tool %q", c.name, e.Tool, e.Payload.Intent, c.tool, c.name)
		}
	}
}
