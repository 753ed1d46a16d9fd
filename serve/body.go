package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
)

// EventError is a request body that holds an event the daemon refuses.
// Item is the event's index in a batch (-1 for POST /v1/events), Line its
// line in a JSON Lines batch (0 otherwise); Err says what is wrong, with the
// field when the event JSON names one.
type EventError struct {
	Item int
	Line int
	Err  error
}

func (e *EventError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("batch item %d (line %d): %v", e.Item, e.Line, e.Err)
	case e.Item >= 0:
		return fmt.Sprintf("batch item %d: %v", e.Item, e.Err)
	}
	return e.Err.Error()
}

func (e *EventError) Unwrap() error { return e.Err }

// errEmptyBatch is a batch without events.
var errEmptyBatch = errors.New("the batch holds no event (want a JSON array of events, or one event per line)")

// ParseEvent parses the body of POST /v1/events: one event in the event
// JSON of docs/SPEC.md "Event JSON", parsed as afr record parses a line
// (format.ParseEventJSON). Surrounding white space is allowed.
func ParseEvent(body []byte) (format.Event, error) {
	ev, err := format.ParseEventJSON(strictjson.TrimSpace(body))
	if err != nil {
		return format.Event{}, &EventError{Item: -1, Err: err}
	}
	return ev, nil
}

// ParseBatch parses the body of POST /v1/events:batch: a JSON array of
// events, or JSON Lines (one event per line; blank lines are skipped). Every
// item is parsed before any is returned: the first bad one is an
// *EventError naming its index (and line), so a batch is refused as a whole.
func ParseBatch(body []byte) ([]format.Event, error) {
	body = strictjson.TrimSpace(body)
	var items [][]byte
	var lines []int
	if len(body) > 0 && body[0] == '[' {
		var raw []json.RawMessage
		if err := strictjson.Unmarshal(body, &raw); err != nil {
			return nil, &EventError{Item: -1, Err: fmt.Errorf("the batch is not a JSON array of events: %w", err)}
		}
		for _, r := range raw {
			items = append(items, r)
		}
	} else {
		for i, l := range bytes.Split(body, []byte("\n")) {
			if !format.BlankLine(l) {
				items, lines = append(items, l), append(lines, i+1)
			}
		}
	}
	if len(items) == 0 {
		return nil, &EventError{Item: -1, Err: errEmptyBatch}
	}
	evs := make([]format.Event, len(items))
	for i, b := range items {
		ev, err := format.ParseEventJSON(b)
		if err != nil {
			e := &EventError{Item: i, Err: err}
			if lines != nil {
				e.Line = lines[i]
			}
			return nil, e
		}
		evs[i] = ev
	}
	return evs, nil
}
