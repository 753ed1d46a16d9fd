package format_test

import (
	"bytes"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// BenchmarkEncodePayload measures what the write path pays per event for
// the payload: Validate (the read path's rules, enforced before anything is
// written) and the deterministic encoding, over the synthetic workload:
//
//	go test -run '^$' -bench EncodePayload -count 5 ./format/
func BenchmarkEncodePayload(b *testing.B) {
	events := workload.Generate(42, 1000)
	b.Run("validate", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := events[i%len(events)].Payload.Validate(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate+encode", func(b *testing.B) {
		var buf bytes.Buffer
		for i := 0; b.Loop(); i++ {
			buf.Reset()
			if err := format.EncodePayloadTo(&buf, &events[i%len(events)].Payload); err != nil {
				b.Fatal(err)
			}
		}
	})
}
