package format

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzEnvelopeParsers checks the single-pass record parser against the
// reflective strict decoder: same accept/reject, same values.
func FuzzEnvelopeParsers(f *testing.F) {
	files, _ := filepath.Glob("../fixtures/vectors/encoding/record-*.json")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		var v struct{ CBOR string }
		json.Unmarshal(b, &v)
		raw, _ := hex.DecodeString(v.CBOR)
		f.Add(raw)
	}
	e := Envelope{Version: 1, Recorder: "r", Tool: "t", Kind: KindToolCall, Seq: 1 << 40, Clock: 300, Time: -5}
	b, _ := EncodeEnvelope(&e)
	f.Add(b)
	e3 := Envelope{Version: 3, Recorder: "r", Tool: "t", Kind: KindReasoning, Group: "g", EventTime: -1, ID: "x"}
	b, _ = EncodeEnvelope(&e3)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := parseEnvelope(b)
		var strict Envelope
		err := decodeStrict("record", NewDecoder(Limits{Size: 1 << 30, Nesting: maxNesting, Items: maxItems}), b, &strict)
		if ok != (err == nil) {
			t.Fatalf("fast parser ok=%v, strict decoder err=%v", ok, err)
		}
		if ok && fast != strict {
			t.Fatalf("parsers disagree:\nfast   %+v\nstrict %+v", fast, strict)
		}
	})
}

// FuzzEnvelopeEncoders checks the hand-written record encoder against the
// reflective one, byte for byte, over arbitrary field values.
func FuzzEnvelopeEncoders(f *testing.F) {
	f.Add(uint8(1), "rec", []byte("0123456789abcdef"), uint64(0), uint64(1), "", int64(0), "shell", uint8(1), int64(0), "", "")
	f.Add(uint8(1), "r", []byte{}, uint64(1<<40), uint64(300), "g1", int64(-5), "t", uint8(6), int64(0), "", "")
	f.Add(uint8(3), "r", []byte{}, uint64(7), uint64(8), "", int64(5), "llm", uint8(7), int64(-3), "run-1", "span-1")
	f.Fuzz(func(t *testing.T, ver uint8, rec string, sess []byte, seq, clock uint64, group string, tm int64, tool string, kind uint8, evTime int64, run, id string) {
		e := Envelope{Version: ver, Recorder: rec, Seq: seq, Clock: clock, Group: group, Time: tm, Tool: tool, Kind: Kind(kind), EventTime: evTime, Run: run, ID: id}
		copy(e.Session[:], sess)
		copy(e.Payload[:], sess)
		copy(e.Prev[:], rec)
		want, err := encMode.Marshal(&e)
		if err != nil {
			return
		}
		if got := appendEnvelope(nil, &e); string(got) != string(want) {
			t.Fatalf("encoders differ:\n got %x\nwant %x", got, want)
		}
	})
}

// A caller's hint never lets invalid UTF-8 through.
func TestDecodeIntoHintKeepsUTF8Check(t *testing.T) {
	e := Envelope{Version: 1, Recorder: "r\xff", Tool: "t", Kind: KindToolCall}
	b := appendEnvelope(nil, &e)
	hint := Envelope{Recorder: "r\xff"}
	if err := DecodeEnvelopeInto(b, &hint); err == nil {
		t.Fatal("invalid UTF-8 accepted through the hint")
	}
}

// FuzzPayloadEncoders checks the hand-written payload encoder against the
// reflective one, byte for byte, and the write path's checks (validate
// without free-form values, then free as it encodes them) against
// Validate, over every payload the lenient decoder makes of arbitrary
// bytes, valid or not.
func FuzzPayloadEncoders(f *testing.F) {
	files, _ := filepath.Glob("../fixtures/vectors/encoding/payload-*.json")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		var v struct{ CBOR string }
		json.Unmarshal(b, &v)
		raw, _ := hex.DecodeString(v.CBOR)
		f.Add(raw)
	}
	lenient := NewDecoder(Limits{Size: MaxPayloadSize, Nesting: maxNesting, Items: maxItems})
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Payload
		if lenient.Unmarshal(b, &p) != nil {
			return
		}
		checkPayloadEncoders(t, &p)
	})
}

func checkPayloadEncoders(t *testing.T, p *Payload) {
	t.Helper()
	verr := p.Validate()
	got, gerr := appendPayload([]byte{0xff}, p) // after other bytes, as in a buffer
	if written := p.validate(false) == nil && gerr == nil; written != (verr == nil) {
		t.Fatalf("the write path accepts the payload: %v (%v); Validate: %v", written, gerr, verr)
	}
	if verr != nil {
		return
	}
	want, werr := encMode.Marshal(p)
	if werr != nil || string(got[1:]) != string(want) {
		t.Fatalf("encoders differ:\n got %x\nwant %x (%v)", got[1:], want, werr)
	}
}

// TestPayloadEncoderGoValues covers the Go values no decoder produces:
// other integer and float widths, typed slices and maps, pointers, nil
// containers, and a value the reflective encoder refuses.
func TestPayloadEncoderGoValues(t *testing.T) {
	one, zero := int64(1), uint64(0)
	for _, v := range []any{
		nil, true, false, "", "text", uint64(1 << 63), int64(-1 << 63), int(-24), int32(-25), uint8(255),
		0.0, 1.5, -0.0, 65504.0, 1e300, float32(0.1), []byte(nil), []byte{}, []byte{1, 2},
		[]any(nil), []any{}, []any{uint64(1), "a", []any{nil}}, map[string]any(nil), map[string]any{},
		map[string]any{"bb": 1, "a": 2, "c": 3, "aa": map[string]any{"z": []byte{0}, "": nil}},
		map[string]string{"k": "v"}, []string{"x", "y"}, [2]uint16{1, 2}, &one, (*int64)(nil),
		map[string]any{"ch": make(chan int)},
	} {
		checkPayloadEncoders(t, &Payload{Ext: map[string]any{"v": v}})
	}
	big := map[string]any{}
	for i := range 40 {
		big[string(rune('a'+i%26))+string(make([]byte, i/26))] = i
	}
	exit := int64(0)
	checkPayloadEncoders(t, &Payload{
		Intent:     &Intent{Tool: "t", Args: big, ChainID: 1, Target: make(Bytes, 20), Value: Bytes{1}, Data: Bytes{}},
		Policy:     &PolicyEvaluation{PolicyID: "p", Decision: DecisionAsk, Rule: "r", Reasons: []string{"a", ""}, PDRHash: Bytes{9}},
		Approval:   &Approval{Approver: "a", Decision: DecisionAllow},
		Execution:  &Execution{Status: StatusFailed, Start: -1, End: 1 << 40, ExitCode: &exit, Error: "e", Block: 7},
		Effects:    []Effect{{}, {FileWrite: &FileWrite{Path: "p", After: Bytes{1}}}, {APICall: &APICall{Method: "GET", URL: "u", Status: -3}}, {DBChange: &DBChange{Database: "d", Operation: "o", Rows: 300}}, {ChainState: &ChainState{ChainID: 1}}, {ChainLog: &ChainLog{Address: Bytes{}, Topics: []Bytes{nil, {}}}, FileWrite: &FileWrite{}}},
		Context:    &ContextProvenance{Inputs: []Input{{Source: "s"}, {Digest: Bytes{}}}, Parents: []uint64{0, 1 << 33}},
		Code:       &CodeProvenance{},
		Delegation: &DelegationProvenance{Delegator: "x", Delegate: "y", Scope: []string{"s"}, Token: Bytes{1}, Parent: &zero},
	})
}
