package verifier_test

import (
	"reflect"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// parallelWorkers are the pool sizes compared with one worker: fewer
// workers than epochs, more than this machine's cores.
var parallelWorkers = []int{3}

// sameWithWorkers verifies src with one worker (the sequential verifier)
// and with several, and fails unless every report is identical to the
// first: verdict, counts, and the same findings in the same order.
func sameWithWorkers(t *testing.T, what string, src verifier.Source, anchors []format.Anchor, opts verifier.Options) *verifier.Report {
	t.Helper()
	opts.Workers = 1
	want := verify(t, src, anchors, opts)
	for _, w := range parallelWorkers {
		opts.Workers = w
		if got := verify(t, src, anchors, opts); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %d workers report\n%s %v\nwhere one worker reports\n%s %v", what, w, got.Verdict, got.Findings, want.Verdict, want.Findings)
		}
	}
	return want
}

// FuzzWorkersSameReport puts fuzzed bytes in place of a frame of one of a
// clean log's streams (or after its last frame) and compares the reports
// of one worker and several. Seeded from every encoding vector, at frames
// of each stream.
func FuzzWorkersSameReport(f *testing.F) {
	lg := makeLog(f, 60, 8, 1, 44)
	for k, seed := range vectorSeeds(f, "encoding", "cbor") {
		f.Add(seed, uint8(k%3), uint16(k*7), k%5 == 0)
	}
	f.Fuzz(func(t *testing.T, frame []byte, stream uint8, pos uint16, appended bool) {
		img := lg.img.Clone()
		frames := [][][]byte{img.RecordFrames, img.PayloadFrames, img.HeaderFrames}[stream%3]
		if i := int(pos) % len(frames); appended {
			frames = append(frames, frame)
		} else {
			frames[i] = frame
		}
		switch stream % 3 {
		case 0:
			img.RecordFrames = frames
		case 1:
			img.PayloadFrames = frames
		default:
			img.HeaderFrames = frames
		}
		sameWithWorkers(t, "fuzzed frame", img, lg.anchors, verifier.Options{Payloads: verifier.PayloadsOpen, Keys: lg.keys})
	})
}
