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

// Event JSON is read as every reader reads it (docs/SPEC.md, "Reading
// JSON"): a name given twice, or in two spellings equal under case folding,
// is refused at any depth, with the object's path. Before, the last one won
// (in payload.intent.args and payload.ext, which no schema checks).
func TestEventJSONRefusesEqualNames(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"tool":"x","tool":"y","kind":"tool_call","payload":{}}`, `duplicate key "tool" in the top-level object`},
		{`{"tool":"x","kind":"tool_call","payload":{"intent":{"tool":"sh","args":{"cmd":"ls","CMD":"rm -rf /"}}}}`,
			`keys "cmd" and "CMD" in the object at "/payload/intent/args" are equal under case folding`},
		{`{"tool":"x","kind":"tool_call","payload":{"ext":{"a":[{"k":1,"\u212a":2}]}}}`,
			`keys "k" and "` + "\u212a" + `" in the object at "/payload/ext/a/0" are equal under case folding`},
		{`{"tool":"x","kind":"tool_call","payload":{"intent":{"tool":"a"},"intent":{"tool":"b"}}}`, `duplicate key "intent"`},
		{"{\"tool\":\"x\xff\",\"kind\":\"tool_call\",\"payload\":{}}", `invalid UTF-8`},
	} {
		_, err := format.ParseEventJSON([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant …%s…", c.in, err, c.want)
		}
	}
}

// Every refusal names what is wrong and where: the field's full path, the
// names a field or enumeration accepts, the type a value must have.
func TestEventJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"tool":"x","kind":"llm_response","payload":{}}`,
			`kind: unknown event kind "llm_response" (want one of tool_call, approval, delegation, chain_tx, policy, observation, response, reasoning)`},
		{`{"tool":"x","kind":"tool_call","payload":{"intent":{"tool":"sh","cmd":"ls"}}}`,
			`payload.intent.cmd: unknown field (want one of tool, args, chain_id, target, value, data)`},
		{`{"tool":"x","kind":"tool_call","payload":{},"extra":1}`,
			`extra: unknown field (want one of tool, kind, group, after, event_time, run, id, payload)`},
		{`{"tool":"x","kind":"tool_call","payload":{"effects":[{"file_write":{"path":"a"}},{"file_write":{"pth":"b"}}]}}`,
			`payload.effects.1.file_write.pth: unknown field (want one of path, before, after)`},
		{`{"tool":"x","kind":"tool_call","payload":{"intent":{"tool":3}}}`,
			`payload.intent.tool: want a string, got the number 3`},
		{`{"tool":"x","kind":"tool_call","payload":{"execution":{"status":"ok","exit_code":"0"}}}`,
			`payload.execution.exit_code: want an integer, got the string "0"`},
		{`{"tool":"x","kind":"tool_call","payload":{"execution":{"status":"ok","start":1.5}}}`,
			`payload.execution.start: want an integer of at most 64 bits, got 1.5`},
		{`{"tool":"x","kind":"tool_call","after":-1,"payload":{}}`,
			`after: want an unsigned integer of at most 64 bits, got -1`},
		{`{"tool":"x","kind":"tool_call","payload":{"effects":{"file_write":{}}}}`,
			`payload.effects: want a list, got an object`},
		{`{"tool":"x","kind":"tool_call","payload":{"context":{"parents":[1,"2"]}}}`,
			`payload.context.parents.1: want an unsigned integer, got the string "2"`},
		{`{"tool":"x","kind":"tool_call","payload":{"execution":{"status":"fine"}}}`,
			`payload.execution.status: unknown status "fine" (want one of ok, failed, denied, reverted)`},
		{`{"tool":"x","kind":"policy","payload":{"policy":{"policy_id":"p","decision":"maybe"}}}`,
			`payload.policy.decision: unknown decision "maybe" (want one of allow, deny, ask)`},
		{`{"tool":"x","kind":"tool_call","payload":{"execution":{"status":"ok","output_digest":"0xzz"}}}`,
			`payload.execution.output_digest: `},
		{`{"tool":"x","kind":"tool_call","payload":"none"}`, `payload: want an object, got the string "none"`},
		{`["tool"]`, `want an object, got a list`},
		{`null`, `want an object, got null`},
		{``, `empty input: want one event object`},
		{`{"tool":"x",`, `unexpected EOF`},
		{`{"tool":"x" "kind":1}`, `(at byte 13)`},
		{`{"kind":"tool_call","payload":{}}`, `tool is required`},
		{`{"tool":"x","payload":{}}`, `kind is required (one of tool_call, approval, delegation, chain_tx, policy, observation, response, reasoning)`},
		{`{"tool":"x","kind":"tool_call","payload":{}} {}`, `data after the event object`},
		{`{"tool":"x","kind":"tool_call","payload":{"ext":{"a":[1,2,1e999]}}}`, `payload.ext.a.2: number 1e999 is out of the range of a float64`},
		{`{"tool":"x","kind":"chain_tx","payload":{"intent":{"tool":"t","target":"0x01"}}}`, `payload: format: invalid payload: intent: target is 1 bytes, want 20`},
	} {
		_, err := format.ParseEventJSON([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant …%s…", c.in, err, c.want)
		}
	}
}

// TestEventJSONIntegerBeyond64Bits: an integer literal that no CBOR
// integer holds is refused, naming its path, not rounded to the nearest
// float64 (2^64 would be recorded as 18446744073709551616.0, 2^64+1 as the
// same); integers at the limits and non-integers keep their value.
func TestEventJSONIntegerBeyond64Bits(t *testing.T) {
	for _, c := range []struct{ num, path string }{
		{"18446744073709551616", "payload.intent.args.a"},
		{"18446744073709551617", "payload.intent.args.a"},
		{"-9223372036854775809", "payload.intent.args.a"},
		{"123456789012345678901234567890", "payload.intent.args.a"},
	} {
		in := `{"tool":"x","kind":"tool_call","payload":{"intent":{"tool":"x","args":{"a":` + c.num + `}}}}`
		_, err := format.ParseEventJSON([]byte(in))
		if err == nil || !strings.Contains(err.Error(), c.path+": number ") || !strings.Contains(err.Error(), "exceeds 64 bits; send it as a string") {
			t.Errorf("%s: got %v, want a refusal naming %s", c.num, err, c.path)
		}
	}
	_, err := format.ParseEventJSON([]byte(`{"tool":"x","kind":"tool_call","payload":{"ext":{"l":[1,{"b":-18446744073709551615}]}}}`))
	if err == nil || !strings.Contains(err.Error(), "payload.ext.l.1.b: number -18446744073709551615 exceeds 64 bits") {
		t.Errorf("nested: got %v", err)
	}
	ev, err := format.ParseEventJSON([]byte(`{"tool":"x","kind":"tool_call","payload":{"intent":{"tool":"x","args":{"max":18446744073709551615,"min":-9223372036854775808,"big":1e30,"f":18446744073709551616.0}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	args := ev.Payload.Intent.Args
	if args["max"] != uint64(1<<64-1) || args["min"] != int64(-1<<63) || args["big"] != 1e30 || args["f"] != float64(1<<64) {
		t.Fatalf("args %#v", args)
	}
}

// No input makes the parser panic; what it accepts is a valid event that
// encodes.
func FuzzParseEventJSON(f *testing.F) {
	for _, ev := range workload.Generate(7, 40) {
		j, err := json.Marshal(ev)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(j)
	}
	for _, s := range []string{`{}`, `null`, `[]`, `{"tool":"x","kind":"tool_call","payload":{"ext":{"a":[1,{"b":null}]}}}`,
		`{"tool":"x","kind":"tool_call","payload":{"effects":[null,{"file_write":null}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := format.ParseEventJSON(b)
		if err != nil {
			return
		}
		if _, err := format.EncodePayload(&ev.Payload); err != nil {
			t.Fatalf("accepted %s but it does not encode: %v", b, err)
		}
	})
}

// The fields of version 3 parse, and a text map given as its text alone
// gets its size, and its digest instead of a text over MaxText.
func TestParseEventJSONVersion3(t *testing.T) {
	long := strings.Repeat("y", format.MaxText+1)
	ev, err := format.ParseEventJSON([]byte(`{"tool":"llm","kind":"response","run":"r1","id":"s2","event_time":-7,
		"payload":{"content":{"text":"hé"},"context":{"parent_ids":["s1"]},"execution":{"status":"ok","output":{"text":"` + long + `"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != format.KindResponse || ev.Run != "r1" || ev.ID != "s2" || ev.EventTime != -7 || ev.Payload.Context.ParentIDs[0] != "s1" {
		t.Fatalf("parsed %+v", ev)
	}
	if c := ev.Payload.Content; c.Text != "hé" || c.Size != 3 {
		t.Errorf("content %+v, want the text with size 3", c)
	}
	if o := ev.Payload.Execution.Output; o.Text != "" || o.Size != uint64(len(long)) || len(o.Digest) != 32 {
		t.Errorf("output over the limit: %+v, want digest and size", o)
	}
	for in, want := range map[string]string{
		`{"tool":"x","kind":"response","payload":{"content":{"text":"ab","size":3}}}`:                  "content: size is 3, the text is 2 bytes",
		`{"tool":"x","kind":"response","run":"` + strings.Repeat("r", 257) + `","payload":{}}`:         "run is 257 bytes, limit 256",
		`{"tool":"x","kind":"response","payload":{"context":{"parent_ids":[""]}}}`:                     "parent id 0 is 0 bytes",
		`{"tool":"x","kind":"response","payload":{"content":{"digest":"0x01","size":9}}}`:              "digest is 1 bytes, want 32",
		`{"tool":"x","kind":"tool_call","payload":{"execution":{"status":"ok","output":{"txt":"a"}}}}`: "payload.execution.output.txt: unknown field (want one of text, digest, size)",
	} {
		if _, err := format.ParseEventJSON([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.80s: got %v, want …%s…", in, err, want)
		}
	}
}
