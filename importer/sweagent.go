package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// A SWE-agent trajectory (.traj) is a JSON object with "trajectory" (one
// step per action: action, observation, thought, response, state) and
// "history" (the chat: system, user, assistant and tool messages, the
// assistant's with its action and, in function-calling runs, OpenAI-style
// tool_calls). Two forms of steps exist: the old one keeps the state
// (open file, working directory) as a JSON string taken before the action,
// the new one as an object taken after it. A file with no trajectory is
// imported from its history. Demonstration messages (is_demo) are another
// run's, shown to the model as an example, and are skipped.

type sweStep struct {
	Action *string         `json:"action"`
	State  json.RawMessage `json:"state"`
}

type sweMessage struct {
	Role        string          `json:"role"`
	Action      json.RawMessage `json:"action"`
	IsDemo      bool            `json:"is_demo"`
	ToolCalls   []sweToolCall   `json:"tool_calls"`
	ToolCallIDs []string        `json:"tool_call_ids"`
}

type sweToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type sweState struct {
	OpenFile   string `json:"open_file"`
	WorkingDir string `json:"working_dir"`
}

func (f *File) sweAgent(b []byte) error {
	if err := strictjson.Check(b); err != nil {
		return f.syntaxError(b, err)
	}
	var top map[string]json.RawMessage
	if shape := jsonShape(b); shape != "an object" || strictjson.Unmarshal(b, &top) != nil {
		e := &ShapeError{Shape: shape, Want: `a SWE-agent trajectory object with "trajectory" or "history"`}
		if shape == "an array" {
			e.Other = "openhands"
		}
		return &StepError{File: f.Path, Step: -1, Err: e}
	}
	var traj []json.RawMessage
	var hist []json.RawMessage
	for key, v := range map[string]*[]json.RawMessage{"trajectory": &traj, "history": &hist} {
		if raw, ok := top[key]; ok && strictjson.Unmarshal(raw, v) != nil {
			return f.fail("", -1, "%q is %s, want a list", key, jsonShape(raw))
		}
	}
	msgs := make([]sweMessage, len(hist))
	for i, raw := range hist {
		if err := strictjson.Unmarshal(raw, &msgs[i]); err != nil {
			return f.fail("message", i, "not a SWE-agent history message: %v", err)
		}
	}
	switch {
	case len(traj) > 0:
		return f.sweTrajectory(traj, hist, msgs)
	case len(hist) > 0:
		return f.sweHistory(hist, msgs)
	}
	return f.fail("", -1, "no steps: neither a \"trajectory\" nor a \"history\" list with entries (is this a SWE-agent .traj file?)")
}

// sweTrajectory imports the trajectory's steps, one tool_call each, with
// structured arguments from the history's tool calls where it has them.
func (f *File) sweTrajectory(traj, hist []json.RawMessage, msgs []sweMessage) error {
	var form, openFile string
	next := 0 // the first history message not yet matched with a step
	for i, raw := range traj {
		var s sweStep
		if err := strictjson.Unmarshal(raw, &s); err != nil {
			return f.fail("step", i, "not a SWE-agent trajectory step: %v", err)
		}
		if s.Action == nil {
			return f.fail("step", i, "no \"action\" text: not a SWE-agent trajectory step")
		}
		st, stepForm, err := parseState(s.State)
		if err != nil {
			return f.fail("step", i, "%v", err)
		}
		if form != "" && stepForm != form {
			return f.fail("step", i, "the state is in the %s form, earlier steps in the %s form: one file holds one run", stepForm, form)
		}
		form = stepForm
		action := strings.TrimSpace(*s.Action)
		var call *sweToolCall
		for j := next; j < len(msgs); j++ {
			if m := msgs[j]; !m.IsDemo && m.Role == "assistant" && messageAction(m) == action {
				if len(m.ToolCalls) == 1 {
					call = &m.ToolCalls[0]
				}
				next = j + 1
				break
			}
		}
		if err := f.sweAction(i, form, raw, action, call, st.WorkingDir, &openFile); err != nil {
			return err
		}
	}
	return nil
}

// sweHistory imports a history without trajectory: each message that is
// not a demonstration is an event, a tool_call when it ran an action, else
// an observation (caused by the action it answers, when it follows one or
// names its tool call).
func (f *File) sweHistory(hist []json.RawMessage, msgs []sweMessage) error {
	var openFile string
	last := -1                   // the event of the last action, while its answer is awaited
	byCallID := map[string]int{} // tool call id → event
	for i, m := range msgs {
		if m.IsDemo {
			continue
		}
		if a := messageAction(m); a != "" && m.Role == "assistant" {
			var call *sweToolCall
			if len(m.ToolCalls) == 1 {
				call = &m.ToolCalls[0]
				byCallID[call.ID] = len(f.Events)
			}
			last = len(f.Events)
			if err := f.sweAction(i, "history", hist[i], a, call, "", &openFile); err != nil {
				return err
			}
			continue
		}
		var causes []int
		for _, id := range m.ToolCallIDs {
			if e, ok := byCallID[id]; ok {
				causes = append(causes, e)
			}
		}
		if len(causes) == 0 && last >= 0 && (m.Role == "tool" || m.Role == "user") {
			causes = []int{last}
		}
		last = -1
		if err := f.add(i, "history", hist[i], "message", format.KindObservation, "", nil, causes...); err != nil {
			return err
		}
	}
	return nil
}

// sweAction adds one action as a tool_call: the tool and arguments of its
// tool call when the history has one, else its command word and the action
// text; an edit names the file it targets, the last one opened or created.
func (f *File) sweAction(step int, form string, raw json.RawMessage, action string, call *sweToolCall, workDir string, openFile *string) error {
	tool, args := Command(action), map[string]any{"command": action}
	if call != nil {
		var a map[string]any
		if err := strictjson.Unmarshal([]byte(call.Function.Arguments), &a); err != nil {
			return f.fail("step", step, "the arguments of tool call %q are not a JSON object: %v", call.ID, err)
		}
		if a == nil {
			a = map[string]any{}
		}
		tool, args = call.Function.Name, a
	}
	category := Category(action)
	switch tool {
	case "open", "create":
		p, _ := args["path"].(string)
		if p == "" {
			p, _ = args["filename"].(string)
		}
		if p == "" {
			p = firstArg(action)
		}
		if p != "" && !path.IsAbs(p) && workDir != "" {
			p = path.Join(workDir, p)
		}
		*openFile = p
	default:
		if _, named := args["path"]; category == "edit" && !named && *openFile != "" {
			args["path"] = *openFile
		}
	}
	if tool == "" {
		return f.fail("step", step, "an empty action")
	}
	return f.add(step, form, raw, tool, format.KindToolCall, category,
		map[string]any{"intent": map[string]any{"tool": tool, "args": args}})
}

// parseState reads a step's state: a JSON string holding an object (the
// old form, taken before the action) or an object (the new form, after).
func parseState(raw json.RawMessage) (sweState, string, error) {
	var st sweState
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		strictjson.Unmarshal(raw, &s)
		if err := strictjson.Unmarshal([]byte(s), &st); err != nil {
			return st, "", fmt.Errorf("the state is a string but not a JSON object (old form): %v", err)
		}
		return st, "old", nil
	case len(raw) > 0 && raw[0] == '{':
		if err := strictjson.Unmarshal(raw, &st); err != nil {
			return st, "", fmt.Errorf("the state object is not SWE-agent's (open_file, working_dir): %v", err)
		}
		return st, "new", nil
	}
	return st, "", fmt.Errorf("unknown form: the state is %s, want an object (SWE-agent 1.x) or a string holding one (earlier versions)", jsonShape(raw))
}

// messageAction is a history message's action, trimmed ("" for none).
func messageAction(m sweMessage) string {
	var a string
	strictjson.Unmarshal(m.Action, &a)
	return strings.TrimSpace(a)
}

// firstArg is the first argument of a command line, unquoted.
func firstArg(action string) string {
	rest := strings.TrimSpace(strings.TrimPrefix(action, Command(action)))
	if rest == "" {
		return ""
	}
	if q := rest[0]; q == '"' || q == '\'' {
		if end := strings.IndexByte(rest[1:], q); end >= 0 {
			return rest[1 : end+1]
		}
	}
	return strings.Fields(rest)[0]
}

// Command is the first word of an action: the tool it called.
func Command(action string) string {
	f := strings.Fields(action)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

var categoryOf = map[string]string{
	// SWE-agent's editor commands.
	"edit": "edit", "create": "edit", "write": "edit", "insert": "edit", "append": "edit",
	// SWE-agent's file viewer and search commands, and the shell's plain
	// readers.
	"open": "read", "goto": "read", "scroll_up": "read", "scroll_down": "read", "find_file": "read",
	"search_file": "read", "search_dir": "read", "cat": "read", "head": "read", "tail": "read",
	// Ending the run and talking: no tool.
	"submit": "other", "exit": "other",
}

// Category is the category of a SWE-agent action: shell unless its command
// is one of the editor's (str_replace_editor's view is a read, its other
// commands edits), the viewer's or a run's end; "" for no action.
func Category(action string) string {
	cmd := Command(action)
	if cmd == "" {
		return ""
	}
	if cmd == "str_replace_editor" {
		if Command(strings.TrimPrefix(action, cmd)) == "view" {
			return "read"
		}
		return "edit"
	}
	if c, ok := categoryOf[cmd]; ok {
		return c
	}
	return "shell"
}
