package format_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

func TestParseEventJSON(t *testing.T) {
	ev, err := format.ParseEventJSON([]byte(`{"tool":"shell","kind":"tool_call","group":"g1",
		"payload":{"intent":{"tool":"shell","args":{"cmd":"ls","n":3,"neg":-2,"ratio":0.5,"list":[1,{"x":2}]}},
		"execution":{"status":"ok","exit_code":0,"output_digest":"0xabcd"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	args := ev.Payload.Intent.Args
	if args["n"] != uint64(3) || args["neg"] != int64(-2) || args["ratio"] != 0.5 {
		t.Fatalf("numbers not normalised: %#v", args)
	}
	if inner := args["list"].([]any)[1].(map[string]any); inner["x"] != uint64(2) {
		t.Fatalf("nested number not normalised: %#v", inner)
	}
	if !bytes.Equal(ev.Payload.Execution.OutputDigest, []byte{0xab, 0xcd}) || ev.Kind != format.KindToolCall {
		t.Fatalf("parsed %+v", ev)
	}
	for _, bad := range []string{
		`{"tool":"x","kind":"tool_call","payload":{},"extra":1}`,           // unknown field
		`{"tool":"x","kind":"nope","payload":{}}`,                          // unknown kind
		`{"kind":"tool_call","payload":{}}`,                                // no tool
		`{"tool":"x","kind":"tool_call","payload":{"intent":{"tol":"x"}}}`, // typo in a nested field
		`{"tool":"x","kind":"tool_call","payload":{}} {}`,                  // trailing data
		`{"tool":"x","kind":"tool_call","payload":{"execution":{"status":"fine"}}}`,
		`{"tool":"x","kind":"chain_tx","payload":{"intent":{"tool":"t","target":"0x01"}}}`,                                  // target not 20 bytes
		`{"tool":"x","kind":"chain_tx","payload":{"intent":{"tool":"t","value":"0x0001"}}}`,                                 // value with a leading zero
		`{"tool":"x","kind":"tool_call","payload":{"ext":{"a":` + strings.Repeat("[", 15) + strings.Repeat("]", 15) + `}}}`, // 17 levels
	} {
		if _, err := format.ParseEventJSON([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// Events survive JSON → event → CBOR unchanged: the workload's events,
// written as JSON and parsed back, encode to the same payload bytes.
func TestEventJSONRoundTrip(t *testing.T) {
	for i, ev := range workload.Generate(42, 300) {
		j, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		back, err := format.ParseEventJSON(j)
		if err != nil {
			t.Fatalf("event %d: %v\n%s", i, err, j)
		}
		a, _ := format.EncodePayload(&ev.Payload)
		b, _ := format.EncodePayload(&back.Payload)
		if !bytes.Equal(a, b) || back.Tool != ev.Tool || back.Kind != ev.Kind || back.Group != ev.Group {
			t.Fatalf("event %d changed through JSON:\n%s", i, j)
		}
	}
}
