// Package traces reads real agent trajectories written by other projects —
// SWE-agent .traj files and OpenHands event streams, kept beside the project
// in ../shared/traces — and turns their steps into AFR events (event JSON),
// for the tests that must run on input nobody here wrote and for `afr bench`
// (RQ1). The trajectories are not part of the repository: Locate says where
// they are, or why there are none.
package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EnvDir is the environment variable that names the trajectories'
// directory, overriding the default beside the module.
const EnvDir = "AFR_TRACES"

// module is the module path whose root the default directory is beside.
const module = "github.com/agentflightrecorder/afr"

// Locate returns the trajectories' directory: dir if not empty, else
// $AFR_TRACES, else ../shared/traces beside the root of this module (found
// from the working directory upwards). The error says where it looked when
// that directory holds no trajectory.
func Locate(dir string) (string, error) {
	how := "given"
	if dir == "" {
		dir, how = os.Getenv(EnvDir), "from $"+EnvDir
	}
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return "", fmt.Errorf("no trajectories: %v, and $%s is not set", err, EnvDir)
		}
		dir, how = filepath.Join(root, "..", "shared", "traces"), "beside the module"
	}
	if len(Files(dir)) == 0 {
		return dir, fmt.Errorf("no trajectories in %s (%s; they are kept beside the project, not in it: set $%s or --traces)", dir, how, EnvDir)
	}
	return dir, nil
}

// moduleRoot finds the directory of this module's go.mod at or above the
// working directory.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(b), "module "+module+"\n") {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", errors.New("the working directory is not inside the afr module")
		}
		d = up
	}
}

// Files returns the trajectory files under dir: */*.traj and */*.json.
func Files(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.traj"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	return append(files, more...)
}

// Steps returns the steps of a trajectory as its agent wrote them: the
// `trajectory` (else `history`) entries of a SWE-agent file, or the events
// of an OpenHands stream.
func Steps(path string) ([]json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var stream []json.RawMessage
	if json.Unmarshal(b, &stream) == nil {
		return stream, nil
	}
	var traj struct{ Trajectory, History []json.RawMessage }
	if err := json.Unmarshal(b, &traj); err != nil {
		return nil, fmt.Errorf("%s: neither an event stream nor a trajectory: %w", path, err)
	}
	if len(traj.Trajectory) > 0 {
		return traj.Trajectory, nil
	}
	return traj.History, nil
}

// Action returns the command a step ran as its agent wrote it, trimmed: the
// "action" of a SWE-agent step, history message or OpenHands action event;
// "" for a step that ran nothing (a message without action, an
// observation).
func Action(step json.RawMessage) string {
	var s struct {
		Action any `json:"action"`
	}
	if json.Unmarshal(step, &s) != nil {
		return ""
	}
	a, _ := s.Action.(string)
	return strings.TrimSpace(a)
}

// Command is the first word of an action: the tool it called.
func Command(action string) string {
	f := strings.Fields(action)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// Categories are the paper's categories of an agent's actions (RQ1:
// shell, file edits, file reads), and other for the rest.
var Categories = []string{"shell", "edit", "read", "other"}

var categoryOf = map[string]string{
	// SWE-agent's editor commands and OpenHands' edit actions.
	"edit": "edit", "create": "edit", "write": "edit", "insert": "edit", "append": "edit",
	// SWE-agent's file viewer and search commands, OpenHands' read, and the
	// shell's plain readers.
	"open": "read", "goto": "read", "scroll_up": "read", "scroll_down": "read", "find_file": "read",
	"search_file": "read", "search_dir": "read", "read": "read", "cat": "read", "head": "read", "tail": "read",
	// Ending the run and talking: no tool.
	"submit": "other", "finish": "other", "exit": "other", "message": "other", "think": "other",
}

// Category is the category of an action: shell unless its command is one
// of the editor's, the viewer's or a run's end; "" for no action.
func Category(action string) string {
	cmd := Command(action)
	if cmd == "" {
		return ""
	}
	if c, ok := categoryOf[cmd]; ok {
		return c
	}
	return "shell"
}

// EventJSON returns a step as an AFR event in the event JSON that `afr
// record` reads (docs/SPEC.md, "Event JSON"): a step that ran an action is a
// tool_call of its command, with the action as the intent's "command" and
// its category; any other step is an observation. Either way the step, as
// its agent wrote it, is the payload's ext "step". This is the only
// conversion from trajectory steps to events.
func EventJSON(step json.RawMessage) ([]byte, error) {
	ev := map[string]any{"tool": "observation", "kind": "observation",
		"payload": map[string]any{"ext": map[string]any{"step": step}}}
	if a := Action(step); a != "" {
		ev["tool"], ev["kind"] = Command(a), "tool_call"
		ev["payload"] = map[string]any{
			"intent": map[string]any{"tool": Command(a), "args": map[string]any{"command": a, "category": Category(a)}},
			"ext":    map[string]any{"step": step},
		}
	}
	return json.Marshal(ev)
}
