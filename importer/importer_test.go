package importer_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

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
	// find_file, open, edit, python3, submit (new form, function calling).
	"6e44b9__sweagenttestrepo-1c2844.traj": {5, map[string]int{"read": 2, "edit": 1, "shell": 1, "other": 1}},
	// history only: system, task, then five actions each answered by a tool message.
	"function_calling_simple.traj": {12, map[string]int{"read": 2, "edit": 1, "shell": 1, "other": 1}},
	// ls -a, open main.py, edit 15:15, python main.py, submit (old form).
	"humanevalfix-python-0.traj": {5, map[string]int{"shell": 2, "read": 1, "edit": 1, "other": 1}},
	// tshark three times, submit.
	"networking_1.traj": {4, map[string]int{"shell": 3, "other": 1}},
	// find_file, open, edit 4:4, python, submit (old form).
	"swe-agent__test-repo-i1.traj": {5, map[string]int{"read": 2, "edit": 1, "shell": 1, "other": 1}},
	// user, agent, user, agent messages, user message, finish.
	"basic_interactions.json": {6, map[string]int{"other": 3}},
	// user message, read + observation, run + observation, read + observation, finish.
	"wrong_initial_state.json": {8, map[string]int{"read": 2, "shell": 1, "other": 1}},
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
			raw, _ := mark["raw"].(map[string]any)
			if _, caused := raw["cause"]; f.Format == "openhands" && caused != (len(e.Causes) == 1) {
				t.Errorf("%s step %d: cause %v, causes %v", path, e.Step, raw["cause"], e.Causes)
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
// answered by its observation (a directory listing, the mv command, the
// listing again) and the finish, with the command and what it and the
// listings returned as the stream holds them.
func TestOpenHandsStream(t *testing.T) {
	f, err := importer.Read("openhands", committed(t, "openhands", "wrong_initial_state.json"))
	if err != nil {
		t.Fatal(err)
	}
	evs := recordFile(t, f)
	tc, obs := format.KindToolCall, format.KindObservation
	wantEvents := []struct {
		tool     string
		kind     format.Kind
		function string // the model's tool, tool_call_metadata.function_name
		parents  []uint64
	}{
		{"message", obs, "", nil},
		{"read", tc, "str_replace_editor", nil}, {"read", obs, "str_replace_editor", []uint64{1}},
		{"run", tc, "execute_bash", nil}, {"run", obs, "execute_bash", []uint64{3}},
		{"read", tc, "str_replace_editor", nil}, {"read", obs, "str_replace_editor", []uint64{5}},
		{"finish", tc, "finish", nil},
	}
	if len(evs) != len(wantEvents) {
		t.Fatalf("%d events in the log, want %d", len(evs), len(wantEvents))
	}
	for i, w := range wantEvents {
		ev := evs[i]
		var parents []uint64
		if ev.Payload.Context != nil {
			parents = ev.Payload.Context.Parents
		}
		meta, _ := step(t, ev)["tool_call_metadata"].(map[string]any)
		function, _ := meta["function_name"].(string)
		if ev.Envelope.Tool != w.tool || ev.Envelope.Kind != w.kind || !slices.Equal(parents, w.parents) || function != w.function {
			t.Errorf("event %d: %s %s, parents %v, model tool %q; want %s %s, parents %v, model tool %q",
				i, ev.Envelope.Tool, ev.Envelope.Kind, parents, function, w.tool, w.kind, w.parents, w.function)
		}
		if in := ev.Payload.Intent; (w.kind == tc) != (in != nil && in.Tool == w.tool) {
			t.Errorf("event %d: intent %+v for a %s", i, in, w.kind)
		}
	}
	if s := step(t, evs[0]); s["source"] != "user" || s["message"] != "Please rename game_2048.py to 2048.py" {
		t.Errorf("the request: %v", s)
	}
	const mv = "mv /workspace/game_2048.py /workspace/2048.py"
	if args := evs[3].Payload.Intent.Args; args["command"] != mv || args["thought"] != nil {
		t.Errorf("the run action's arguments %v; want command %q and no thought", args, mv)
	}
	ran := step(t, evs[4])
	extras, _ := ran["extras"].(map[string]any)
	meta, _ := extras["metadata"].(map[string]any)
	if ran["content"] != "" || extras["command"] != mv || meta["exit_code"] != uint64(0) ||
		ran["message"] != "Command `"+mv+"` executed with exit code 0." {
		t.Errorf("the run observation %v; want no output, exit code 0", ran)
	}
	const listing = "Here's the files and directories up to 2 levels deep in /workspace, excluding hidden items:\n/workspace/\n/workspace/"
	for i, file := range map[int]string{2: "game_2048.py", 6: "2048.py"} {
		if got := step(t, evs[i])["content"]; got != listing+file {
			t.Errorf("event %d: listing %q; want the directory with %s", i, got, file)
		}
	}
}

// The committed SWE-agent trajectory (function calling), read back from
// the log it was imported into: five actions with the history's tool calls
// as intents, the test run's command and output, and the submitted patch.
func TestSWEAgentTrajectory(t *testing.T) {
	f, err := importer.Read("swe-agent", committed(t, "swe-agent", "6e44b9__sweagenttestrepo-1c2844.traj"))
	if err != nil {
		t.Fatal(err)
	}
	evs := recordFile(t, f)
	const file = "/SWE-agent__test-repo/tests/missing_colon.py"
	wantEvents := []struct {
		tool, category string
		args           map[string]any
	}{
		{"find_file", "read", map[string]any{"file_name": "missing_colon.py"}},
		{"open", "read", map[string]any{"path": file}},
		{"edit", "edit", map[string]any{"path": file, "search": "def division(a: float, b: float) -> float",
			"replace": "def division(a: float, b: float) -> float:", "replace-all": false}},
		{"bash", "shell", map[string]any{"command": "python3 " + file}},
		{"submit", "other", map[string]any{"command": "submit"}},
	}
	if len(evs) != len(wantEvents) {
		t.Fatalf("%d events in the log, want %d", len(evs), len(wantEvents))
	}
	for i, w := range wantEvents {
		ev := evs[i]
		mark, _ := ev.Payload.Ext[importer.ExtKey].(map[string]any)
		if in := ev.Payload.Intent; ev.Envelope.Tool != w.tool || ev.Envelope.Kind != format.KindToolCall || in == nil || in.Tool != w.tool ||
			!reflect.DeepEqual(in.Args, w.args) || mark["category"] != w.category || mark["form"] != "new" {
			t.Errorf("event %d: %s %s, intent %+v, mark %v; want %s with %v, category %s", i, ev.Envelope.Tool, ev.Envelope.Kind, in, mark, w.tool, w.args, w.category)
		}
	}
	if s := step(t, evs[3]); s["action"] != "python3 "+file || s["observation"] != "8.2" {
		t.Errorf("the test run: action %q, observation %q; want its output 8.2", s["action"], s["observation"])
	}
	patch, _ := step(t, evs[4])["observation"].(string)
	if !strings.Contains(patch, "diff --git a/tests/missing_colon.py b/tests/missing_colon.py") ||
		!strings.Contains(patch, "+def division(a: float, b: float) -> float:") {
		t.Errorf("the submitted patch:\n%s", patch)
	}
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
		{"duplicate.traj", "swe-agent", `{"trajectory":[{"action":"ls","state":{},"action":"rm -rf /"}]}`, `duplicate key "action"`},
		{"folded-state.traj", "swe-agent", `{"trajectory":[{"action":"ls","state":"{\"working_dir\": \"/r\", \"WORKING_DIR\": \"/\"}"}]}`, "equal under case folding"},
		{"folded.json", "openhands", `[{"id":1,"source":"agent","action":"run","args":{"command":"ls","COMMAND":"rm -rf /"}}]`, "equal under case folding"},
		{"bad.jsonl", "jsonl", "{\"tool\":\"ls\",\"kind\":\"tool_call\"}\n{\"tool\":\"ls\",\"kind\":\"thinking\"}\n", "line 2:"},
		// Before, bytes.TrimSpace took U+00A0 and U+0085 off the line, which
		// afr record (and any JSON reader) refuses.
		{"nbsp.jsonl", "jsonl", "{\"tool\":\"ls\",\"kind\":\"tool_call\"}\n\u00a0{\"tool\":\"ls\",\"kind\":\"tool_call\"}\u0085\n", "line 2:"},
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
