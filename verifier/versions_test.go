package verifier_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// Logs of both format versions verify with every payload opened: version 1
// (mode 1 frames, as every log written before version 2, and
// Options.FormatVersion 1) and version 2 (mode 2), each written by two
// openings of the recorder. A payload frame edited in either is found, at
// level digest without keys and at level open.
func TestFormatVersionsVerify(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("version-%d", version), func(t *testing.T) {
			dir := t.TempDir()
			events := workload.Generate(7, 40)
			for half := range 2 {
				r := logtest.Open(t, dir, recorder.Options{Recorder: "op", Encrypt: true, EpochSize: 8, FormatVersion: version, Sync: recorder.SyncNone, EpochMaxAge: -1})
				for _, ev := range events[half*20 : (half+1)*20] {
					if _, err := r.Record(context.Background(), ev); err != nil {
						t.Fatal(err)
					}
				}
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
			}
			l, err := recorder.OpenLog(dir)
			if err != nil {
				t.Fatal(err)
			}
			img, err := tamper.Load(l)
			if err != nil {
				t.Fatal(err)
			}
			for i, frame := range img.PayloadFrames {
				if frame[0] != format.FrameMode(version, true) {
					t.Fatalf("payload %d in mode %d in a log of version %d", i, frame[0], version)
				}
			}
			anchors, err := img.Anchors()
			if err != nil {
				t.Fatal(err)
			}
			kr, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), l.Manifest.Session)
			if err != nil {
				t.Fatal(err)
			}
			defer kr.Close()
			rep := verify(t, img, anchors, verifier.Options{Payloads: verifier.PayloadsOpen, Keys: kr})
			if rep.Verdict != verifier.Verified || rep.PayloadsOpened != 40 {
				t.Fatalf("%s, %d payloads opened: %v", rep.Verdict, rep.PayloadsOpened, rep.Findings)
			}
			edited := img.Clone()
			edited.PayloadFrames[5] = bytes.Clone(edited.PayloadFrames[5])
			edited.PayloadFrames[5][len(edited.PayloadFrames[5])-1] ^= 1 // the tag
			for _, level := range []verifier.PayloadLevel{verifier.PayloadsDigest, verifier.PayloadsOpen} {
				rep := verify(t, edited, anchors, verifier.Options{Payloads: level, Keys: kr})
				if rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindPayloadMismatch) {
					t.Fatalf("level %d, payload 5 edited: %s %v", level, rep.Verdict, rep.Findings)
				}
			}
		})
	}
}
