package recorder

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
		err := decodeStrict("record", b, 1<<30, &strict)
		if ok != (err == nil) {
			t.Fatalf("fast parser ok=%v, strict decoder err=%v", ok, err)
		}
		if ok && fast != strict {
			t.Fatalf("parsers disagree:\nfast   %+v\nstrict %+v", fast, strict)
		}
	})
}
