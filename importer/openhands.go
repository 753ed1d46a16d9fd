package importer

import (
	"encoding/json"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// An OpenHands event stream is a JSON array of events, each with an id, a
// source (user, agent, environment) and either an action with its args or
// an observation with its content, extras and the cause: the id of the
// action it answers.

type ohEvent struct {
	ID          *int64          `json:"id"`
	Source      string          `json:"source"`
	Action      string          `json:"action"`
	Args        map[string]any  `json:"args"`
	Observation string          `json:"observation"`
	Cause       *int64          `json:"cause"`
	Content     json.RawMessage `json:"content"`
}

// ohCategory is the category of an OpenHands action type; any other
// action (messages, finishing, thinking, browsing, delegating) is other.
var ohCategory = map[string]string{
	"run": "shell", "run_ipython": "shell",
	"edit": "edit", "write": "edit",
	"read": "read",
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
	byID := map[int64]int{} // OpenHands event id → index into f.Events
	for i, raw := range stream {
		var e ohEvent
		if err := strictjson.Unmarshal(raw, &e); err != nil {
			return f.fail("event", i, "not an OpenHands event: %v", err)
		}
		if e.ID == nil {
			return f.fail("event", i, "no \"id\": not an OpenHands event")
		}
		if _, dup := byID[*e.ID]; dup {
			return f.fail("event", i, "id %d was used by an earlier event", *e.ID)
		}
		var causes []int
		if e.Cause != nil {
			c, ok := byID[*e.Cause]
			if !ok {
				return f.fail("event", i, "its cause %d is no earlier event of the stream", *e.Cause)
			}
			causes = []int{c}
		}
		byID[*e.ID] = len(f.Events)
		var err error
		switch {
		case e.Action != "" && e.Observation != "":
			return f.fail("event", i, "both an action (%q) and an observation (%q): unknown form", e.Action, e.Observation)
		case e.Action != "" && e.Source == "user":
			// What the user said is an input to the agent.
			err = f.add(i, "stream", raw, e.Action, format.KindObservation, "", nil, causes...)
		case e.Action != "":
			args := map[string]any{}
			for k, v := range e.Args {
				if k != "thought" { // the model's reasoning, never an intent
					args[k] = v
				}
			}
			cat, ok := ohCategory[e.Action]
			if !ok {
				cat = "other"
			}
			err = f.add(i, "stream", raw, e.Action, format.KindToolCall, cat,
				map[string]any{"intent": map[string]any{"tool": e.Action, "args": args}}, causes...)
		case e.Observation != "":
			err = f.add(i, "stream", raw, e.Observation, format.KindObservation, "", nil, causes...)
		default:
			return f.fail("event", i, "neither an \"action\" nor an \"observation\": unknown form")
		}
		if err != nil {
			return err
		}
	}
	return nil
}
