package report

import (
	"fmt"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// Anchor statuses of an epoch.
const (
	anchored   = "anchored"   // its root equals the anchored root
	unanchored = "unanchored" // no anchor (yet)
	mismatch   = "mismatch"   // the anchors contradict it (or it is missing while anchored)
	unsealed   = "unsealed"   // events after the last epoch header
)

// epochsOf returns a row per epoch header with its anchor status, and the
// status of any epoch number, from the verification report. An epoch is
// "mismatch" when a tampered finding names it or one of its events (its
// evidence contradicts the anchors or itself); otherwise, for a log, the
// epochs the verifier counted as anchored are the prefix
// Report.AnchoredEpochs, and for a bundle each epoch is anchored unless an
// unanchored finding names it.
func epochsOf(in Input) ([]epochView, func(uint64) string) {
	rep, headers := in.Report, in.Index.Headers()
	bad, noAnchor := map[uint64]bool{}, map[uint64]bool{}
	for _, f := range rep.Findings {
		switch {
		case f.Class == verifier.ClassTampered && f.Epoch != nil:
			bad[*f.Epoch] = true
		case f.Class == verifier.ClassTampered && f.Seq != nil:
			if ev, ok := in.Index.Event(*f.Seq); ok {
				bad[ev.Epoch] = true
			}
		case f.Kind == verifier.KindUnanchored && f.Epoch != nil:
			noAnchor[*f.Epoch] = true
		}
	}
	sealedEnd := uint64(len(headers)) // epoch numbers of a log are positions
	status := func(e uint64) string {
		switch {
		case in.Bundle == nil && e >= sealedEnd:
			return unsealed
		case bad[e]:
			return mismatch
		case in.Bundle == nil && e < rep.AnchoredEpochs, in.Bundle != nil && !noAnchor[e]:
			return anchored
		}
		return unanchored
	}
	var out []epochView
	for _, h := range headers {
		out = append(out, epochView{Label: fmt.Sprint(h.Epoch), Status: status(h.Epoch), FirstSeq: h.FirstSeq, Count: h.Count,
			Root: epochRoot(h).String(), Sealed: time.Unix(0, h.Time).UTC().Format(timeLayout)})
	}
	if in.Bundle == nil && rep.Events > 0 {
		var first uint64
		if n := len(headers); n > 0 {
			first = headers[n-1].FirstSeq + headers[n-1].Count
		}
		if rep.Events > first {
			out = append(out, epochView{Label: unsealed, Status: unsealed, FirstSeq: first, Count: rep.Events - first})
		}
	}
	return out, status
}

// epochRoot is R_t, the hash of the header's encoding. Headers decode only
// from their canonical encoding, so encoding a decoded header gives back
// the bytes the root was computed over.
func epochRoot(h *format.EpochHeader) format.Digest {
	raw, err := format.EncodeEpochHeader(h)
	if err != nil {
		return format.Digest{}
	}
	return format.EpochRoot(raw)
}

// proofsOf returns the inclusion proof of each event that has one: for a
// bundle, the proofs it carries; for a log, computed from the records of
// each epoch whose records are all indexed.
func proofsOf(in Input) (map[uint64]*proofView, error) {
	out := map[uint64]*proofView{}
	if b := in.Bundle; b != nil {
		var headers []*format.EpochHeader
		for _, raw := range b.Headers {
			if h, err := format.DecodeEpochHeader(raw); err == nil {
				headers = append(headers, h)
			}
		}
		for _, d := range b.Events {
			e, err := format.DecodeEnvelope(d.Record)
			if err != nil {
				continue
			}
			for _, h := range headers {
				if e.Seq >= h.FirstSeq && e.Seq < h.FirstSeq+h.Count {
					out[e.Seq] = proof(format.RecordDigest(d.Record), h, d.Index, d.Path)
				}
			}
		}
		return out, nil
	}
	for _, h := range in.Index.Headers() {
		digests := make([]format.Digest, 0, h.Count)
		for s := h.FirstSeq; s < h.FirstSeq+h.Count; s++ {
			ev, ok := in.Index.Event(s)
			if !ok {
				break
			}
			digests = append(digests, ev.Digest())
		}
		if uint64(len(digests)) != h.Count {
			continue // records missing: no proof can be shown
		}
		for i, d := range digests {
			path, err := format.MerklePath(digests, uint64(i))
			if err != nil {
				return nil, fmt.Errorf("report: proof of event %d: %w", h.FirstSeq+uint64(i), err)
			}
			out[h.FirstSeq+uint64(i)] = proof(d, h, uint64(i), path)
		}
	}
	return out, nil
}

func proof(d format.Digest, h *format.EpochHeader, index uint64, path []format.Digest) *proofView {
	p := &proofView{Digest: d.String(), MerkleRoot: h.MerkleRoot.String(), Root: epochRoot(h).String(), Epoch: h.Epoch, Index: index, Size: h.Count}
	for _, n := range path {
		p.Path = append(p.Path, n.String())
	}
	return p
}
