package serve_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/serve"
)

// FuzzParseBody feeds arbitrary request bodies to both routes' parsers.
// Neither panics; a refusal is an *serve.EventError; a single-line body
// that is not an array is one event for the batch route exactly when it is
// an event for POST /v1/events; an accepted array has one event per item.
func FuzzParseBody(f *testing.F) {
	for _, ev := range workload.Generate(1, 12) {
		b, err := json.Marshal(ev)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(append(append([]byte("["), b...), ']'))
		f.Add(append(append(b, '\n'), b...))
	}
	for _, s := range []string{"", "[]", "[1,", "\n\n", `{"tool":"shell","kind":"nope"}`, `{"tool":"x","kind":"tool_call","payload":{"intent":{"cmd":1}}}`, "[{}]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var ee *serve.EventError
		one, oneErr := serve.ParseEvent(bytes.Clone(body))
		if oneErr != nil && !errors.As(oneErr, &ee) {
			t.Fatalf("ParseEvent: %T %v, want *serve.EventError", oneErr, oneErr)
		}
		evs, err := serve.ParseBatch(bytes.Clone(body))
		if err != nil {
			if !errors.As(err, &ee) {
				t.Fatalf("ParseBatch: %T %v, want *serve.EventError", err, err)
			}
			return
		}
		trimmed := bytes.TrimSpace(body)
		if trimmed[0] == '[' {
			var items []json.RawMessage
			if json.Unmarshal(trimmed, &items) != nil || len(items) != len(evs) {
				t.Fatalf("array of %d items parsed as %d events", len(items), len(evs))
			}
			return
		}
		if !bytes.Contains(trimmed, []byte("\n")) {
			if oneErr != nil || len(evs) != 1 || one.Tool != evs[0].Tool || one.Kind != evs[0].Kind {
				t.Fatalf("one line: batch gives %d events, single gives %v", len(evs), oneErr)
			}
		}
	})
}
