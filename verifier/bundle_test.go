package verifier_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/bits"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

func disclose(t testing.TB, lg *testLog, seqs []uint64, keys bool) *verifier.Bundle {
	t.Helper()
	l, err := recorder.OpenLog(lg.dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := verifier.DiscloseOptions{Payloads: true}
	if keys {
		opts.Keys = lg.keys
	}
	b, err := verifier.Disclose(l, seqs, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Through the wire format and back.
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := verifier.DecodeBundle(enc)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func verifyBundle(t *testing.T, b *verifier.Bundle, anchors []format.Anchor, level verifier.PayloadLevel) *verifier.BundleReport {
	t.Helper()
	rep, err := verifier.VerifyBundle(context.Background(), b, verifier.AnchorList(anchors), verifier.Options{Payloads: level})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestBundleRoundTrip(t *testing.T) {
	lg := makeLog(t, 120, 16, 1, 5)
	seqs := []uint64{0, 7, 15, 16, 119}
	b := disclose(t, lg, seqs, true)
	rep := verifyBundle(t, b, lg.anchors, verifier.PayloadsOpen)
	if rep.Verdict != verifier.Verified || rep.PayloadsOpened != uint64(len(seqs)) || rep.AnchoredEvents != uint64(len(seqs)) {
		t.Fatalf("%s opened %d anchored %d %v", rep.Verdict, rep.PayloadsOpened, rep.AnchoredEvents, rep.Findings)
	}
	// The opened payloads are the recorded ones.
	for _, s := range seqs {
		k, _ := lg.keys.EventKey(format.Version, s/16, s)
		pt, err := format.OpenPayload(&k, lg.man.Session, s, lg.img.PayloadFrames[s])
		if err != nil {
			t.Fatal(err)
		}
		want, _ := format.DecodePayload(pt)
		a, _ := format.EncodePayload(want)
		got, _ := format.EncodePayload(rep.Payloads[s])
		if !bytes.Equal(a, got) {
			t.Fatalf("event %d: disclosed payload differs", s)
		}
	}
	// Hash-level verification needs neither payloads nor keys.
	noPayload := disclose(t, lg, seqs, false)
	for i := range noPayload.Events {
		noPayload.Events[i].Payload = nil
	}
	if rep := verifyBundle(t, noPayload, lg.anchors, verifier.PayloadsSkip); rep.Verdict != verifier.Verified {
		t.Fatalf("hash level: %s %v", rep.Verdict, rep.Findings)
	}
	if rep := verifyBundle(t, noPayload, lg.anchors, verifier.PayloadsDigest); rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindPayloadMissing) {
		t.Fatalf("payloads not disclosed: %s %v", rep.Verdict, rep.Findings)
	}
	if rep := verifyBundle(t, b, nil, verifier.PayloadsOpen); rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindUnanchored) {
		t.Fatalf("no anchors: %s %v", rep.Verdict, rep.Findings)
	}
}

func TestBundleTampering(t *testing.T) {
	lg := makeLog(t, 64, 16, 1, 6)
	cases := []struct {
		name   string
		mutate func(b *verifier.Bundle, anchors []format.Anchor) []format.Anchor
		kind   verifier.FindingKind
	}{
		{"record-edited", func(b *verifier.Bundle, a []format.Anchor) []format.Anchor {
			e, _ := format.DecodeEnvelope(b.Events[0].Record)
			e.Tool += "!"
			b.Events[0].Record, _ = format.EncodeEnvelope(e)
			return a
		}, verifier.KindProofInvalid},
		{"record-garbled", func(b *verifier.Bundle, a []format.Anchor) []format.Anchor {
			b.Events[0].Record[3] ^= 0xff
			return a
		}, verifier.KindRecordDecode},
		{"path-edited", func(b *verifier.Bundle, a []format.Anchor) []format.Anchor {
			b.Events[0].Path[0][0] ^= 1
			return a
		}, verifier.KindProofInvalid},
		{"index-moved", func(b *verifier.Bundle, a []format.Anchor) []format.Anchor {
			b.Events[0].Index++
			return a
		}, verifier.KindSequence},
		{"header-replaced", func(b *verifier.Bundle, a []format.Anchor) []format.Anchor {
			h, _ := format.DecodeEpochHeader(b.Headers[0])
			h.Time++
			b.Headers[0], _ = format.EncodeEpochHeader(h)
			return a
		}, verifier.KindAnchorMismatch},
		{"payload-swapped", func(b *verifier.Bundle, a []format.Anchor) []format.Anchor {
			b.Events[0].Payload, b.Events[1].Payload = b.Events[1].Payload, b.Events[0].Payload
			return a
		}, verifier.KindPayloadMismatch},
		{"key-swapped", func(b *verifier.Bundle, a []format.Anchor) []format.Anchor {
			b.Events[0].Key, b.Events[1].Key = b.Events[1].Key, b.Events[0].Key
			return a
		}, verifier.KindPayloadDecrypt},
		{"forked-anchor", func(b *verifier.Bundle, a []format.Anchor) []format.Anchor {
			forged := append([]format.Anchor(nil), a...)
			forged[0].Root[0] ^= 1
			return forged
		}, verifier.KindAnchorMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := disclose(t, lg, []uint64{3, 5}, true)
			anchors := c.mutate(b, lg.anchors)
			rep := verifyBundle(t, b, anchors, verifier.PayloadsOpen)
			if rep.Verdict != verifier.Tampered || !rep.Has(c.kind) {
				t.Fatalf("%s %v, want tampered with %s", rep.Verdict, rep.Findings, c.kind)
			}
		})
	}
}

// A bundle for event i lets nobody decrypt, or confirm a guess of, any
// other event — even holding the whole log's ciphertexts and the true
// plaintext as the guess.
func TestBundleRevealsNothingElse(t *testing.T) {
	lg := makeLog(t, 48, 16, 1, 8)
	const i = 20
	b := disclose(t, lg, []uint64{i}, true)
	enc, _ := b.Encode()
	var k format.EventKey
	copy(k[:], b.Events[0].Key)
	// Nothing but K_e(i): no epoch key or master key bytes in the bundle.
	master, _ := readMaster(lg.dir)
	if bytes.Contains(enc, master) {
		t.Fatal("bundle contains the master key")
	}
	for j := uint64(0); j < 48; j++ {
		if j == i {
			continue
		}
		frame := lg.img.PayloadFrames[j]
		if _, err := format.OpenPayload(&k, lg.man.Session, j, frame); !errors.Is(err, format.ErrDecrypt) {
			t.Fatalf("event %d opened with the key of event %d: %v", j, i, err)
		}
		// The true plaintext of j, as a guess: its commitment under K_e(i)
		// does not match, so the guess cannot be confirmed.
		kj, _ := lg.keys.EventKey(format.Version, j/16, j)
		pt, _ := format.OpenPayload(&kj, lg.man.Session, j, frame)
		if c := format.Commitment(&k, lg.man.Session, j, pt); bytes.Equal(c[:], frame[1:33]) {
			t.Fatalf("event %d's plaintext confirmed with the key of event %d", j, i)
		}
		if bytes.Contains(enc, kj[:]) {
			t.Fatalf("bundle contains the key of event %d", j)
		}
		// Epoch keys: no 32-byte half of an event key of the bundle's
		// epoch is the epoch key (the epoch key never appears).
		ek, _ := lg.keys.EventKey(format.Version, j/16, j)
		if bytes.Contains(enc, ek[:32]) || bytes.Contains(enc, ek[32:]) {
			t.Fatalf("bundle contains key material of event %d", j)
		}
	}
}

// Proof size: at most 32·⌈log2 N⌉ bytes per event, plus headers.
func TestBundleProofSize(t *testing.T) {
	lg := makeLog(t, 1000, 100, 1, 10)
	b := disclose(t, lg, []uint64{517}, false)
	bound := 32 * int(math.Ceil(math.Log2(1000)))
	if got := 32 * len(b.Events[0].Path); got > bound || got != 32*bits.Len(99) {
		t.Fatalf("proof of %d bytes, bound %d", got, bound)
	}
}

func FuzzDecodeBundle(f *testing.F) {
	for _, v := range vectorSeeds(f, "bundle", "bundle") {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := verifier.DecodeBundle(data)
		if err != nil {
			return
		}
		again, err := b.Encode()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatal("accepted bundle does not re-encode identically")
		}
		// Verifying any accepted bundle never panics.
		verifier.VerifyBundle(context.Background(), b, nil, verifier.Options{Payloads: verifier.PayloadsOpen})
	})
}

// An event of the open epoch has no root yet: Disclose refuses it with an
// *UnsealedError naming it.
func TestDiscloseUnsealed(t *testing.T) {
	dir := t.TempDir()
	r, err := recorder.Open(dir, recorder.Options{Recorder: "unsealed", EpochSize: 2, EpochMaxAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for range 3 {
		if _, err := r.Record(context.Background(), format.Event{Tool: "shell", Kind: format.KindToolCall}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifier.Disclose(l, []uint64{0, 1}, verifier.DiscloseOptions{}); err != nil {
		t.Fatalf("events of the sealed epoch: %v", err)
	}
	_, err = verifier.Disclose(l, []uint64{1, 2}, verifier.DiscloseOptions{})
	var ue *verifier.UnsealedError
	if !errors.As(err, &ue) || ue.Seq != 2 {
		t.Fatalf("an event of the open epoch: %v, want an *UnsealedError for event 2", err)
	}
}

// A bundle is the CBOR docs/SPEC.md describes: headers, events, each
// record and each path are present and not null. CBOR null decodes to a
// nil slice, which re-encodes as null, so the canonical check took a
// null path for an empty one (an event verified by a proof that a reader
// of the spec refuses to decode) and null headers or events for none.
func TestDecodeBundleRefusesNull(t *testing.T) {
	lg := makeLog(t, 2, 2, 1, 62)
	for name, edit := range map[string]func(b *verifier.Bundle){
		"headers": func(b *verifier.Bundle) { b.Headers = nil },
		"header":  func(b *verifier.Bundle) { b.Headers[0] = nil },
		"events":  func(b *verifier.Bundle) { b.Events = nil },
		"record":  func(b *verifier.Bundle) { b.Events[0].Record = nil },
		"path":    func(b *verifier.Bundle) { b.Events[0].Path = nil },
	} {
		b := disclose(t, lg, []uint64{0}, false)
		edit(b)
		enc, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(enc, []byte{0xf6}) {
			t.Fatalf("%s: the encoding holds no null", name)
		}
		if got, err := verifier.DecodeBundle(enc); err == nil {
			t.Errorf("null %s: decoded as %+v", name, got)
		}
	}
}
