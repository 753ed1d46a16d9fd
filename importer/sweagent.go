package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
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
// run's, shown to the model as an example, and are skipped. "info" holds
// the run's outcome: the submission, the exit status, the model's cost.

type sweStep struct {
	Action      *string         `json:"action"`
	Observation string          `json:"observation"`
	Response    string          `json:"response"`
	Thought     string          `json:"thought"`
	State       json.RawMessage `json:"state"`
}

type sweMessage struct {
	Role        string          `json:"role"`
	Content     json.RawMessage `json:"content"`
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

// sweInfo is a run's outcome: the submission (a patch, or a CTF's flag),
// how the run ended and what the model cost.
type sweInfo struct {
	Submission *string `json:"submission"`
	ExitStatus string  `json:"exit_status"`
	ModelStats struct {
		InstanceCost *float64 `json:"instance_cost"`
	} `json:"model_stats"`
}

// sweSubmitted is the exit status of a run that ended by submitting.
const sweSubmitted = "submitted"

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
	f.Run = sweRun(top["replay_config"], f.Path)
	var err error
	steps := len(traj)
	switch {
	case len(traj) > 0:
		err = f.sweTrajectory(traj, hist, msgs)
	case len(hist) > 0:
		err, steps = f.sweHistory(hist, msgs), len(hist)
	default:
		return f.fail("", -1, "no steps: neither a \"trajectory\" nor a \"history\" list with entries (is this a SWE-agent .traj file?)")
	}
	if err != nil {
		return err
	}
	return f.sweSubmission(steps, top["info"])
}

// sweRun is a run's instance id: the replay configuration's problem
// statement id (SWE-agent 1.x; the configuration is a JSON string or an
// object), else the file's name, which SWE-agent makes the instance id.
func sweRun(replay json.RawMessage, path string) string {
	var cfg struct {
		ProblemStatement struct {
			ID string `json:"id"`
		} `json:"problem_statement"`
	}
	var s string
	if strictjson.Unmarshal(replay, &s) == nil {
		replay = json.RawMessage(s)
	}
	if strictjson.Unmarshal(replay, &cfg) == nil && cfg.ProblemStatement.ID != "" {
		return cfg.ProblemStatement.ID
	}
	return runOfFile(path)
}

// sweSubmission adds the run's final event from its "info", when it has
// one: a response of tool ToolSubmission whose content is the submission,
// ok when the run ended by submitting, else failed with the exit status
// as the error; the exit status and the instance cost (US dollars) go into
// the import mark, whose step is steps, one past the file's last.
func (f *File) sweSubmission(steps int, raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var info sweInfo
	if err := strictjson.Unmarshal(raw, &info); err != nil {
		return f.fail("", -1, "\"info\" is not SWE-agent's (submission, exit_status, model_stats): %v", err)
	}
	if info.Submission == nil && info.ExitStatus == "" {
		return nil
	}
	exec := map[string]any{"status": "ok"}
	if info.ExitStatus != sweSubmitted {
		exec["status"], exec["error"] = "failed", "exit status "+info.ExitStatus
	}
	payload := map[string]any{"execution": exec}
	if info.Submission != nil {
		payload["content"] = text(*info.Submission)
	}
	mark := map[string]any{"exit_status": info.ExitStatus}
	if c := info.ModelStats.InstanceCost; c != nil {
		mark["cost"] = *c
	}
	return f.add(item{step: steps, form: "info", raw: raw, tool: ToolSubmission, kind: format.KindResponse, payload: payload, mark: mark})
}

// sweTrajectory imports the history's messages before the first action
// (the system prompt and the task), then the trajectory's steps, one
// tool_call each, with structured arguments from the history's tool calls
// where it has them.
func (f *File) sweTrajectory(traj, hist []json.RawMessage, msgs []sweMessage) error {
	next := 0 // the first history message not yet matched with a step
	for ; next < len(msgs) && msgs[next].Role != "assistant"; next++ {
		if msgs[next].IsDemo {
			continue
		}
		if err := f.sweMessage(next, hist[next], msgs[next]); err != nil {
			return err
		}
	}
	var form, openFile string
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
		said := s.Response
		if said == "" {
			said = s.Thought
		}
		it := item{step: i, form: form, raw: raw}
		if err := f.sweAction(&it, action, call, said, &s.Observation, st.WorkingDir, &openFile); err != nil {
			return err
		}
		if err := f.add(it); err != nil {
			return err
		}
	}
	return nil
}

// sweHistory imports a history without trajectory: each message that is
// not a demonstration is an event; a message that ran an action is a
// tool_call whose output is the message answering it (the tool message
// naming its tool call, or the message right after it from the tool or the
// user), which is no event of its own.
func (f *File) sweHistory(hist []json.RawMessage, msgs []sweMessage) error {
	var openFile string
	answered := map[int]bool{} // messages that are an action's output
	for i, m := range msgs {
		if m.IsDemo || answered[i] {
			continue
		}
		a := messageAction(m)
		if a == "" || m.Role != "assistant" {
			if err := f.sweMessage(i, hist[i], m); err != nil {
				return err
			}
			continue
		}
		var call *sweToolCall
		if len(m.ToolCalls) == 1 {
			call = &m.ToolCalls[0]
		}
		it := item{step: i, form: "history", raw: hist[i]}
		var output *string
		if j := answerOf(msgs, i, call); j >= 0 {
			answered[j] = true
			o := messageText(msgs[j])
			output = &o
			it.mark = map[string]any{"output_step": j, "output_raw": hist[j]}
		}
		if err := f.sweAction(&it, a, call, messageText(m), output, "", &openFile); err != nil {
			return err
		}
		if err := f.add(it); err != nil {
			return err
		}
	}
	return nil
}

// sweMessage adds a history message that ran no action: what the model
// said is a response, anything else (the system prompt, the task, the
// tool's or the user's answer) an observation.
func (f *File) sweMessage(step int, raw json.RawMessage, m sweMessage) error {
	kind := format.KindObservation
	if m.Role == "assistant" {
		kind = format.KindResponse
	}
	return f.add(item{step: step, form: "history", raw: raw, tool: ToolMessage, source: m.Role, kind: kind,
		payload: map[string]any{"content": text(messageText(m))}})
}

// answerOf is the index of the message answering the action of message i:
// the tool message naming its tool call, else the next message when it is
// the tool's or the user's and names no tool call; -1 for none.
func answerOf(msgs []sweMessage, i int, call *sweToolCall) int {
	for j := i + 1; call != nil && j < len(msgs); j++ {
		if slices.Contains(msgs[j].ToolCallIDs, call.ID) {
			return j
		}
	}
	if j := i + 1; j < len(msgs) && len(msgs[j].ToolCallIDs) == 0 && (msgs[j].Role == "tool" || msgs[j].Role == "user") {
		return j
	}
	return -1
}

// messageText is a message's text: its content, a string or a list of
// parts whose texts it joins.
func messageText(m sweMessage) string {
	var s string
	if strictjson.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	strictjson.Unmarshal(m.Content, &parts)
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n")
}

// sweAction fills it with one action: a tool_call of the vocabulary's tool
// for its command, whose intent is the tool and arguments of its tool call
// when the history has one, else its command word and the action text; an
// edit names the file it targets, the last one opened or created. said is
// what the model wrote with the action (the event's content) and output,
// when known, what it returned: SWE-agent writes no exit code, so an action
// with an output is ok.
func (f *File) sweAction(it *item, action string, call *sweToolCall, said string, output *string, workDir string, openFile *string) error {
	name, args := command(action), map[string]any{"command": action}
	if call != nil {
		var a map[string]any
		if err := strictjson.Unmarshal([]byte(call.Function.Arguments), &a); err != nil {
			return f.fail("step", it.step, "the arguments of tool call %q are not a JSON object: %v", call.ID, err)
		}
		if a == nil {
			a = map[string]any{}
		}
		name, args = call.Function.Name, a
	}
	if name == "" {
		return f.fail("step", it.step, "an empty action")
	}
	tool := sweTool(name, action, args)
	switch name {
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
		if _, named := args["path"]; tool == ToolFileEdit && !named && *openFile != "" {
			args["path"] = *openFile
		}
	}
	it.tool, it.source, it.kind = tool, name, format.KindToolCall
	it.payload = map[string]any{"intent": map[string]any{"tool": name, "args": args}}
	if said != "" {
		it.payload["content"] = text(said)
	}
	if output != nil {
		it.payload["execution"] = map[string]any{"status": "ok", "output": text(*output)}
	}
	return nil
}

// sweTool is the vocabulary's tool for a SWE-agent command or function
// name (with the action text and arguments, for str_replace_editor, whose
// view reads and whose other commands edit): bash and any command word it
// does not know are the shell's.
func sweTool(name, action string, args map[string]any) string {
	if name == "str_replace_editor" {
		sub, _ := args["command"].(string)
		if sub == "" || sub == action {
			sub = command(strings.TrimPrefix(action, name))
		}
		if sub == "view" {
			return ToolFileRead
		}
		return ToolFileEdit
	}
	if t, ok := sweTools[name]; ok {
		return t
	}
	return ToolShell
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
	rest := strings.TrimSpace(strings.TrimPrefix(action, command(action)))
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

// command is the first word of an action: the tool it called.
func command(action string) string {
	f := strings.Fields(action)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
