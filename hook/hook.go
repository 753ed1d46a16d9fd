// Package hook turns the JSON object a coding agent passes to a hook
// command on its standard input into the AFR event that records it
// (docs/HOOKS.md). Two agents' hook interfaces are read: Claude Code's
// (PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop)
// and Gemini CLI's (BeforeTool, AfterTool, BeforeAgent, AfterAgent); the
// event name in hook_event_name tells them apart.
//
// A tool call becomes two events, written by two hook processes that share
// nothing: an intent before the tool runs and its outcome after. They are
// tied by id (docs/SPEC.md, "Links by id"): the intent carries the call's
// id as its record id, in the run named by the agent's session id, and the
// outcome names it in context.parent_ids. Claude Code gives each call a
// tool_use_id; Gemini CLI gives none, so the id is then derived from the
// tool name and its arguments, which both hooks receive (CallID). Readers
// resolve the link; nothing is kept between the two processes.
//
// # Compatibility
//
// Payload fields this package does not read are ignored, so payloads of
// newer agent versions, which add fields, are still read. A payload is
// read as docs/SPEC.md, "Reading JSON" says (internal/strictjson).
package hook

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/go-json-experiment/json/jsontext"
)

// Agent names the coding agent whose hook interface a payload follows.
type Agent string

// The agents whose hook payloads are read.
const (
	ClaudeCode Agent = "claude-code"
	GeminiCLI  Agent = "gemini-cli"
)

// Reply is what a hook command writes on its standard output once the
// event is recorded: nothing for Claude Code (where the standard output of
// a UserPromptSubmit hook would be added to the model's context), and an
// empty JSON object for Gemini CLI, which parses the standard output of a
// hook that exits 0 as JSON.
func (a Agent) Reply() string {
	if a == GeminiCLI {
		return "{}\n"
	}
	return ""
}

// step is what an event does in a tool call or a turn.
type step int

const (
	intent   step = iota // before a tool runs
	outcome              // after it ran, or failed
	prompt               // the user's prompt
	response             // the end of the agent's turn
)

// events maps each hook event name read to its agent and step.
var events = map[string]struct {
	agent Agent
	step  step
}{
	"PreToolUse":         {ClaudeCode, intent},
	"PostToolUse":        {ClaudeCode, outcome},
	"PostToolUseFailure": {ClaudeCode, outcome},
	"UserPromptSubmit":   {ClaudeCode, prompt},
	"Stop":               {ClaudeCode, response},
	"BeforeTool":         {GeminiCLI, intent},
	"AfterTool":          {GeminiCLI, outcome},
	"BeforeAgent":        {GeminiCLI, prompt},
	"AfterAgent":         {GeminiCLI, response},
}

// eventNames lists the hook event names Parse reads, sorted.
func eventNames() []string {
	names := make([]string, 0, len(events))
	for n := range events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// payload holds the fields of either agent's hook input that are recorded.
type payload struct {
	SessionID      string         `json:"session_id"`
	TranscriptPath string         `json:"transcript_path"`
	Cwd            string         `json:"cwd"`
	PermissionMode string         `json:"permission_mode"`
	HookEventName  string         `json:"hook_event_name"`
	Timestamp      string         `json:"timestamp"` // Gemini CLI, ISO 8601
	ToolName       string         `json:"tool_name"`
	ToolInput      jsontext.Value `json:"tool_input"`
	ToolUseID      string         `json:"tool_use_id"`   // Claude Code
	ToolResponse   jsontext.Value `json:"tool_response"` // Gemini CLI: llmContent, returnDisplay, error
	Error          string         `json:"error"`         // Claude Code's PostToolUseFailure
	IsInterrupt    bool           `json:"is_interrupt"`
	Prompt         string         `json:"prompt"`
	PromptResponse string         `json:"prompt_response"` // Gemini CLI's AfterAgent
	StopHookActive bool           `json:"stop_hook_active"`
	// LastAssistantMessage is the model's last message at a Claude Code
	// Stop, in the versions that send it.
	LastAssistantMessage string `json:"last_assistant_message"`
}

// ToolOf is the event's tool for an agent's tool name: its name in the
// importers' vocabulary (importer.AgentTool: Bash, run_shell_command →
// shell, …), so that `afr query --tool shell` finds a Claude Code or
// Gemini CLI command as it finds an imported one, and importer.ToolOther
// for a tool the vocabulary has no entry for (an MCP tool,
// mcp__server__tool, say), as `afr import claude-code` records it. The
// agent's own name stays in intent.tool.
func ToolOf(name string) string {
	if t, ok := importer.AgentTool(name); ok {
		return t
	}
	return importer.ToolOther
}

// Tool names of the events that are not tool calls.
const (
	ToolPrompt   = "prompt" // the user's prompt (an observation)
	ToolResponse = "agent"  // the end of the agent's turn (a response)
)

// Parse reads one hook payload and returns the event that records it and
// the agent that sent it. It refuses, saying why, a payload that is not
// one JSON object, a hook event it does not record, an event without a
// session id or a tool event without a tool name, and an event that the
// recorder would refuse (format.ParseEventJSON: a limit broken).
func Parse(data []byte) (format.Event, Agent, error) {
	var p payload
	if err := strictjson.Unmarshal(data, &p); err != nil {
		return format.Event{}, "", fmt.Errorf("hook: the payload: %w", err)
	}
	ev, ok := events[p.HookEventName]
	if !ok {
		if p.HookEventName == "" {
			return format.Event{}, "", errors.New("hook: the payload has no hook_event_name (is this a hook's standard input?)")
		}
		return format.Event{}, "", fmt.Errorf("hook: hook event %q is not recorded (recorded: %s)", p.HookEventName, strings.Join(eventNames(), ", "))
	}
	if p.SessionID == "" {
		return format.Event{}, "", fmt.Errorf("hook: the %s payload has no session_id", p.HookEventName)
	}
	e := format.Event{Run: p.SessionID, Payload: format.Payload{Ext: map[string]any{"hook": p.ext(ev.agent)}}}
	if p.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, p.Timestamp)
		if err != nil {
			return format.Event{}, "", fmt.Errorf("hook: timestamp %q is not an ISO 8601 time: %w", p.Timestamp, err)
		}
		e.EventTime = t.UnixNano()
	}
	switch ev.step {
	case intent, outcome:
		if p.ToolName == "" {
			return format.Event{}, "", fmt.Errorf("hook: the %s payload has no tool_name", p.HookEventName)
		}
		args, err := p.args()
		if err != nil {
			return format.Event{}, "", err
		}
		id := p.ToolUseID
		if id == "" {
			id = CallID(p.ToolName, args)
		}
		e.Tool, e.Kind = ToolOf(p.ToolName), format.KindToolCall
		if ev.step == intent {
			e.ID = id
			e.Payload.Intent = &format.Intent{Tool: p.ToolName, Args: args}
			break
		}
		ex, err := p.execution()
		if err != nil {
			return format.Event{}, "", err
		}
		e.Payload.Execution = ex
		e.Payload.Context = &format.ContextProvenance{ParentIDs: []string{id}}
	case prompt:
		e.Tool, e.Kind = ToolPrompt, format.KindObservation
		e.Payload.Content = format.NewText([]byte(p.Prompt))
	case response:
		e.Tool, e.Kind = ToolResponse, format.KindResponse
		if text := cmp.Or(p.PromptResponse, p.LastAssistantMessage); text != "" {
			e.Payload.Content = format.NewText([]byte(text))
		}
	}
	// The event as a writer sends it must pass the recorder's parser: a
	// limit it breaks (a session id over 256 bytes, arguments too deep) is
	// refused here, before anything is sent.
	b, err := json.Marshal(e)
	if err != nil {
		return format.Event{}, "", fmt.Errorf("hook: the %s event: %w", p.HookEventName, err)
	}
	if e, err = format.ParseEventJSON(b); err != nil {
		return format.Event{}, "", fmt.Errorf("hook: the %s event cannot be recorded: %w", p.HookEventName, err)
	}
	return e, ev.agent, nil
}

// ext is the payload's ext "hook": which agent and hook event, and the
// context the agent gave that has no field of its own.
func (p *payload) ext(a Agent) map[string]any {
	m := map[string]any{"agent": string(a), "event": p.HookEventName}
	for k, v := range map[string]string{"cwd": p.Cwd, "transcript_path": p.TranscriptPath, "permission_mode": p.PermissionMode} {
		if v != "" {
			m[k] = v
		}
	}
	if p.IsInterrupt {
		m["is_interrupt"] = true
	}
	if p.StopHookActive {
		m["stop_hook_active"] = true
	}
	return m
}

// args is tool_input as the intent's arguments: an object's members, or
// any other value under "input".
func (p *payload) args() (map[string]any, error) {
	if len(p.ToolInput) == 0 || p.ToolInput.Kind() == 'n' {
		return nil, nil
	}
	v, err := strictjson.Value(p.ToolInput)
	if err != nil {
		return nil, fmt.Errorf("hook: tool_input: %w", err)
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	return map[string]any{"input": v}, nil
}

// execution is the outcome of the call: failed for Claude Code's
// PostToolUseFailure and for a Gemini CLI tool_response with an error,
// else ok; the output is what the tool returned (Gemini CLI's llmContent,
// the text sent to the model, or else the whole tool_response as JSON).
func (p *payload) execution() (*format.Execution, error) {
	ex := &format.Execution{Status: format.StatusOK}
	if p.HookEventName == "PostToolUseFailure" {
		ex.Status, ex.Error = format.StatusFailed, p.Error
		if ex.Error == "" {
			ex.Error = "the tool failed (the payload gives no error)"
		}
	}
	if len(p.ToolResponse) == 0 || p.ToolResponse.Kind() == 'n' {
		return ex, nil
	}
	var r struct {
		LLMContent jsontext.Value `json:"llmContent"`
		Error      jsontext.Value `json:"error"`
	}
	if p.ToolResponse.Kind() == '{' {
		if err := strictjson.Unmarshal(p.ToolResponse, &r); err != nil {
			return nil, fmt.Errorf("hook: tool_response: %w", err)
		}
	}
	if len(r.Error) > 0 && r.Error.Kind() != 'n' {
		ex.Status, ex.Error = format.StatusFailed, errorText(r.Error)
	}
	out := p.ToolResponse
	if p.HookEventName == "AfterTool" && len(r.LLMContent) > 0 {
		out = r.LLMContent
	}
	ex.Output = format.NewText(text(out))
	return ex, nil
}

// errorText is a tool_response error as text: a string as it is, an
// object's "message", else the compact JSON.
func errorText(v jsontext.Value) string {
	var s string
	if strictjson.Unmarshal(v, &s) == nil {
		return s
	}
	var m struct {
		Message string `json:"message"`
	}
	if strictjson.Unmarshal(v, &m) == nil && m.Message != "" {
		return m.Message
	}
	return string(text(v))
}

// text is a JSON string's content, or any other value's compact JSON.
func text(v jsontext.Value) []byte {
	var s string
	if strictjson.Unmarshal(v, &s) == nil {
		return []byte(s)
	}
	c := v.Clone()
	if c.Compact() != nil {
		return v
	}
	return c
}

// CallID is the id of a tool call whose agent gives it none: "call-" and
// the first 16 bytes, in hex, of the SHA-256 of the tool name, a zero byte
// and the arguments' JSON with sorted member names. The hook before the
// call and the hook after it compute the same id from the same tool_input;
// two calls with the same tool and arguments in one session share it (a
// reader then links the outcome to both intents, as docs/SPEC.md, "Links
// by id", says of an id carried by several events).
func CallID(tool string, args map[string]any) string {
	b, err := json.Marshal(args) // encoding/json sorts map keys
	if err != nil {
		// args came from JSON: it encodes again.
		panic("hook: " + err.Error())
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(b)
	return "call-" + hex.EncodeToString(h.Sum(nil)[:16])
}
