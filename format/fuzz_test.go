package format_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentflightrecorder/afr/format"
)

// seedFuzz adds every encoding vector of the given type as a seed.
func seedFuzz(f *testing.F, typ string) {
	for _, raw := range loadVectors(f, "encoding") {
		var v encodingVector
		json.Unmarshal(raw, &v)
		if v.Type == typ {
			f.Add(unhex(f, v.CBOR))
		}
	}
}

// Every decoder must reject or round-trip byte for byte: accepted input is
// canonical by construction.
func FuzzDecodeEnvelope(f *testing.F) {
	seedFuzz(f, "record")
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := format.DecodeEnvelope(b)
		if err != nil {
			return
		}
		again, err := format.EncodeEnvelope(e)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("accepted record does not re-encode identically: %v", err)
		}
	})
}

func FuzzDecodePayload(f *testing.F) {
	seedFuzz(f, "payload")
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := format.DecodePayload(b)
		if err != nil {
			return
		}
		again, err := format.EncodePayload(p)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("accepted payload does not re-encode identically: %v", err)
		}
	})
}

func FuzzDecodeEpochHeader(f *testing.F) {
	seedFuzz(f, "epoch_header")
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := format.DecodeEpochHeader(b)
		if err != nil {
			return
		}
		again, err := format.EncodeEpochHeader(h)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("accepted header does not re-encode identically: %v", err)
		}
	})
}

// FuzzOpenPayload: arbitrary frames under a fixed key never panic and never
// open unless they are exactly a sealed frame.
func FuzzOpenPayload(f *testing.F) {
	var k format.EventKey
	var s format.SessionID
	for _, mode := range []byte{format.ModePlain, format.ModeEncrypted, format.ModeEncryptedV2} {
		frame, _ := format.SealPayload(nil, &k, s, 1, []byte{0xa0}, mode, [12]byte{})
		f.Add(frame)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pt, err := format.OpenPayload(&k, s, 1, b)
		if err != nil {
			return
		}
		if !bytes.Equal(pt, []byte{0xa0}) {
			t.Fatalf("a frame opened to %x, which the commitment does not bind", pt) // only the committed plaintext can open
		}
	})
}

// A mark DecodeMark accepts is read from a slot that re-encodes to its
// bytes exactly.
func FuzzDecodeMark(f *testing.F) {
	f.Add(format.EncodeMarkFile(format.Mark{Generation: 4, Events: 40, Epochs: 10}))
	f.Add(format.EncodeMarkFile(format.Mark{})[:format.MarkSlotSize])
	for _, raw := range loadVectors(f, "durable") {
		var v struct{ File string }
		if err := json.Unmarshal(raw, &v); err != nil {
			f.Fatal(err)
		}
		b, err := hex.DecodeString(v.File)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := format.DecodeMark(b)
		if err != nil {
			if !errors.Is(err, format.ErrNoMark) {
				t.Fatalf("error %v does not wrap ErrNoMark", err)
			}
			return
		}
		off := format.MarkSlotStride * int(m.Generation%2)
		if s := format.EncodeMarkSlot(m); !bytes.Equal(s[:], b[off:off+format.MarkSlotSize]) {
			t.Fatalf("mark %+v does not re-encode to its slot", m)
		}
	})
}
