package importer

import (
	"encoding/json"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// An OpenHands event stream is a JSON array of events, each with an id, a
// timestamp, a source (user, agent, environment) and either an action with
// its args or an observation with its content, extras and the cause: the
// id of the action it answers. An action the model chose carries
// tool_call_metadata: the model's function name and its response, whose
// tool call with that id holds the function's arguments.

type ohEvent struct {
	ID          *int64          `json:"id"`
	Timestamp   string          `json:"timestamp"`
	Source      string          `json:"source"`
	Message     string          `json:"message"`
	Action      string          `json:"action"`
	Args        map[string]any  `json:"args"`
	Observation string          `json:"observation"`
	Cause       *int64          `json:"cause"`
	Content     json.RawMessage `json:"content"`
	Extras      struct {
		Metadata struct {
			ExitCode *int64 `json:"exit_code"`
		} `json:"metadata"`
	} `json:"extras"`
	Meta *struct {
		FunctionName  string `json:"function_name"`
		ToolCallID    string `json:"tool_call_id"`
		ModelResponse struct {
			Choices []struct {
				Message struct {
					ToolCalls []sweToolCall `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		} `json:"model_response"`
	} `json:"tool_call_metadata"`
}

func (f *File) openHands(b []byte) error {
	if err := strictjson.Check(b); err != nil {
		return f.syntaxError(b, err)
	}
	var stream []json.RawMessage
	if shape := jsonShape(b); shape != "an array" || strictjson.Unmarshal(b, &stream) != nil {
		e := &ShapeError{Shape: shape, Want: "an OpenHands event stream (an array of events)"}
		if shape == "an object" {
			e.Other = "swe-agent"
		}
		return &StepError{File: f.Path, Step: -1, Err: e}
	}
	if len(stream) == 0 {
		return f.fail("", -1, "an empty event stream")
	}
	f.Run = runOfFile(f.Path)
	evs := make([]ohEvent, len(stream))
	at := map[int64]int{}   // OpenHands event id → index into stream
	answer := map[int]int{} // an agent action → the first observation caused by it
	for i, raw := range stream {
		e := &evs[i]
		if err := strictjson.Unmarshal(raw, e); err != nil {
			return f.fail("event", i, "not an OpenHands event: %v", err)
		}
		if e.ID == nil {
			return f.fail("event", i, "no \"id\": not an OpenHands event")
		}
		if _, dup := at[*e.ID]; dup {
			return f.fail("event", i, "id %d was used by an earlier event", *e.ID)
		}
		if e.Action != "" && e.Observation != "" {
			return f.fail("event", i, "both an action (%q) and an observation (%q): unknown form", e.Action, e.Observation)
		}
		if e.Action == "" && e.Observation == "" {
			return f.fail("event", i, "neither an \"action\" nor an \"observation\": unknown form")
		}
		if e.Cause != nil {
			c, ok := at[*e.Cause]
			if !ok {
				return f.fail("event", i, "its cause %d is no earlier event of the stream", *e.Cause)
			}
			if _, answered := answer[c]; !answered && e.Observation != "" && isAgentAction(evs[c]) {
				answer[c] = i
			}
		}
		at[*e.ID] = i
	}
	byIndex := map[int]int{} // index into stream → index into f.Events
	merged := map[int]bool{} // observations merged into their action's event
	for _, o := range answer {
		merged[o] = true
	}
	for i, raw := range stream {
		e := evs[i]
		if merged[i] {
			byIndex[i] = byIndex[at[*e.Cause]]
			continue
		}
		when, err := isoTime(e.Timestamp)
		if err != nil {
			return f.fail("event", i, "%v", err)
		}
		it := item{step: i, form: "stream", raw: raw, eventTime: when}
		if e.Cause != nil {
			it.causes = []int{byIndex[at[*e.Cause]]}
		}
		switch {
		case e.Action == "message":
			// What the user said is an input to the agent; what the agent
			// said, its model's response.
			it.tool, it.source, it.kind = ToolMessage, e.Action, format.KindResponse
			if e.Source == "user" {
				it.kind = format.KindObservation
			}
			s, _ := e.Args["content"].(string)
			if s == "" {
				s = e.Message
			}
			it.payload = map[string]any{"content": text(s)}
		case e.Action != "" && e.Source == "user":
			it.tool, it.source, it.kind = ToolMessage, e.Action, format.KindObservation
			it.payload = map[string]any{"content": text(e.Message)}
		case e.Action != "":
			if err := f.ohAction(&it, e); err != nil {
				return err
			}
			if o, ok := answer[i]; ok {
				if err := f.ohOutcome(&it, evs[o], o, stream[o]); err != nil {
					return err
				}
			}
		default:
			it.tool, it.source, it.kind = ToolMessage, e.Observation, format.KindObservation
			it.payload = map[string]any{"content": text(ohContent(e))}
		}
		byIndex[i] = len(f.Events)
		if err := f.add(it); err != nil {
			return err
		}
	}
	return nil
}

// isAgentAction tells an action that becomes a tool_call: not a message,
// not the user's.
func isAgentAction(e ohEvent) bool {
	return e.Action != "" && e.Action != "message" && e.Source != "user"
}

// ohAction fills it with an agent action: a tool_call of the vocabulary's
// tool for the action type, whose intent is the model's function call
// (str_replace_editor, execute_bash, … and its arguments) when the stream
// has it, else the action type and its arguments; the model's thought is
// the event's content, never an intent.
func (f *File) ohAction(it *item, e ohEvent) error {
	tool, ok := ohTools[e.Action]
	if !ok {
		tool = ToolOther
	}
	args := map[string]any{}
	for k, v := range e.Args {
		if k != "thought" {
			args[k] = v
		}
	}
	intent := map[string]any{"tool": e.Action, "args": args}
	it.source = e.Action
	if m := e.Meta; m != nil && m.FunctionName != "" {
		it.source = m.FunctionName
		intent["tool"] = m.FunctionName
		for _, c := range m.ModelResponse.Choices {
			for _, call := range c.Message.ToolCalls {
				if call.ID != m.ToolCallID || call.Function.Name != m.FunctionName {
					continue
				}
				var a map[string]any
				if err := strictjson.Unmarshal([]byte(call.Function.Arguments), &a); err != nil {
					return f.fail("event", it.step, "the arguments of tool call %q are not a JSON object: %v", call.ID, err)
				}
				if a != nil {
					intent["args"] = a
					it.mark = map[string]any{"args": args}
				}
			}
		}
	}
	it.tool, it.kind = tool, format.KindToolCall
	it.payload = map[string]any{"intent": intent}
	if thought, _ := e.Args["thought"].(string); thought != "" {
		it.payload["content"] = text(thought)
	}
	return nil
}

// ohOutcome adds to an action's item the observation o that answers it:
// what the tool returned, its exit code, failed for a non-zero exit code or
// an error observation, the action's and the observation's times as the
// execution's start and end. The observation as written goes into the
// import mark beside the action.
func (f *File) ohOutcome(it *item, o ohEvent, step int, raw json.RawMessage) error {
	end, err := isoTime(o.Timestamp)
	if err != nil {
		return f.fail("event", step, "%v", err)
	}
	failed, errText := o.Observation == "error", ""
	if failed {
		errText = ohContent(o)
	}
	it.payload["execution"] = outcome(ohContent(o), o.Extras.Metadata.ExitCode, failed, errText, it.eventTime, end)
	if it.mark == nil {
		it.mark = map[string]any{}
	}
	it.mark["observation_step"], it.mark["observation_raw"] = step, raw
	return nil
}

// ohContent is an observation's text: its content, or its message when the
// content is not a string.
func ohContent(e ohEvent) string {
	var s string
	if strictjson.Unmarshal(e.Content, &s) != nil {
		return e.Message
	}
	return s
}
