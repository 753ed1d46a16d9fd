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
	f.Add(uint8(1), "rec", []byte("0123456789abcdef"), uint64(0), uint64(1), "", int64(0), "shell", uint8(1))
	f.Add(uint8(1), "r", []byte{}, uint64(1<<40), uint64(300), "g1", int64(-5), "t", uint8(6))
	f.Fuzz(func(t *testing.T, ver uint8, rec string, sess []byte, seq, clock uint64, group string, tm int64, tool string, kind uint8) {
		e := Envelope{Version: ver, Recorder: rec, Seq: seq, Clock: clock, Group: group, Time: tm, Tool: tool, Kind: Kind(kind)}
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
