package format_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
)

// TestEncodeToLimitsCountOwnBytes: the size limits of EncodePayloadTo and
// EncodeEnvelopeTo apply to the object they append, not to what buf held.
func TestEncodeToLimitsCountOwnBytes(t *testing.T) {
	full := bytes.NewBuffer(make([]byte, format.MaxPayloadSize))
	if err := format.EncodePayloadTo(full, &format.Payload{Ext: map[string]any{"x": "y"}}); err != nil {
		t.Fatalf("payload after other bytes: %v", err)
	}
	env := format.Envelope{Version: format.Version, Recorder: "r", Tool: "t", Kind: format.KindToolCall}
	full = bytes.NewBuffer(make([]byte, format.MaxRecordSize))
	if err := format.EncodeEnvelopeTo(full, &env); err != nil {
		t.Fatalf("record after other bytes: %v", err)
	}
	big := &format.Payload{Ext: map[string]any{"x": make([]byte, format.MaxPayloadSize)}}
	if err := format.EncodePayloadTo(new(bytes.Buffer), big); !errors.Is(err, format.ErrLimit) {
		t.Fatalf("payload over the limit: got %v, want an error wrapping ErrLimit", err)
	}
}

// TestEncodeEpochHeaderLimit: a header a reader would refuse for its size is
// never encoded; one byte less of recorder id fits.
func TestEncodeEpochHeaderLimit(t *testing.T) {
	h := format.EpochHeader{Version: format.Version, Epoch: 1<<64 - 1, FirstSeq: 1<<64 - 1, Count: 1<<64 - 1, Time: -1 << 63}
	for n := format.MaxStringLength; n > 0; n-- {
		h.Recorder = strings.Repeat("r", n)
		b, err := format.EncodeEpochHeader(&h)
		if err == nil {
			if _, err := format.DecodeEpochHeader(b); err != nil {
				t.Fatalf("recorder id of %d bytes: encoded, but the decoder refuses it: %v", n, err)
			}
			return // the longest id that fits encodes and decodes
		}
		if !errors.Is(err, format.ErrLimit) {
			t.Fatalf("recorder id of %d bytes: %v, want an error wrapping ErrLimit", n, err)
		}
	}
	t.Fatal("no recorder id fits an epoch header")
}
