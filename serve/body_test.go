package serve_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/serve"
)

// A request body is read as every reader reads it (docs/SPEC.md, "Reading
// JSON"): an event with a name given twice, or in two spellings equal under
// case folding, is refused, naming the object. Before, the last one won:
// the log recorded "rm -rf /" for an agent whose own JSON library read "ls".
func TestBodyRefusesEqualNames(t *testing.T) {
	dup := `{"tool":"sh","kind":"tool_call","payload":{"intent":{"tool":"sh","args":{"cmd":"ls","cmd":"rm -rf /"}}}}`
	folded := `{"tool":"sh","kind":"tool_call","payload":{"intent":{"tool":"sh","args":{"cmd":"ls","CMD":"rm -rf /"}}}}`
	good := `{"tool":"sh","kind":"tool_call","payload":{}}`
	if _, err := serve.ParseEvent([]byte(dup)); err == nil || !strings.Contains(err.Error(), `duplicate key "cmd"`) {
		t.Errorf("POST /v1/events: %v, want a refusal naming the key", err)
	}
	if _, err := serve.ParseBatch([]byte("[" + good + "," + folded + "]")); err == nil || !strings.Contains(err.Error(), `in the object at "/1/payload/intent/args" are equal under case folding`) {
		t.Errorf("JSON array batch: %v, want a refusal naming the object", err)
	}
	_, err := serve.ParseBatch([]byte(good + "\n" + folded + "\n"))
	var ee *serve.EventError
	if !errors.As(err, &ee) || ee.Item != 1 || !strings.Contains(err.Error(), "equal under case folding") {
		t.Errorf("JSON Lines batch: %v, want an *EventError for item 1", err)
	}
}
