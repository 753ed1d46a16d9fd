package report

import (
	"encoding/hex"
	"fmt"
	"strings"
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

// epochData is one epoch header in the page's data: what the page needs to
// check an event's inclusion proof when it is opened. Its leaves, for a
// log, are the record digests of all its events in order (hex, 64 digits
// each, concatenated, in detailData): the page computes a leaf's RFC 6962
// audit path from them and checks it against MerkleRoot. Embedding each
// epoch's leaves once keeps the page linear in the events (a path per
// event would repeat log₂(size) digests for each); an epoch whose records
// are not all held has no leaves, and its events no proof.
type epochData struct {
	Epoch      uint64 `json:"n"`
	FirstSeq   uint64 `json:"f"`
	Count      uint64 `json:"c"`
	Status     string `json:"st"` // its anchor status
	MerkleRoot string `json:"m"`
	Root       string `json:"r"` // R_t
}

// proofData is a disclosed event's inclusion proof, as a bundle carries it:
// its record digest, its leaf index and its audit path (hex digests
// concatenated, leaf to root).
type proofData struct {
	Digest string `json:"d"`
	Index  uint64 `json:"i"`
	Path   string `json:"p"`
}

// epochsData returns each epoch header of in, in the index's order, with
// its anchor status, and, for a log, its leaves when all its records are
// indexed ("" otherwise).
func epochsData(in Input, status func(uint64) string) ([]epochData, []string) {
	var out []epochData
	var leaves []string
	for _, h := range in.Index.Headers() {
		out = append(out, epochData{Epoch: h.Epoch, FirstSeq: h.FirstSeq, Count: h.Count, Status: status(h.Epoch),
			MerkleRoot: h.MerkleRoot.String(), Root: epochRoot(h).String()})
		l := ""
		if in.Bundle == nil {
			l = leavesOf(in.Index, h)
		}
		leaves = append(leaves, l)
	}
	return out, leaves
}

// leavesOf returns the record digests of the epoch of h, hex-concatenated,
// or "" when the index lacks one of its records.
func leavesOf(ix *verifier.Index, h *format.EpochHeader) string {
	var b strings.Builder
	b.Grow(int(h.Count) * 2 * len(format.Digest{}))
	for s := h.FirstSeq; s < h.FirstSeq+h.Count; s++ {
		ev, ok := ix.Event(s)
		if !ok {
			return ""
		}
		d := ev.Digest()
		b.WriteString(hex.EncodeToString(d[:]))
	}
	return b.String()
}

// bundleProofs returns the inclusion proof of each event of a bundle that
// lies in one of its epochs, by sequence number.
func bundleProofs(b *verifier.Bundle, headers []*format.EpochHeader) map[uint64]*proofData {
	out := map[uint64]*proofData{}
	for _, d := range b.Events {
		e, err := format.DecodeEnvelope(d.Record)
		if err != nil {
			continue
		}
		for _, h := range headers {
			if e.Seq >= h.FirstSeq && e.Seq < h.FirstSeq+h.Count {
				digest := format.RecordDigest(d.Record)
				p := &proofData{Digest: hex.EncodeToString(digest[:]), Index: d.Index}
				var path strings.Builder
				for _, n := range d.Path {
					path.WriteString(hex.EncodeToString(n[:]))
				}
				p.Path = path.String()
				out[e.Seq] = p
			}
		}
	}
	return out
}
