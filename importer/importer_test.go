package importer_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/internal/traces"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// want holds what each real trajectory holds, read off the files by hand:
// the actions of each, in order, and their categories.
var want = map[string]struct {
	events int
	cats   map[string]int
}{
	// system prompt, task; find_file, open, edit, python3, submit (new
	// form, function calling); the submission.
	"6e44b9__sweagenttestrepo-1c2844.traj": {8, map[string]int{"read": 2, "edit": 1, "shell": 1, "other": 1}},
	// history only: system, task, then five actions, each with the tool
	// message answering it as its output.
	"function_calling_simple.traj": {7, map[string]int{"read": 2, "edit": 1, "shell": 1, "other": 1}},
	// system, task; ls -a, open main.py, edit 15:15, python main.py,
	// submit (old form); the submission.
	"humanevalfix-python-0.traj": {8, map[string]int{"shell": 2, "read": 1, "edit": 1, "other": 1}},
	// system, task; tshark three times, submit; the submission.
	"networking_1.traj": {7, map[string]int{"shell": 3, "other": 1}},
	// system, task (the demonstration skipped); find_file, open, edit 4:4,
	// python, submit (old form); the submission.
	"swe-agent__test-repo-i1.traj": {8, map[string]int{"read": 2, "edit": 1, "shell": 1, "other": 1}},
	// user, agent, user, agent messages, user message, finish.
	"basic_interactions.json": {6, map[string]int{"other": 1}},
	// user message, read, run, read (each with its observation), finish.
	"wrong_initial_state.json": {5, map[string]int{"read": 2, "shell": 1, "other": 1}},
}

// Every real trajectory imports with the events and categories counted by
// hand, into one log that verifies; observations point at their actions.
// The committed trajectories always run; the set beside the project, when
// there, runs too, and then every one of it counted here.
func TestRealTrajectories(t *testing.T) {
	files, beside := trajectories(t)
	log := filepath.Join(t.TempDir(), "log")
	r := logtest.Open(t, log, recorder.Options{Recorder: "import", Encrypt: true, EpochSize: 7, Sync: recorder.SyncNone})
	total := 0
	seen := 0
	for _, path := range files {
		w, ok := want[filepath.Base(path)]
		if !ok {
			continue
		}
		seen++
		f, err := importer.Read(traces.Format(path), path)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Events) != w.events {
			t.Errorf("%s: %d events, want %d", path, len(f.Events), w.events)
		}
		got := f.ByCategory()
		for _, c := range importer.Categories {
			if got[c] != w.cats[c] {
				t.Errorf("%s: %d %s actions, want %d (all: %v)", path, got[c], c, w.cats[c], got)
			}
		}
		for _, e := range f.Events {
			mark, _ := e.Event.Payload.Ext[importer.ExtKey].(map[string]any)
			if mark["file"] != path || mark["step"] != uint64(e.Step) {
				t.Errorf("%s step %d: import mark %v", path, e.Step, mark)
			}
			for _, c := range e.Causes {
				if c >= len(f.Events) || f.Events[c].Event.Kind != format.KindToolCall {
					t.Errorf("%s step %d: caused by event %d, not an earlier action", path, e.Step, c)
				}
			}
			if (e.Event.Kind == format.KindToolCall) != (e.Category != "") {
				t.Errorf("%s step %d: kind %s with category %q", path, e.Step, e.Event.Kind, e.Category)
			}
		}
		rcs, err := f.Record(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		total += len(rcs)
	}
	if min := 2; seen < min || beside && seen != len(want) {
		t.Fatalf("%d of the %d trajectories counted by hand in %v", seen, len(want), files)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := verify(t, log); rep.Events != uint64(total) || rep.PayloadsOpened != uint64(total) {
		t.Fatalf("%d events verified, %d opened; want %d", rep.Events, rep.PayloadsOpened, total)
	}
}

// trajectories returns every real trajectory there is (traces.All: the
// committed ones first) and whether a set beside the project was found.
func trajectories(t *testing.T) (files []string, beside bool) {
	t.Helper()
	files, err := traces.All()
	if err != nil {
		t.Fatal(err)
	}
	committed, err := traces.Committed()
	if err != nil {
		t.Fatal(err)
	}
	return files, len(files) > len(traces.Files(committed))
}

// committed returns the path of a trajectory committed with the module.
func committed(t *testing.T, formatName, name string) string {
	t.Helper()
	dir, err := traces.Committed()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, formatName, name)
}

// recordFile records f into a new log, as afr import does, and returns the
// log's events, read back after it verified.
func recordFile(t *testing.T, f *importer.File) []*verifier.Event {
	t.Helper()
	log := filepath.Join(t.TempDir(), "log")
	r := logtest.Open(t, log, recorder.Options{Recorder: "import", EpochSize: 4, Sync: recorder.SyncNone})
	if _, err := f.Record(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return logtest.Events(t, log)
}

// step is the step of an imported event as its agent wrote it (the
// import mark's "raw").
func step(t *testing.T, ev *verifier.Event) map[string]any {
	t.Helper()
	mark, _ := ev.Payload.Ext[importer.ExtKey].(map[string]any)
	raw, ok := mark["raw"].(map[string]any)
	if !ok {
		t.Fatalf("event %d: import mark %v holds no step", ev.Seq, mark)
	}
	return raw
}

// The committed OpenHands stream, an agent renaming a file, read back from
// the log it was imported into: the user's request, three actions each
// with the observation answering it as its outcome (a directory listing,
// the mv command, the listing again) and the finish; the model's function
// calls as intents, its thoughts as content, the stream's timestamps as
// event times.
func TestOpenHandsStream(t *testing.T) {
	path := committed(t, "openhands", "wrong_initial_state.json")
	f, err := importer.Read("openhands", path)
	if err != nil {
		t.Fatal(err)
	}
	evs := recordFile(t, f)
	tc := format.KindToolCall
	const mv = "mv /workspace/game_2048.py /workspace/2048.py"
	const listing = "Here's the files and directories up to 2 levels deep in /workspace, excluding hidden items:\n/workspace/\n/workspace/"
	view := map[string]any{"command": "view", "path": "/workspace"}
	wantEvents := []struct {
		tool, source string
		kind         format.Kind
		time         string // the stream's timestamp, UTC
		args         map[string]any
		output       string
		content      string // its start
	}{
		{"message", "message", format.KindObservation, "2025-01-27T23:16:50.23961Z", nil, "", "Please rename game_2048.py to 2048.py"},
		{"file_read", "str_replace_editor", tc, "2025-01-27T23:16:54.105108Z", view, listing + "game_2048.py", "I'll help you rename the file."},
		{"shell", "execute_bash", tc, "2025-01-27T23:16:56.951967Z", map[string]any{"command": mv, "is_input": "false"}, "", "Great, I found the file."},
		{"file_read", "str_replace_editor", tc, "2025-01-27T23:16:59.803261Z", view, listing + "2048.py", "Let me verify"},
		{"submit", "finish", tc, "2025-01-27T23:17:02.182015Z", nil, "", "The file has been successfully renamed"},
	}
	if len(evs) != len(wantEvents) {
		t.Fatalf("%d events in the log, want %d", len(evs), len(wantEvents))
	}
	for i, w := range wantEvents {
		ev := evs[i]
		mark, _ := ev.Payload.Ext[importer.ExtKey].(map[string]any)
		when := time.Unix(0, ev.Envelope.EventTime).UTC().Format(time.RFC3339Nano)
		var content string
		if ev.Payload.Content != nil {
			content = ev.Payload.Content.Text
		}
		if ev.Envelope.Tool != w.tool || mark["tool"] != w.source || ev.Envelope.Kind != w.kind || when != w.time ||
			ev.Envelope.Run != "wrong_initial_state" || !strings.HasPrefix(content, w.content) {
			t.Errorf("event %d: %s (%v) %s at %s in run %q, content %q; want %s (%s) %s at %s, content %q…",
				i, ev.Envelope.Tool, mark["tool"], ev.Envelope.Kind, when, ev.Envelope.Run, content, w.tool, w.source, w.kind, w.time, w.content)
		}
		if w.kind != tc {
			continue
		}
		// finish's function call has no arguments.
		if in := ev.Payload.Intent; in == nil || in.Tool != w.source || !(reflect.DeepEqual(in.Args, w.args) || len(in.Args)+len(w.args) == 0) {
			t.Errorf("event %d: intent %+v; want %s with %v", i, in, w.source, w.args)
		}
		if w.tool == "submit" {
			continue
		}
		x := ev.Payload.Execution
		if x == nil || x.Status != format.StatusOK || x.Output == nil || x.Output.Text != w.output || x.Start != ev.Envelope.EventTime || x.End <= x.Start {
			t.Errorf("event %d: execution %+v; want ok with output %q, from the action's time to the observation's", i, x, w.output)
		}
	}
	if x := evs[2].Payload.Execution; x.ExitCode == nil || *x.ExitCode != 0 || x.Output.Size != 0 {
		t.Errorf("the mv command: exit code %v, output %+v; want 0 and no output", x.ExitCode, x.Output)
	}
}

// The committed SWE-agent trajectory (function calling), read back from
// the log it was imported into: the system prompt and the task, five
// actions with the history's tool calls as intents, the model's text as
// content and what each returned as output, and the submission.
func TestSWEAgentTrajectory(t *testing.T) {
	path := committed(t, "swe-agent", "6e44b9__sweagenttestrepo-1c2844.traj")
	f, err := importer.Read("swe-agent", path)
	if err != nil {
		t.Fatal(err)
	}
	evs := recordFile(t, f)
	const file = "/SWE-agent__test-repo/tests/missing_colon.py"
	tc := format.KindToolCall
	wantEvents := []struct {
		tool, source string
		kind         format.Kind
		args         map[string]any
		output       string // its start
	}{
		{"message", "system", format.KindObservation, nil, ""},
		{"message", "user", format.KindObservation, nil, ""},
		{"file_search", "find_file", tc, map[string]any{"file_name": "missing_colon.py"}, "Found 1 matches"},
		{"file_read", "open", tc, map[string]any{"path": file}, "[File: " + file},
		{"file_edit", "edit", tc, map[string]any{"path": file, "search": "def division(a: float, b: float) -> float",
			"replace": "def division(a: float, b: float) -> float:", "replace-all": false}, "Replaced 1 occurrences"},
		{"shell", "bash", tc, map[string]any{"command": "python3 " + file}, "8.2"},
		{"submit", "submit", tc, map[string]any{"command": "submit"}, "\r\ndiff --git"},
		{"submission", "", format.KindResponse, nil, ""},
	}
	if len(evs) != len(wantEvents) {
		t.Fatalf("%d events in the log, want %d", len(evs), len(wantEvents))
	}
	for i, w := range wantEvents {
		ev := evs[i]
		mark, _ := ev.Payload.Ext[importer.ExtKey].(map[string]any)
		if ev.Envelope.Tool != w.tool || ev.Envelope.Kind != w.kind || ev.Envelope.Run != "SWE-agent__test-repo-i1" || ev.Envelope.EventTime != 0 ||
			(w.source != "" && mark["tool"] != w.source) || ev.Payload.Content == nil {
			t.Errorf("event %d: %s (%v) %s in run %q at %d, content %v; want %s (%s) %s with content",
				i, ev.Envelope.Tool, mark["tool"], ev.Envelope.Kind, ev.Envelope.Run, ev.Envelope.EventTime, ev.Payload.Content, w.tool, w.source, w.kind)
		}
		if w.kind != tc {
			continue
		}
		in, x := ev.Payload.Intent, ev.Payload.Execution
		if in == nil || in.Tool != w.source || !reflect.DeepEqual(in.Args, w.args) || mark["form"] != "new" {
			t.Errorf("event %d: intent %+v, mark %v; want %s with %v", i, in, mark, w.source, w.args)
		}
		if x == nil || x.Status != format.StatusOK || x.ExitCode != nil || x.Output == nil || !strings.HasPrefix(x.Output.Text, w.output) {
			t.Errorf("event %d: execution %+v; want ok, no exit code, output %q…", i, x, w.output)
		}
	}
	if task := evs[1].Payload.Content.Text; !strings.Contains(task, "SyntaxError: invalid syntax") {
		t.Errorf("the task: %q", task)
	}
	sub := evs[7]
	mark, _ := sub.Payload.Ext[importer.ExtKey].(map[string]any)
	if patch := sub.Payload.Content.Text; !strings.Contains(patch, "diff --git a/tests/missing_colon.py b/tests/missing_colon.py") ||
		!strings.Contains(patch, "+def division(a: float, b: float) -> float:") || sub.Payload.Execution.Status != format.StatusOK ||
		mark["exit_status"] != "submitted" || mark["cost"] != 0.019520000000000006 {
		t.Errorf("the submission: %q, %+v, mark %v", patch, sub.Payload.Execution, mark)
	}
}

// A run that did not end by submitting (here the committed trajectory
// with the exit status SWE-agent writes when the cost limit stops a run)
// ends with a failed submission event whose error is that exit status.
func TestSWEAgentNotSubmitted(t *testing.T) {
	b, err := os.ReadFile(committed(t, "swe-agent", "6e44b9__sweagenttestrepo-1c2844.traj"))
	if err != nil {
		t.Fatal(err)
	}
	const submitted = `"exit_status": "submitted"`
	if strings.Count(string(b), submitted) != 1 {
		t.Fatalf("want the one %s", submitted)
	}
	p := filepath.Join(t.TempDir(), "cost.traj")
	write(t, p, strings.Replace(string(b), submitted, `"exit_status": "exit_cost"`, 1))
	f, err := importer.Read("swe-agent", p)
	if err != nil {
		t.Fatal(err)
	}
	last := f.Events[len(f.Events)-1].Event
	if x := last.Payload.Execution; last.Tool != importer.ToolSubmission || x == nil || x.Status != format.StatusFailed || x.Error != "exit status exit_cost" {
		t.Fatalf("the last event: %s, execution %+v; want a failed submission, exit status exit_cost", last.Tool, x)
	}
}

// In a history without trajectory, an action's output is the tool message
// that names its tool call: the history's twelve messages are the system
// prompt, the task and five actions.
func TestSWEAgentHistoryOutputs(t *testing.T) {
	files, _ := trajectories(t)
	for _, file := range files {
		if filepath.Base(file) != "function_calling_simple.traj" {
			continue
		}
		f, err := importer.Read("swe-agent", file)
		if err != nil {
			t.Fatal(err)
		}
		var outputs []string
		for _, e := range f.Events {
			if x := e.Event.Payload.Execution; x != nil {
				outputs = append(outputs, x.Output.Text)
			}
		}
		if len(outputs) != 5 || outputs[3] != "8.2\n(Open file: /SWE-agent__test-repo/tests/missing_colon.py)\n(Current directory: /SWE-agent__test-repo)\nbash-$" {
			t.Errorf("outputs %q; want five, the fourth the test run's 8.2", outputs)
		}
		return
	}
	t.Skip("function_calling_simple.traj is among the shared trajectories, which are not here: set AFR_TRACES to their folder (../shared/traces beside the project by default)")
}

// An edit names the file last opened, resolved against the working
// directory; tool-call arguments come from the history.
func TestSWEAgentEditPath(t *testing.T) {
	edited := map[string]string{
		"swe-agent__test-repo-i1.traj":         "/klieret__swe-agent-test-repo/tests/missing_colon.py",
		"humanevalfix-python-0.traj":           "/swe-bench__humanevalfix-python/main.py",
		"6e44b9__sweagenttestrepo-1c2844.traj": "/SWE-agent__test-repo/tests/missing_colon.py",
		"function_calling_simple.traj":         "tests/missing_colon.py",
	}
	files, beside := trajectories(t)
	seen := 0
	for _, file := range files {
		path, ok := edited[filepath.Base(file)]
		if !ok {
			continue
		}
		seen++
		f, err := importer.Read("swe-agent", file)
		if err != nil {
			t.Fatal(err)
		}
		edits := 0
		for _, e := range f.Events {
			if e.Category != "edit" {
				continue
			}
			edits++
			if in := e.Event.Payload.Intent; in.Args["path"] != path {
				t.Errorf("%s step %d: edit of %v, want %s", file, e.Step, in.Args["path"], path)
			}
		}
		if edits != 1 {
			t.Errorf("%s: %d edits, want 1", file, edits)
		}
	}
	if seen < 1 || beside && seen != len(edited) {
		t.Fatalf("%d of the %d trajectories with an edit in %v", seen, len(edited), files)
	}
}

// Lines of a Claude Code transcript and of a Codex rollout, for malformed
// files.
const (
	ccUser = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2025-06-12T09:00:00Z","message":{"role":"user","content":"hi"}}`
	ccCall = `{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2025-06-12T09:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}`
	cxMeta = `{"timestamp":"2025-06-12T09:00:00Z","type":"session_meta","payload":{"id":"0197","cwd":"/r","cli_version":"0.46.0"}}`
)

// Malformed files are refused naming the file and the step; nothing of
// them is recorded and the log keeps what was imported before.
func TestMalformed(t *testing.T) {
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good.traj")
	write(t, good, `{"trajectory":[{"action":"open a.py\n","state":"{\"open_file\": \"n/a\", \"working_dir\": \"/r\"}"},{"action":"edit 1:1\nx\nend_of_edit\n","state":"{\"open_file\": \"/r/a.py\", \"working_dir\": \"/r\"}"}]}`)
	for _, tc := range []struct{ name, format, body, want string }{
		{"truncated.traj", "swe-agent", `{"trajectory":[{"action":"ls","state":{}}`, "not valid JSON"},
		{"array.traj", "swe-agent", `[{"id":0}]`, "the top level is an array"},
		{"number-state.traj", "swe-agent", `{"trajectory":[{"action":"ls","state":{}},{"action":"ls","state":3}]}`, "step 1: unknown form"},
		{"mixed.traj", "swe-agent", `{"trajectory":[{"action":"ls","state":{}},{"action":"ls","state":"{}"}]}`, "step 1: the state is in the old form"},
		{"no-action.traj", "swe-agent", `{"trajectory":[{"observation":"x","state":{}}]}`, "step 0: no \"action\""},
		{"object.json", "openhands", `{"trajectory":[]}`, "the top level is an object, want an OpenHands event stream"},
		{"cause.json", "openhands", `[{"id":1,"source":"agent","action":"run","args":{"command":"ls"}},{"id":2,"observation":"run","cause":7}]`, "event 1: its cause 7"},
		{"neither.json", "openhands", `[{"id":1,"source":"agent"}]`, "event 0: neither"},
		{"self-cause.json", "openhands", `[{"id":1,"source":"agent","action":"run","args":{"command":"ls"},"cause":1}]`, "event 0: its cause 1"},
		{"time.json", "openhands", `[{"id":1,"timestamp":"yesterday","source":"agent","action":"run","args":{"command":"ls"}}]`, "event 0: timestamp \"yesterday\" is not ISO 8601"},
		{"duplicate.traj", "swe-agent", `{"trajectory":[{"action":"ls","state":{},"action":"rm -rf /"}]}`, `duplicate key "action"`},
		{"folded-state.traj", "swe-agent", `{"trajectory":[{"action":"ls","state":"{\"working_dir\": \"/r\", \"WORKING_DIR\": \"/\"}"}]}`, "equal under case folding"},
		{"folded.json", "openhands", `[{"id":1,"source":"agent","action":"run","args":{"command":"ls","COMMAND":"rm -rf /"}}]`, "equal under case folding"},
		{"bad.jsonl", "jsonl", "{\"tool\":\"ls\",\"kind\":\"tool_call\"}\n{\"tool\":\"ls\",\"kind\":\"thinking\"}\n", "line 2:"},
		// Before, bytes.TrimSpace took U+00A0 and U+0085 off the line, which
		// afr record (and any JSON reader) refuses.
		{"nbsp.jsonl", "jsonl", "{\"tool\":\"ls\",\"kind\":\"tool_call\"}\n\u00a0{\"tool\":\"ls\",\"kind\":\"tool_call\"}\u0085\n", "line 2:"},
		// Claude Code transcripts and Codex rollouts: the line that is wrong.
		{"cc-truncated.jsonl", "claude-code", ccUser + "\n" + `{"type":"assistant","uuid":"a1","message":{"content":[{"type":"text"`, "line 2: not a Claude Code transcript entry"},
		{"cc-no-type.jsonl", "claude-code", ccUser + "\n\n" + `{"uuid":"x"}`, "line 3: no \"type\""},
		{"cc-codex.jsonl", "claude-code", cxMeta, "line 1: a line of type \"session_meta\" with a \"payload\": a Codex CLI rollout line"},
		{"cc-time.jsonl", "claude-code", strings.Replace(ccUser, "2025-06-12T09:00:00Z", "noon", 1), "line 1: timestamp \"noon\" is not ISO 8601"},
		{"cc-content.jsonl", "claude-code", `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2025-06-12T09:00:00Z","message":{"content":7}}`, "line 1: the message's content"},
		{"cc-dup-call.jsonl", "claude-code", ccCall + "\n" + strings.Replace(ccCall, `"uuid":"a1"`, `"uuid":"a2"`, 1), "line 2: a tool_use with no id, or the id \"toolu_1\" of an earlier one"},
		{"cc-array.jsonl", "claude-code", `[{"id":1}]`, "the top level is an array, want a Claude Code session transcript"},
		{"cx-truncated.jsonl", "codex", cxMeta + "\n" + `{"timestamp":"2025-06-12T09:00:01Z","type":"response_item","payload":{"type":"message"`, "line 2: not a Codex rollout line"},
		{"cx-claude.jsonl", "codex", cxMeta + "\n" + ccUser, "line 2: an entry with a \"sessionId\": a Claude Code transcript entry"},
		{"cx-old.jsonl", "codex", `{"id":"0197","timestamp":"2025-05-07T17:24:21Z","instructions":null}` + "\n" + `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`, "line 1: neither a \"type\" nor a \"payload\""},
		{"cx-old-item.jsonl", "codex", cxMeta + "\n" + `{"type":"message","role":"user","content":[]}`, "line 2: a line of type \"message\" with no \"payload\": the older rollout form"},
		{"cx-args.jsonl", "codex", cxMeta + "\n" + `{"timestamp":"2025-06-12T09:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":","call_id":"c1"}}`, "line 2: the arguments of function call \"shell\" are not a JSON object"},
		{"cx-time.jsonl", "codex", strings.Replace(cxMeta, "2025-06-12T09:00:00Z", "yesterday", 1), "line 1: timestamp \"yesterday\""},
		{"cx-object.jsonl", "codex", "{\n \"timestamp\": \"2025-06-12T09:00:00Z\",\n \"type\": \"session_meta\"\n}", "the top level is an object spread over lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			r := logtest.Open(t, log, recorder.Options{Recorder: "import"})
			g, err := importer.Read("swe-agent", good)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Record(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			bad := filepath.Join(tmp, tc.name)
			write(t, bad, tc.body)
			_, err = importer.Read(tc.format, bad)
			var se *importer.StepError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read = %v; want a StepError naming %s and %q", err, bad, tc.want)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if rep := verify(t, log); rep.Verdict != verifier.Verified || rep.Events != 2 {
				t.Fatalf("after the refusal: %s with %d events, want verified with the 2 imported", rep.Verdict, rep.Events)
			}
		})
	}
}

// A file of the other trajectory format is refused with a *ShapeError that
// names the format its shape is of.
func TestWrongFormat(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct{ format, body, other string }{
		{"openhands", `{"trajectory":[]}`, "swe-agent"},
		{"swe-agent", `[{"id":0}]`, "openhands"},
		{"swe-agent", `"text"`, ""},
		{"claude-code", `[{"id":0}]`, "openhands"},
		{"codex", "{\n\"trajectory\": []\n}", "swe-agent"},
	} {
		p := filepath.Join(tmp, tc.format+".json")
		write(t, p, tc.body)
		_, err := importer.Read(tc.format, p)
		var se *importer.ShapeError
		if !errors.As(err, &se) || se.Other != tc.other {
			t.Errorf("%s of %s: %v, want a *ShapeError naming %q", tc.format, tc.body, err, tc.other)
		}
	}
}

// Event JSON lines are imported as written, marked with their line.
func TestJSONL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e.jsonl")
	write(t, p, "{\"tool\":\"ls\",\"kind\":\"tool_call\",\"payload\":{\"ext\":{\"k\":1}}}\n\n{\"tool\":\"x\",\"kind\":\"observation\"}\n")
	f, err := importer.Read("jsonl", p)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Events) != 2 || f.Events[0].Event.Payload.Ext["k"] != uint64(1) {
		t.Fatalf("events %+v", f.Events)
	}
	b, _ := json.Marshal(f.Events[1].Event.Payload.Ext[importer.ExtKey])
	if !strings.Contains(string(b), `"line":3`) {
		t.Fatalf("import mark %s, want line 3", b)
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// verify verifies the log in dir against its own epoch roots, with its
// payloads opened when it has keys.
func verify(t *testing.T, dir string) *verifier.Report {
	t.Helper()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := verifier.Options{Payloads: verifier.PayloadsDigest}
	if l.Manifest.Encrypted {
		keys, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), l.Manifest.Session)
		if err != nil {
			t.Fatal(err)
		}
		defer keys.Close()
		opts = verifier.Options{Payloads: verifier.PayloadsOpen, Keys: keys}
	}
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(as), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verifier.Verified {
		t.Fatalf("verdict %s: %+v", rep.Verdict, rep.Findings)
	}
	return rep
}
