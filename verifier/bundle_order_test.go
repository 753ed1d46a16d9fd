package verifier_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// A bundle lists its headers in strictly increasing epoch order and its
// events in strictly increasing seq order: reordering or duplicating
// either, at any position, is tampered (bundle_order), and an event whose
// header is absent is records_missing. The bundle as disclosed verifies.
func TestBundleOrder(t *testing.T) {
	lg := makeLog(t, 64, 16, 1, 33)
	seqs := []uint64{3, 5, 20, 40} // epochs 0, 0, 1, 2
	base := disclose(t, lg, seqs, true)
	if rep := verifyBundle(t, base, lg.anchors, verifier.PayloadsOpen); rep.Verdict != verifier.Verified || len(rep.Findings) != 0 {
		t.Fatalf("as disclosed: %s %v", rep.Verdict, rep.Findings)
	}
	type mutation struct {
		name   string
		mutate func(b *verifier.Bundle)
		kind   verifier.FindingKind
	}
	var ms []mutation
	for k := range len(seqs) {
		ms = append(ms, mutation{fmt.Sprintf("event %d duplicated", k), func(b *verifier.Bundle) {
			b.Events = slices.Insert(b.Events, k, b.Events[k])
		}, verifier.KindBundleOrder})
		if k+1 < len(seqs) {
			ms = append(ms, mutation{fmt.Sprintf("events %d and %d swapped", k, k+1), func(b *verifier.Bundle) {
				b.Events[k], b.Events[k+1] = b.Events[k+1], b.Events[k]
			}, verifier.KindBundleOrder})
		}
	}
	for k := range len(base.Headers) {
		ms = append(ms, mutation{fmt.Sprintf("header %d duplicated", k), func(b *verifier.Bundle) {
			b.Headers = slices.Insert(b.Headers, k, b.Headers[k])
		}, verifier.KindBundleOrder}, mutation{fmt.Sprintf("header %d removed", k), func(b *verifier.Bundle) {
			b.Headers = slices.Delete(b.Headers, k, k+1)
		}, verifier.KindRecordsMissing})
		if k+1 < len(base.Headers) {
			ms = append(ms, mutation{fmt.Sprintf("headers %d and %d swapped", k, k+1), func(b *verifier.Bundle) {
				b.Headers[k], b.Headers[k+1] = b.Headers[k+1], b.Headers[k]
			}, verifier.KindBundleOrder})
		}
	}
	for _, m := range ms {
		t.Run(m.name, func(t *testing.T) {
			b := disclose(t, lg, seqs, true)
			m.mutate(b)
			enc, err := b.Encode()
			must(t, err)
			back, err := verifier.DecodeBundle(enc)
			must(t, err)
			for _, level := range []verifier.PayloadLevel{verifier.PayloadsSkip, verifier.PayloadsOpen} {
				if rep := verifyBundle(t, back, lg.anchors, level); rep.Verdict != verifier.Tampered || !rep.Has(m.kind) {
					t.Fatalf("level %d: %s %v, want tampered with %s", level, rep.Verdict, rep.Findings, m.kind)
				}
			}
		})
	}
}

// A bundle with no events (an empty array; null is no array, see
// TestDecodeBundleRefusesNull) decodes, and verifies as incomplete
// (bundle_empty): a verdict, not an error.
func TestEmptyBundleIsIncomplete(t *testing.T) {
	for _, b := range []*verifier.Bundle{{Version: 1, Headers: []format.Bytes{}, Events: []verifier.DisclosedEvent{}}} {
		enc, err := b.Encode()
		must(t, err)
		back, err := verifier.DecodeBundle(enc)
		if err != nil {
			t.Fatalf("%x: %v", enc, err)
		}
		rep, err := verifier.VerifyBundle(context.Background(), back, nil, verifier.Options{Payloads: verifier.PayloadsOpen})
		if err != nil || rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindBundleEmpty) {
			t.Fatalf("%x: %v %s %v", enc, err, rep.Verdict, rep.Findings)
		}
	}
}

// At level digest the bundled keys are not used: nothing is decrypted or
// returned, and keys that would not open the payloads are not judged.
func TestBundleDigestLevelOpensNothing(t *testing.T) {
	lg := makeLog(t, 32, 16, 1, 34)
	b := disclose(t, lg, []uint64{2, 17}, true)
	rep := verifyBundle(t, b, lg.anchors, verifier.PayloadsDigest)
	if rep.Verdict != verifier.Verified || rep.PayloadsOpened != 0 || len(rep.Payloads) != 0 || rep.PayloadsChecked != 2 {
		t.Fatalf("digest: %s opened %d returned %d checked %d %v", rep.Verdict, rep.PayloadsOpened, len(rep.Payloads), rep.PayloadsChecked, rep.Findings)
	}
	b.Events[0].Key, b.Events[1].Key = b.Events[1].Key, b.Events[0].Key
	if rep := verifyBundle(t, b, lg.anchors, verifier.PayloadsDigest); rep.Verdict != verifier.Verified {
		t.Fatalf("digest, keys swapped: %s %v", rep.Verdict, rep.Findings)
	}
	if rep := verifyBundle(t, b, lg.anchors, verifier.PayloadsOpen); rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindPayloadDecrypt) {
		t.Fatalf("open, keys swapped: %s %v", rep.Verdict, rep.Findings)
	}
}
