package importer_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/verifier"
)

// The sessions of testdata/, written to the formats the coding-agent CLIs
// write: a user asks to fix a failing test; the agent runs the tests
// (exit 1), reads calc.py, edits it, runs the tests again (exit 0) and
// says what it did.
const (
	ccSession = "testdata/claude-code/3f1c2a9e-5b7d-4c21-9a0e-6d8b1f2e4a77.jsonl"
	cxSession = "testdata/codex/rollout-2025-06-12T10-02-11-0197a1b2-7c3d-7e4f-8a9b-1c2d3e4f5a6b.jsonl"
)

// wantEvent is an imported event as read back from the log.
type wantEvent struct {
	line         int // the line it came from
	tool, source string
	kind         format.Kind
	time         string // event_time, UTC
	content      string // its start ("" for none)
	args         map[string]any
	status       format.Status // "" for no execution
	exitCode     *int64
	output       string // its start
	end          string // execution.end: the result's time
	parents      []uint64
}

func code(c int64) *int64 { return &c }

// checkEvents compares the events read back from the log with want.
func checkEvents(t *testing.T, evs []*verifier.Event, run string, want []wantEvent) {
	t.Helper()
	if len(evs) != len(want) {
		t.Fatalf("%d events in the log, want %d", len(evs), len(want))
	}
	for i, w := range want {
		ev := evs[i]
		mark, _ := ev.Payload.Ext[importer.ExtKey].(map[string]any)
		when := time.Unix(0, ev.Envelope.EventTime).UTC().Format(time.RFC3339Nano)
		var content string
		if ev.Payload.Content != nil {
			content = ev.Payload.Content.Text
		}
		var parents []uint64
		if c := ev.Payload.Context; c != nil {
			parents = c.Parents
		}
		if ev.Envelope.Tool != w.tool || mark["tool"] != w.source || ev.Envelope.Kind != w.kind || when != w.time ||
			ev.Envelope.Run != run || mark["line"] != uint64(w.line) || !strings.HasPrefix(content, w.content) || (w.content == "") != (content == "") ||
			!reflect.DeepEqual(parents, w.parents) {
			t.Errorf("event %d: %s (%v) %s at %s in run %q from line %v, content %q, parents %v; want %s (%s) %s at %s from line %d, content %q…, parents %v",
				i, ev.Envelope.Tool, mark["tool"], ev.Envelope.Kind, when, ev.Envelope.Run, mark["line"], content, parents,
				w.tool, w.source, w.kind, w.time, w.line, w.content, w.parents)
		}
		if w.kind != format.KindToolCall {
			continue
		}
		if in := ev.Payload.Intent; in == nil || in.Tool != w.source || !reflect.DeepEqual(in.Args, w.args) {
			t.Errorf("event %d: intent %+v; want %s with %v", i, in, w.source, w.args)
		}
		x := ev.Payload.Execution
		if x == nil {
			t.Errorf("event %d: no execution", i)
			continue
		}
		end := time.Unix(0, x.End).UTC().Format(time.RFC3339Nano)
		if x.Status != w.status || !reflect.DeepEqual(x.ExitCode, w.exitCode) || x.Output == nil || !strings.HasPrefix(x.Output.Text, w.output) ||
			x.Start != ev.Envelope.EventTime || end != w.end {
			t.Errorf("event %d: execution %+v (exit code %v, output %+v, end %s); want %s, exit code %v, output %q…, from the call's time to %s",
				i, x, x.ExitCode, x.Output, end, w.status, w.exitCode, w.output, w.end)
		}
	}
}

// The Claude Code session, read back from the log it was imported into:
// the prompt, the model's thinking and text, four tool calls each with
// the tool_result answering it as outcome (the failed Bash with its exit
// code), each event linked to the one its entry's parentUuid names; the
// summary and the file-history snapshot are no events.
func TestClaudeCodeSession(t *testing.T) {
	f, err := importer.Read("claude-code", ccSession)
	if err != nil {
		t.Fatal(err)
	}
	const file = "/home/dev/calc/calc.py"
	tc := format.KindToolCall
	pytest := "python -m pytest -q test_calc.py"
	checkEvents(t, recordFile(t, f), "3f1c2a9e-5b7d-4c21-9a0e-6d8b1f2e4a77", []wantEvent{
		{line: 2, tool: "message", source: "user", kind: format.KindObservation, time: "2025-06-12T09:14:02.118Z", content: "The tests in test_calc.py fail."},
		{line: 3, tool: "message", source: "thinking", kind: format.KindReasoning, time: "2025-06-12T09:14:05.402Z", content: "The user wants the failing tests fixed.", parents: []uint64{0}},
		{line: 4, tool: "message", source: "assistant", kind: format.KindResponse, time: "2025-06-12T09:14:05.94Z", content: "I'll run the tests first", parents: []uint64{1}},
		{line: 5, tool: "shell", source: "Bash", kind: tc, time: "2025-06-12T09:14:06.311Z", parents: []uint64{2},
			args:   map[string]any{"command": pytest, "description": "Run the calc tests"},
			status: format.StatusFailed, exitCode: code(1), output: "Exit code 1\n.F\n", end: "2025-06-12T09:14:08.77Z"},
		// The Read's entry follows the Bash's result, which is the Bash's event.
		{line: 7, tool: "file_read", source: "Read", kind: tc, time: "2025-06-12T09:14:11.025Z", parents: []uint64{3},
			args:   map[string]any{"file_path": file},
			status: format.StatusOK, output: "     1\u2192def divide(a, b):", end: "2025-06-12T09:14:11.09Z"},
		{line: 9, tool: "file_edit", source: "Edit", kind: tc, time: "2025-06-12T09:14:15.61Z", parents: []uint64{4},
			args:   map[string]any{"file_path": file, "old_string": "    return a / b", "new_string": "    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b"},
			status: format.StatusOK, output: "The file /home/dev/calc/calc.py has been updated.", end: "2025-06-12T09:14:15.702Z"},
		{line: 12, tool: "shell", source: "Bash", kind: tc, time: "2025-06-12T09:14:18.2Z", parents: []uint64{5},
			args:   map[string]any{"command": pytest, "description": "Run the calc tests again"},
			status: format.StatusOK, output: "..\n2 passed", end: "2025-06-12T09:14:19.95Z"},
		{line: 14, tool: "message", source: "assistant", kind: format.KindResponse, time: "2025-06-12T09:14:22.48Z", content: "divide() now raises ValueError", parents: []uint64{6}},
	})
	if x := f.Events[3].Event.Payload.Execution; x.Error != "Exit code 1" {
		t.Errorf("the failed Bash: error %q, want its result's first line", x.Error)
	}
}

// The Codex rollout, read back from the log: the environment context and
// the prompt, the reasoning summary, four calls (shell three times, the
// failing one with exit code 1; apply_patch) each with the output its
// call_id names as outcome, and the model's answer; session_meta,
// turn_context and event_msg lines are no events.
func TestCodexRollout(t *testing.T) {
	f, err := importer.Read("codex", cxSession)
	if err != nil {
		t.Fatal(err)
	}
	tc := format.KindToolCall
	shell := func(cmd string) map[string]any {
		return map[string]any{"command": []any{"bash", "-lc", cmd}, "workdir": "/home/dev/calc"}
	}
	checkEvents(t, recordFile(t, f), "0197a1b2-7c3d-7e4f-8a9b-1c2d3e4f5a6b", []wantEvent{
		{line: 2, tool: "message", source: "user", kind: format.KindObservation, time: "2025-06-12T10:02:11.415Z", content: "<environment_context>"},
		{line: 3, tool: "message", source: "user", kind: format.KindObservation, time: "2025-06-12T10:02:14.027Z", content: "The tests in test_calc.py fail."},
		{line: 7, tool: "message", source: "reasoning", kind: format.KindReasoning, time: "2025-06-12T10:02:17.601Z", content: "**Running the tests"},
		{line: 8, tool: "shell", source: "shell", kind: tc, time: "2025-06-12T10:02:17.988Z", args: shell("python -m pytest -q test_calc.py"),
			status: format.StatusFailed, exitCode: code(1), output: "..F\n===", end: "2025-06-12T10:02:18.845Z"},
		{line: 11, tool: "shell", source: "shell", kind: tc, time: "2025-06-12T10:02:21.31Z", args: shell("sed -n '1,40p' calc.py"),
			status: format.StatusOK, exitCode: code(0), output: "def divide(a, b):\n    return a / b\n", end: "2025-06-12T10:02:21.405Z"},
		{line: 14, tool: "file_edit", source: "apply_patch", kind: tc, time: "2025-06-12T10:02:25.771Z",
			args:   map[string]any{"input": "*** Begin Patch\n*** Update File: calc.py\n@@\n def divide(a, b):\n-    return a / b\n+    if b == 0:\n+        raise ValueError(\"division by zero\")\n+    return a / b\n*** End Patch\n"},
			status: format.StatusOK, exitCode: code(0), output: "Success. Updated the following files:\nM calc.py\n", end: "2025-06-12T10:02:25.792Z"},
		{line: 17, tool: "shell", source: "shell", kind: tc, time: "2025-06-12T10:02:28.135Z", args: shell("python -m pytest -q test_calc.py"),
			status: format.StatusOK, exitCode: code(0), output: "..\n2 passed", end: "2025-06-12T10:02:28.954Z"},
		{line: 21, tool: "message", source: "assistant", kind: format.KindResponse, time: "2025-06-12T10:02:31.605Z", content: "divide() now raises ValueError"},
	})
}

// A call's output in each form Codex writes: JSON with metadata (the
// session above), text whose head gives the exit code (shell_command,
// exec_command), an object whose success is false, and text with no exit
// code, which then comes from the exec_command_end event; a body line
// that looks like a head gives none.
func TestCodexOutputs(t *testing.T) {
	call := `{"timestamp":"2025-10-01T08:00:00Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"make\"}","call_id":"c1"}}` + "\n"
	output := func(v string) string {
		return `{"timestamp":"2025-10-01T08:00:02Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` + v + `}}` + "\n"
	}
	end := `{"timestamp":"2025-10-01T08:00:01Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":7}}` + "\n"
	for _, tc := range []struct {
		name, body string
		status     format.Status
		exitCode   *int64
		output     string
	}{
		{"head", call + output(`"Exit code: 2\nWall time: 0.1 seconds\nOutput:\nmake: *** No rule to make target.\n"`), format.StatusFailed, code(2), "Exit code: 2\n"},
		{"unified exec", call + output(`"Chunk ID: 1a2b\nWall time: 0.2 seconds\nProcess exited with code 0\nOutput:\nok\n"`), format.StatusOK, code(0), "Chunk ID"},
		{"success false", call + output(`{"content":"sandbox denied","success":false}`), format.StatusFailed, nil, "sandbox denied"},
		{"exec end", call + end + output(`"built"`), format.StatusFailed, code(7), "built"},
		{"body only", call + output(`"first line\nExit code: 3\n"`), format.StatusOK, nil, "first line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "rollout.jsonl")
			write(t, p, tc.body)
			f, err := importer.Read("codex", p)
			if err != nil {
				t.Fatal(err)
			}
			x := f.Events[0].Event.Payload.Execution
			if len(f.Events) != 1 || f.Events[0].Event.Tool != "shell" || x == nil || x.Status != tc.status || !reflect.DeepEqual(x.ExitCode, tc.exitCode) ||
				!strings.HasPrefix(x.Output.Text, tc.output) {
				t.Fatalf("%d events, the first %s with execution %+v; want a shell call %s, exit code %v, output %q…", len(f.Events), f.Events[0].Event.Tool, x, tc.status, tc.exitCode, tc.output)
			}
		})
	}
}

// A local shell call (through the chat completions API: an id, no
// call_id) is a shell tool_call whose intent is its exec action, answered
// by the output naming that id.
func TestCodexLocalShell(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rollout.jsonl")
	write(t, p, `{"timestamp":"2025-06-12T09:00:00Z","type":"response_item","payload":{"type":"local_shell_call","id":"ls_1","call_id":null,"status":"completed","action":{"type":"exec","command":["ls","/nope"],"timeout_ms":10000,"working_directory":"/r","env":null,"user":null}}}`+"\n"+
		`{"timestamp":"2025-06-12T09:00:01Z","type":"response_item","payload":{"type":"function_call_output","call_id":"ls_1","output":"{\"output\":\"ls: cannot access '/nope'\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.0}}"}}`+"\n")
	f, err := importer.Read("codex", p)
	if err != nil {
		t.Fatal(err)
	}
	ev := f.Events[0].Event
	if len(f.Events) != 1 || ev.Tool != "shell" || ev.Payload.Intent.Tool != "local_shell" || ev.Payload.Intent.Args["working_directory"] != "/r" {
		t.Fatalf("%d events, the first %s with intent %+v; want one shell call with its action", len(f.Events), ev.Tool, ev.Payload.Intent)
	}
	if x := ev.Payload.Execution; x == nil || x.Status != format.StatusFailed || x.ExitCode == nil || *x.ExitCode != 2 {
		t.Fatalf("execution %+v; want failed with exit code 2", x)
	}
}

// An entry written twice (the same uuid: the Bash call here) is read
// once.
func TestClaudeCodeRepeats(t *testing.T) {
	b, err := os.ReadFile(ccSession)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	p := filepath.Join(t.TempDir(), "s.jsonl")
	write(t, p, strings.Join(lines[:5], "")+lines[4]+strings.Join(lines[5:], ""))
	f, err := importer.Read("claude-code", p)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Events) != 8 {
		t.Errorf("%d events, want the session's 8", len(f.Events))
	}
}

// A tool result whose call is in no line of the file (a resumed session's
// earlier file) is an observation of its own.
func TestOrphanResults(t *testing.T) {
	for _, tc := range []struct{ format, body string }{
		{"claude-code", `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2025-06-12T09:00:00Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_gone","content":"done"}]}}`},
		{"codex", `{"timestamp":"2025-06-12T09:00:00Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_gone","output":"done"}}`},
	} {
		p := filepath.Join(t.TempDir(), "s.jsonl")
		write(t, p, tc.body+"\n")
		f, err := importer.Read(tc.format, p)
		if err != nil {
			t.Fatal(err)
		}
		if ev := f.Events[0].Event; len(f.Events) != 1 || ev.Kind != format.KindObservation || ev.Tool != importer.ToolMessage || ev.Payload.Content.Text != "done" {
			t.Errorf("%s: %+v; want one observation holding the result", tc.format, f.Events)
		}
	}
}

// FuzzClaudeCode: Read never panics on a transcript, and what it returns
// holds together: causes are earlier events, actions have a category.
func FuzzClaudeCode(f *testing.F) { fuzzFormat(f, "claude-code", ccSession) }

// FuzzCodex is FuzzClaudeCode for Codex rollouts.
func FuzzCodex(f *testing.F) { fuzzFormat(f, "codex", cxSession) }

// fuzzFormat fuzzes Read of formatName, seeded with the session at seed,
// each of its lines alone, and its first lines.
func fuzzFormat(f *testing.F, formatName, seed string) {
	b, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	lines := strings.SplitAfter(string(b), "\n")
	for i := range lines {
		f.Add([]byte(lines[i]))
		f.Add([]byte(strings.Join(lines[:i], "")))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte) {
		tmp, err := os.CreateTemp(dir, "*.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		p := tmp.Name()
		defer os.Remove(p)
		if _, err := tmp.Write(body); err != nil {
			t.Fatal(err)
		}
		if err := tmp.Close(); err != nil {
			t.Fatal(err)
		}
		file, err := importer.Read(formatName, p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("the error %q does not name the file", err)
			}
			return
		}
		for i, e := range file.Events {
			for _, c := range e.Causes {
				if c < 0 || c >= i {
					t.Fatalf("event %d caused by %d", i, c)
				}
			}
			if (e.Event.Kind == format.KindToolCall) != (e.Category != "") {
				t.Fatalf("event %d: kind %s with category %q", i, e.Event.Kind, e.Category)
			}
		}
	})
}
