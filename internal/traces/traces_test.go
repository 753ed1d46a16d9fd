package traces_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/traces"
)

func TestLocate(t *testing.T) {
	empty := t.TempDir()
	if _, err := traces.Locate(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Fatalf("Locate(an empty directory) = %v; want an error naming it", err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "swe-agent"), 0o755)
	os.WriteFile(filepath.Join(dir, "swe-agent", "a.traj"), []byte(`{"trajectory":[]}`), 0o644)
	if got, err := traces.Locate(dir); err != nil || got != dir {
		t.Fatalf("Locate(%s) = %s, %v", dir, got, err)
	}
	t.Setenv(traces.EnvDir, dir)
	if got, err := traces.Locate(""); err != nil || got != dir {
		t.Fatalf("Locate with $%s = %s, %v", traces.EnvDir, got, err)
	}
	t.Setenv(traces.EnvDir, empty)
	if _, err := traces.Locate(""); err == nil || !strings.Contains(err.Error(), "$"+traces.EnvDir) {
		t.Fatalf("Locate with an empty $%s = %v; want an error naming the variable", traces.EnvDir, err)
	}
}

func TestCategory(t *testing.T) {
	for action, want := range map[string]string{
		"":                                    "",
		"find_file missing_colon.py":          "read",
		`open "/repo/tests/missing_colon.py"`: "read",
		"edit 4:4\ndef f():\nend_of_edit":     "edit",
		"python3 tests/missing_colon.py":      "shell",
		"tshark -n -r networking.pcap":        "shell",
		"ls -a":                               "shell",
		"submit 'flag{x}'":                    "other",
	} {
		if got := traces.Category(action); got != want {
			t.Errorf("Category(%q) = %q, want %q", action, got, want)
		}
	}
}

// A step with an action is a tool_call of its command, one without is an
// observation; both carry the step as written and parse as event JSON.
func TestEventJSON(t *testing.T) {
	for _, tc := range []struct {
		step, tool string
		kind       format.Kind
	}{
		{`{"action":"python3 x.py\n","observation":"8.2"}`, "python3", format.KindToolCall},
		{`{"role":"tool","content":"Found 1 match"}`, "observation", format.KindObservation},
		{`{"id":3,"observation":"read","content":"x"}`, "observation", format.KindObservation},
	} {
		b, err := traces.EventJSON(json.RawMessage(tc.step))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := format.ParseEventJSON(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if ev.Tool != tc.tool || ev.Kind != tc.kind {
			t.Errorf("%s: tool %q kind %s, want %q %s", tc.step, ev.Tool, ev.Kind, tc.tool, tc.kind)
		}
		step, _ := json.Marshal(ev.Payload.Ext["step"])
		if canon(t, step) != canon(t, []byte(tc.step)) {
			t.Errorf("ext.step = %s, want the step %s", step, tc.step)
		}
		if tc.kind == format.KindToolCall && (ev.Payload.Intent == nil || ev.Payload.Intent.Args["category"] != "shell") {
			t.Errorf("%s: intent %+v, want category shell", tc.step, ev.Payload.Intent)
		}
	}
}

// canon is JSON with its keys sorted.
func canon(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	c, _ := json.Marshal(v)
	return string(c)
}
