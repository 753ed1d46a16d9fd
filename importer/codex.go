package importer

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// A Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) is
// JSON Lines, one RolloutLine a line: a timestamp, a type and its payload.
// The first line is session_meta (the session's id, cwd, CLI version);
// response_item lines are the conversation as the model sees it: message
// (role user, assistant or developer; content parts input_text or
// output_text), reasoning (summary texts), function_call (name, arguments
// as a JSON string, call_id) and function_call_output (call_id, output),
// custom_tool_call (name, input as text: apply_patch) and
// custom_tool_call_output, local_shell_call (an exec action) and
// web_search_call. event_msg lines are what the UI showed (they repeat the
// messages; exec_command_end gives a command's exit code), turn_context
// lines the settings of a turn; neither is an event of its own.

type cxLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// SessionID is set on a Claude Code entry, given to the wrong importer.
	SessionID string `json:"sessionId"`
}

// cxItem holds the fields of a response_item payload that are read, or of
// a session_meta or event_msg payload.
type cxItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    *string         `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	ExitCode  *int64          `json:"exit_code"` // exec_command_end
}

// cxRow is a line of the rollout, read.
type cxRow struct {
	jsonLine
	line cxLine
	item cxItem
	time int64
}

// cxWant is what a Codex rollout holds, for errors.
const cxWant = "a Codex CLI rollout (JSON Lines of timestamp, type and payload)"

// cxCalls are the response items that are tool calls, by the name of
// their call's tool for those that have none.
var cxCalls = map[string]string{"function_call": "", "custom_tool_call": "", "local_shell_call": "local_shell", "web_search_call": "web_search"}

// cxOutputs are the response items that answer a call.
var cxOutputs = map[string]bool{"function_call_output": true, "custom_tool_call_output": true}

func (f *File) codex(b []byte) error {
	raw, err := f.jsonLines(b, cxWant)
	if err != nil {
		return err
	}
	rows := make([]cxRow, len(raw))
	called := map[string]bool{}    // the call ids seen
	answers := map[string]*cxRow{} // a call id → the output answering it
	exits := map[string]int64{}    // a call id → its exec_command_end exit code
	for i := range raw {
		r := &rows[i]
		r.jsonLine = raw[i]
		if err := f.cxParse(r); err != nil {
			return err
		}
		it := r.item
		id := cxCallID(it)
		switch {
		case r.line.Type == "session_meta" && f.Run == "":
			f.Run = it.ID
		case r.line.Type == "event_msg" && it.Type == "exec_command_end" && it.ExitCode != nil && id != "":
			exits[id] = *it.ExitCode
		case r.line.Type != "response_item" || id == "":
		case cxOutputs[it.Type]:
			if _, done := answers[id]; called[id] && !done {
				answers[id] = r
			}
		default:
			if _, isCall := cxCalls[it.Type]; isCall {
				called[id] = true
			}
		}
	}
	if f.Run == "" {
		f.Run = runOfFile(f.Path)
	}
	for i := range rows {
		r := &rows[i]
		if r.line.Type != "response_item" {
			continue
		}
		it, ok, err := f.cxEvent(r, answers, exits)
		if err != nil {
			return err
		}
		if ok {
			if err := f.add(it); err != nil {
				return err
			}
		}
	}
	return nil
}

// cxParse reads one line: a RolloutLine, and its payload when it is a
// session_meta, response_item or event_msg. A line of the older form
// (a response item with no timestamp and payload around it) and a Claude
// Code entry are refused.
func (f *File) cxParse(r *cxRow) error {
	if err := strictjson.Unmarshal(r.text, &r.line); err != nil {
		return f.fail("line", r.n, "not a Codex rollout line: %v", err)
	}
	switch {
	case r.line.SessionID != "":
		return f.fail("line", r.n, "an entry with a \"sessionId\": a Claude Code transcript entry (afr import claude-code), not a Codex rollout line")
	case r.line.Type == "" && len(r.line.Payload) == 0:
		return f.fail("line", r.n, "neither a \"type\" nor a \"payload\": not a Codex rollout line of the form read (timestamp, type and payload; the older form, a bare session meta then response items, is not read)")
	case r.line.Type == "":
		return f.fail("line", r.n, "no \"type\": not a Codex rollout line")
	case len(r.line.Payload) == 0:
		return f.fail("line", r.n, "a line of type %q with no \"payload\": the older rollout form, response items on lines of their own, which is not read (want timestamp, type and payload on each line)", r.line.Type)
	}
	t, err := isoTime(r.line.Timestamp)
	if err != nil {
		return f.fail("line", r.n, "%v", err)
	}
	r.time = t
	switch r.line.Type {
	case "session_meta", "response_item", "event_msg":
	default:
		return nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := strictjson.Unmarshal(r.line.Payload, &head); err != nil {
		return f.fail("line", r.n, "the %s payload is %s, want an object", r.line.Type, jsonShape(r.line.Payload))
	}
	if r.line.Type == "event_msg" && head.Type != "exec_command_end" {
		return nil
	}
	if err := strictjson.Unmarshal(r.line.Payload, &r.item); err != nil {
		return f.fail("line", r.n, "the %s payload: %v", r.line.Type, err)
	}
	return nil
}

// cxCallID is the call id of a call or an output ("" for none): a local
// shell call made through the chat completions API has an id instead.
func cxCallID(it cxItem) string {
	switch {
	case it.CallID != nil:
		return *it.CallID
	case it.Type == "local_shell_call":
		return it.ID
	}
	return ""
}

// cxEvent is the event of a response item, and whether it is one: a
// message is an observation (the user's, the developer's) or a response
// (the model's), readable reasoning is reasoning, a call a tool_call with
// the output answering it as outcome; that output and other items (a
// ghost snapshot, reasoning whose text is encrypted) are no event of their
// own. An output answering no call of the file is an observation.
func (f *File) cxEvent(r *cxRow, answers map[string]*cxRow, exits map[string]int64) (item, bool, error) {
	in := r.item
	it := item{step: r.n, form: "rollout", raw: r.text, eventTime: r.time, tool: ToolMessage, source: in.Type}
	switch {
	case in.Type == "message":
		it.kind, it.source = format.KindObservation, in.Role
		if in.Role == "assistant" {
			it.kind = format.KindResponse
		}
		it.payload = map[string]any{"content": text(cxText(in.Content))}
	case in.Type == "reasoning":
		s := cxText(in.Summary)
		if s == "" {
			s = cxText(in.Content)
		}
		if s == "" {
			return it, false, nil
		}
		it.kind = format.KindReasoning
		it.payload = map[string]any{"content": text(s)}
	case cxOutputs[in.Type]:
		if answers[cxCallID(in)] == r {
			return it, false, nil
		}
		out, _, _ := cxOutput(in.Output)
		it.kind = format.KindObservation
		it.payload = map[string]any{"content": text(out)}
		it.mark = map[string]any{"call_id": cxCallID(in)}
	default:
		if _, isCall := cxCalls[in.Type]; !isCall {
			return it, false, nil
		}
		if err := f.cxCall(&it, r, answers, exits); err != nil {
			return it, false, err
		}
	}
	return it, true, nil
}

// cxCall fills it with a call: a tool_call of the vocabulary's tool for
// its name (cxTools; other for a name it has none for), the name and its
// arguments as intent — a function's parsed arguments, a custom tool's
// input text under "input", a shell's or web search's action — and the
// output answering it as outcome.
func (f *File) cxCall(it *item, r *cxRow, answers map[string]*cxRow, exits map[string]int64) error {
	in := r.item
	name := in.Name
	if name == "" {
		name = cxCalls[in.Type]
	}
	args := map[string]any{}
	switch in.Type {
	case "function_call":
		if err := strictjson.Unmarshal([]byte(in.Arguments), &args); err != nil || args == nil {
			return f.fail("line", r.n, "the arguments of function call %q are not a JSON object: %v", name, err)
		}
	case "custom_tool_call":
		args["input"] = in.Input
	default:
		if len(in.Action) > 0 && strictjson.Unmarshal(in.Action, &args) != nil {
			return f.fail("line", r.n, "the action of %s is %s, want an object", in.Type, jsonShape(in.Action))
		}
	}
	tool, ok := cxTools[name]
	if !ok {
		tool = ToolOther
	}
	it.tool, it.source, it.kind = tool, name, format.KindToolCall
	it.payload = map[string]any{"intent": map[string]any{"tool": name, "args": args}}
	id := cxCallID(in)
	it.mark = map[string]any{"call_id": id}
	o, answered := answers[id]
	if !answered {
		return nil
	}
	out, exitCode, failed := cxOutput(o.item.Output)
	if c, ok := exits[id]; ok && exitCode == nil {
		exitCode = &c
	}
	it.payload["execution"] = outcome(out, exitCode, failed, "", it.eventTime, o.time)
	it.mark["output_line"], it.mark["output_raw"] = o.n, json.RawMessage(o.text)
	return nil
}

// cxText joins the texts of a list of content parts (input_text,
// output_text, summary_text, …); "" for none or another value.
func cxText(raw json.RawMessage) string {
	var parts []struct {
		Text string `json:"text"`
	}
	if len(raw) == 0 || strictjson.Unmarshal(raw, &parts) != nil {
		return ""
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// cxHeadRe finds the exit code in the head of a shell call's text output
// ("Exit code: 1", "Process exited with code 1"), before its "Output:".
var cxHeadRe = regexp.MustCompile(`(?m)^(?:Exit code:|Process exited with code) (-?\d+)\s*$`)

// cxOutput reads a call's output: a string — JSON of the output and its
// metadata (exit_code), or text whose head may give the exit code — an
// object of content and success (false: failed), or a list of content
// parts.
func cxOutput(raw json.RawMessage) (out string, exitCode *int64, failed bool) {
	var s string
	if strictjson.Unmarshal(raw, &s) != nil {
		var obj struct {
			Content string `json:"content"`
			Success *bool  `json:"success"`
		}
		if strictjson.Unmarshal(raw, &obj) == nil {
			return obj.Content, nil, obj.Success != nil && !*obj.Success
		}
		return cxText(raw), nil, false
	}
	var shell struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int64 `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(s, "{") && strictjson.Unmarshal([]byte(s), &shell) == nil && shell.Output != nil {
		return *shell.Output, shell.Metadata.ExitCode, false
	}
	head, _, found := strings.Cut(s, "\nOutput:\n")
	if !found {
		head, _, _ = strings.Cut(s, "\n") // only a first line can be a head
	}
	if m := cxHeadRe.FindStringSubmatch(head); m != nil {
		if c, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			return s, &c, false
		}
	}
	return s, nil, false
}
