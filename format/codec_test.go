package format_test

import (
	"bytes"
	"errors"
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
