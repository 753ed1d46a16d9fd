package verifier_test

import (
	"testing"

	"github.com/agentflightrecorder/afr/verifier"
)

// A frame with a valid checksum that is no epoch header, appended to the
// epochs stream, is that frame's finding (header_decode at its position)
// and nothing else's: the intact payloads of the last real epoch still
// open under their epoch's key (docs/SPEC.md, "Keys": the epoch of an
// event).
func TestGarbageHeaderFrameBlamesItself(t *testing.T) {
	for _, tc := range []struct {
		name         string
		n, epochSize int
		unsealed     bool // the last epoch's header is dropped: its events are unsealed
	}{
		{"one epoch", 5, 5, false},
		{"four epochs", 40, 10, false},
		{"after unsealed events", 12, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg := makeLog(t, tc.n, tc.epochSize, 1, 25)
			img, anchors := lg.img.Clone(), lg.anchors
			if tc.unsealed {
				img.HeaderFrames = img.HeaderFrames[:len(img.HeaderFrames)-1]
				anchors = anchors[:len(anchors)-1]
			}
			epochs := len(img.HeaderFrames)
			img.HeaderFrames = append(img.HeaderFrames, []byte("not an epoch header"))
			rep := verify(t, img, anchors, verifier.Options{Payloads: verifier.PayloadsOpen, Keys: lg.keys})
			if rep.Verdict != verifier.Tampered {
				t.Fatalf("verdict %s, want tampered: %v", rep.Verdict, rep.Findings)
			}
			for _, f := range rep.Findings {
				switch f.Kind {
				case verifier.KindHeaderDecode:
					if f.Epoch == nil || *f.Epoch != uint64(epochs) {
						t.Errorf("header_decode at %v, want epoch %d (the garbage frame)", f.Epoch, epochs)
					}
				case verifier.KindUnanchored, verifier.KindUnsealed:
				default:
					t.Errorf("finding %s %s: only the garbage frame is damaged", f.Kind, f.Detail)
				}
			}
			if !rep.Has(verifier.KindHeaderDecode) {
				t.Fatalf("no header_decode: %v", rep.Findings)
			}
			if rep.PayloadsOpened != uint64(tc.n) {
				t.Errorf("opened %d payloads, want %d", rep.PayloadsOpened, tc.n)
			}
		})
	}
}
