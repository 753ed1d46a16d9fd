package verifier_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

type testLog struct {
	dir     string
	img     *tamper.Image
	anchors []format.Anchor
	keys    *recorder.Keyring
	man     recorder.Manifest
	other   *tamper.Image // a log of another session, for splicing
}

// makeLog records n synthetic events with the given epoch size from
// `writers` concurrent goroutines, closes the log and loads it.
func makeLog(t testing.TB, n, epochSize, writers int, seed uint64) *testLog {
	t.Helper()
	dir := t.TempDir()
	r := logtest.Open(t, dir, recorder.Options{Recorder: fmt.Sprintf("op-%d", seed), Encrypt: true, EpochSize: epochSize, Sync: recorder.SyncNone, EpochMaxAge: -1})
	events := workload.Generate(seed, n)
	var wg sync.WaitGroup
	var next int
	var mu sync.Mutex
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				if _, err := r.Record(context.Background(), events[i]); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return closeAndLoad(t, dir, r)
}

// closeAndLoad closes the recorder of the log in dir and loads the log:
// its image, anchors and keys.
func closeAndLoad(t testing.TB, dir string, r *recorder.Recorder) *testLog {
	t.Helper()
	man := r.Manifest()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tamper.Load(l)
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := img.Anchors()
	if err != nil {
		t.Fatal(err)
	}
	kr, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), man.Session)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close() })
	return &testLog{dir: dir, img: img, anchors: anchors, keys: kr, man: man}
}

func verify(t testing.TB, src verifier.Source, anchors []format.Anchor, opts verifier.Options) *verifier.Report {
	t.Helper()
	rep, err := verifier.VerifyLog(context.Background(), src, verifier.AnchorList(anchors), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// Zero false positives: clean logs of many shapes verify, at both levels.
func TestCleanLogsVerify(t *testing.T) {
	for _, n := range []int{1, 2, 3, 17, 100, 257} {
		for _, epoch := range []int{1, 3, 16, 100} {
			for _, writers := range []int{1, 4} {
				lg := makeLog(t, n, epoch, writers, uint64(n*1000+epoch*10+writers))
				for _, level := range []verifier.PayloadLevel{verifier.PayloadsSkip, verifier.PayloadsDigest, verifier.PayloadsOpen} {
					rep := verify(t, lg.img, lg.anchors, verifier.Options{Payloads: level, Keys: lg.keys})
					if rep.Verdict != verifier.Verified {
						t.Fatalf("n=%d epoch=%d writers=%d level=%d: %s %v", n, epoch, writers, level, rep.Verdict, rep.Findings)
					}
					if rep.AnchoredEvents != uint64(n) || rep.Events != uint64(n) {
						t.Fatalf("n=%d: anchored %d of %d events", n, rep.AnchoredEvents, rep.Events)
					}
					if level == verifier.PayloadsOpen && rep.PayloadsOpened != uint64(n) {
						t.Fatalf("n=%d: opened %d payloads", n, rep.PayloadsOpened)
					}
				}
				// The same log on disk verifies too.
				l, _ := recorder.OpenLog(lg.dir)
				if rep := verify(t, l, lg.anchors, verifier.Options{}); rep.Verdict != verifier.Verified {
					t.Fatalf("on disk: %s %v", rep.Verdict, rep.Findings)
				}
			}
		}
	}
}

func TestMissingAnchorsAreIncomplete(t *testing.T) {
	lg := makeLog(t, 50, 10, 1, 1)
	rep := verify(t, lg.img, lg.anchors[:3], verifier.Options{})
	if rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindUnanchored) || rep.AnchoredEvents != 30 {
		t.Fatalf("partial anchors: %s anchored %d %v", rep.Verdict, rep.AnchoredEvents, rep.Findings)
	}
	rep = verify(t, lg.img, nil, verifier.Options{})
	if rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindUnanchored) {
		t.Fatalf("no anchors: %s %v", rep.Verdict, rep.Findings)
	}
}

func TestUnsealedTailIsIncomplete(t *testing.T) {
	dir := t.TempDir()
	r := logtest.Open(t, dir, recorder.Options{Recorder: "op", EpochSize: 10, EpochMaxAge: -1})
	for _, ev := range workload.Generate(3, 25) {
		r.Record(context.Background(), ev)
	}
	l, _ := recorder.OpenLog(dir)
	img, _ := tamper.Load(l)
	anchors, _ := img.Anchors()
	rep := verify(t, l, anchors, verifier.Options{})
	if rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindUnsealed) || rep.AnchoredEvents != 20 {
		t.Fatalf("%s anchored %d %v", rep.Verdict, rep.AnchoredEvents, rep.Findings)
	}
}

func TestErasedKeysStillVerify(t *testing.T) {
	lg := makeLog(t, 30, 10, 1, 9)
	if err := lg.keys.Erase(1); err != nil {
		t.Fatal(err)
	}
	rep := verify(t, lg.img, lg.anchors, verifier.Options{Payloads: verifier.PayloadsOpen, Keys: lg.keys})
	if rep.Verdict != verifier.Verified || !rep.Has(verifier.KindPayloadErased) || rep.PayloadsOpened != 20 {
		t.Fatalf("%s opened %d %v", rep.Verdict, rep.PayloadsOpened, rep.Findings)
	}
}

// Nothing to verify is never "verified".
func TestEmptyInputsAreNotVerified(t *testing.T) {
	if rep := verify(t, &tamper.Image{}, nil, verifier.Options{}); rep.Verdict != verifier.Incomplete {
		t.Fatalf("empty log, no anchors: %s %v", rep.Verdict, rep.Findings)
	}
	// An empty bundle: TestEmptyBundleIsIncomplete.
}

// A gap in the anchors, even past the log's last epoch, is a conflict.
func TestAnchorGapIsConflict(t *testing.T) {
	lg := makeLog(t, 20, 10, 1, 3)
	forged := append([]format.Anchor(nil), lg.anchors...)
	forged = append(forged, format.Anchor{Epoch: 3, Root: format.Digest{1}})
	rep := verify(t, lg.img, forged, verifier.Options{})
	if rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindAnchorConflict) {
		t.Fatalf("%s %v", rep.Verdict, rep.Findings)
	}
}

// cancelAfter cancels a context once visit has seen n records.
type cancelAfter struct {
	verifier.Source
	n      int
	cancel context.CancelFunc
}

func (c cancelAfter) Records(visit func(uint64, []byte) error) error {
	seen := 0
	return c.Source.Records(func(seq uint64, raw []byte) error {
		if seen++; seen == c.n {
			c.cancel()
		}
		return visit(seq, raw)
	})
}

// TestVerifyLogStopsWhenCancelled: a verification cancelled while it reads
// the records stream returns the context's error, not a report.
func TestVerifyLogStopsWhenCancelled(t *testing.T) {
	lg := makeLog(t, 10_000, 100, 1, 7)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := verifier.VerifyLog(ctx, cancelAfter{lg.img, 10, cancel}, verifier.AnchorList(lg.anchors), verifier.Options{})
	if !errors.Is(err, context.Canceled) || rep != nil {
		t.Fatalf("got report %v, error %v; want context.Canceled", rep, err)
	}
}

// TestDamagedHeaderIsReportedOnce: an undecodable epoch header is one
// header_decode finding; the next header is not also reported as a broken
// sequence or link (it has nothing to continue from), and the verdict stays
// tampered.
func TestDamagedHeaderIsReportedOnce(t *testing.T) {
	lg := makeLog(t, 50, 10, 1, 9)
	for _, e := range []int{0, 2, 4} {
		img := lg.img.Clone()
		img.HeaderFrames[e] = []byte{0xff} // not CBOR
		rep := verify(t, img, lg.anchors, verifier.Options{})
		if rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindHeaderDecode) || rep.Has(verifier.KindEpochLink) || rep.Has(verifier.KindEpochSequence) {
			t.Errorf("header %d undecodable: %s %v", e, rep.Verdict, rep.Findings)
		}
	}
}
