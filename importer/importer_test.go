package importer_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
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
func TestRealTrajectories(t *testing.T) {
	dir, err := traces.Locate("")
	if err != nil {
		t.Skip(err)
	}
	log := filepath.Join(t.TempDir(), "log")
	r, err := recorder.Open(log, recorder.Options{Recorder: "import", Encrypt: true, EpochSize: 7, Sync: recorder.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	seen := 0
	for _, path := range traces.Files(dir) {
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
	if seen != len(want) {
		t.Fatalf("%d of the %d trajectories in %s", seen, len(want), dir)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := verify(t, log); rep.Events != uint64(total) || rep.PayloadsOpened != uint64(total) {
		t.Fatalf("%d events verified, %d opened; want %d", rep.Events, rep.PayloadsOpened, total)
	}
}

// An edit names the file last opened, resolved against the working
// directory; tool-call arguments come from the history.
func TestSWEAgentEditPath(t *testing.T) {
	dir, err := traces.Locate("")
	if err != nil {
		t.Skip(err)
	}
	for file, path := range map[string]string{
		"swe-agent__test-repo-i1.traj":         "/klieret__swe-agent-test-repo/tests/missing_colon.py",
		"humanevalfix-python-0.traj":           "/swe-bench__humanevalfix-python/main.py",
		"6e44b9__sweagenttestrepo-1c2844.traj": "/SWE-agent__test-repo/tests/missing_colon.py",
		"function_calling_simple.traj":         "tests/missing_colon.py",
	} {
		f, err := importer.Read("swe-agent", filepath.Join(dir, "swe-agent", file))
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
	f, err := importer.Read("swe-agent", filepath.Join(dir, "swe-agent", "6e44b9__sweagenttestrepo-1c2844.traj"))
	if err != nil {
		t.Fatal(err)
	}
	if in := f.Events[3].Event.Payload.Intent; in.Tool != "bash" || in.Args["command"] != "python3 /SWE-agent__test-repo/tests/missing_colon.py" {
		t.Errorf("step 3: intent %+v, want the history's bash tool call", in)
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
		{"bad.jsonl", "jsonl", "{\"tool\":\"ls\",\"kind\":\"tool_call\"}\n{\"tool\":\"ls\",\"kind\":\"thinking\"}\n", "line 2:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			r, err := recorder.Open(log, recorder.Options{Recorder: "import"})
			if err != nil {
				t.Fatal(err)
			}
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
