package verifier

import (
	"fmt"
	"slices"

	"github.com/agentflightrecorder/afr/format"
)

func (v *logVerifier) readHeaders(src Source) error {
	var n uint64
	err := src.Epochs(func(t uint64, raw []byte) error {
		for ; n < t; n++ {
			v.headers = append(v.headers, header{}) // lost to stream damage, which streamEnd reports
		}
		hd := header{read: true, root: format.EpochRoot(raw)}
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			v.c.add(Finding{Kind: KindHeaderDecode, Epoch: u64(t), Detail: err.Error()})
		} else {
			hd.h = h
			v.setIdentity(h.Recorder, h.Session)
		}
		v.headers = append(v.headers, hd)
		n++
		return nil
	})
	v.rep.Epochs = n
	return v.streamEnd("epochs", err)
}

// checkEpochs checks the epoch chain and each epoch's tree and chain head.
func (v *logVerifier) checkEpochs(anchors map[uint64]format.Anchor) {
	var nextSeq uint64
	var prevRoot format.Digest
	afterDamaged := false // the previous header was lost or undecodable: reported already
	for t, hd := range v.headers {
		ep := u64(uint64(t))
		h := hd.h
		if h == nil {
			afterDamaged = true
			continue
		}
		if afterDamaged {
			// Nothing to continue from: take this header's word for where
			// its epoch starts and what came before.
			nextSeq, prevRoot, afterDamaged = h.FirstSeq, h.PrevRoot, false
		}
		if h.Epoch != uint64(t) || h.FirstSeq != nextSeq {
			v.c.add(Finding{Kind: KindEpochSequence, Epoch: ep,
				Expected: fmt.Sprintf("epoch %d from event %d", t, nextSeq), Found: fmt.Sprintf("epoch %d from event %d", h.Epoch, h.FirstSeq),
				Detail: "the epoch header does not continue the previous epoch: headers inserted, removed, reordered or replaced"})
		}
		if h.PrevRoot != prevRoot {
			v.c.add(Finding{Kind: KindEpochLink, Epoch: ep, Expected: prevRoot.String(), Found: h.PrevRoot.String(),
				Detail: "prev_root is not the root of the previous epoch header"})
		}
		if h.Recorder != v.recorder || h.Session != v.session {
			v.c.add(Finding{Kind: KindForeignRecord, Epoch: ep, Expected: idString(v.recorder, v.session), Found: idString(h.Recorder, h.Session),
				Detail: "epoch header of another session or recorder"})
		}
		nextSeq = h.FirstSeq + h.Count
		prevRoot = hd.root
		end := spanOf(uint64(t), h).end
		if end > v.count {
			// The records stream ends inside this epoch. If the epoch is
			// anchored, records it committed to were removed. If not, nothing
			// external committed to them: a partial copy, or a crash that
			// lost unsynced writes under the write or none sync policy (the
			// writer puts a header on disk only after its records otherwise).
			have := uint64(0)
			if v.count > h.FirstSeq {
				have = v.count - h.FirstSeq
			}
			f := Finding{Kind: KindRecordsMissing, Epoch: ep, Seq: u64(h.FirstSeq + have),
				Expected: fmt.Sprintf("%d records", h.Count), Found: fmt.Sprintf("%d records", have),
				Detail: "the anchored epoch header commits to records that are not in the log"}
			switch a, ok := anchors[h.Epoch]; {
			case v.newerVersion(v.count):
				f.Kind, f.Detail = KindUnsupportedVersion, "the epoch's later records are in a segment file of a newer format version, which this build cannot read"
			case !ok || a.Root != hd.root:
				f.Kind, f.Detail = KindTruncated, "the log ends inside an epoch that is not anchored"
			}
			v.c.add(f)
			continue
		}
		if v.newerVersionIn(h.FirstSeq, end) {
			v.c.add(Finding{Kind: KindUnsupportedVersion, Epoch: ep, Seq: u64(h.FirstSeq),
				Detail: "some records of this epoch are in a segment file of a newer format version, which this build cannot read: the epoch is not checked"})
			continue
		}
		if got, _ := v.trees.root(t); got != h.MerkleRoot {
			v.c.add(Finding{Kind: KindMerkleMismatch, Epoch: ep, Seq: u64(h.FirstSeq), Expected: h.MerkleRoot.String(), Found: got.String(),
				Detail: fmt.Sprintf("records %d..%d do not give the epoch's Merkle root", h.FirstSeq, end-1)})
		}
		if last := v.trees.lastDigest(end - 1); last != h.LastRecord {
			v.c.add(Finding{Kind: KindChainHeadMismatch, Epoch: ep, Seq: u64(end - 1), Expected: h.LastRecord.String(), Found: last.String(),
				Detail: "the epoch's chain head is not its last record's digest: the hash chain and the Merkle tree do not commit to the same records"})
		}
	}
	v.sealedEnd = nextSeq
	if nextSeq < v.count {
		v.c.add(Finding{Kind: KindUnsealed, Seq: u64(nextSeq), Count: 0,
			Detail: fmt.Sprintf("%d events after the last sealed epoch are in no epoch and cannot be anchored yet", v.count-nextSeq)})
	}
}

// checkAnchors compares each epoch root with its anchor and classifies
// what is missing. A header is matched with the anchor of the epoch it
// claims (its position if it cannot be decoded), so a header removed from
// the middle shows up as exactly that epoch missing.
func (v *logVerifier) checkAnchors(idx map[uint64]format.Anchor) {
	var maxAnchored uint64
	for t := range idx {
		maxAnchored = max(maxAnchored, t)
	}
	matched := map[uint64]bool{}
	present := map[uint64]bool{}
	var maxPresent uint64
	var unanchored []uint64
	for p, hd := range v.headers {
		e := uint64(p)
		if hd.h != nil {
			e = hd.h.Epoch
		}
		maxPresent = max(maxPresent, e)
		present[e] = true
		a, ok := idx[e]
		switch {
		case !ok && (len(idx) == 0 || e > maxAnchored):
			unanchored = append(unanchored, e)
		case !ok:
			// A gap in the anchors, reported by anchorIndex.
		case !hd.read:
			// Lost to stream damage (segment_corrupt): nothing to compare.
		case hd.root != a.Root:
			v.c.add(Finding{Kind: KindAnchorMismatch, Epoch: u64(e), Expected: a.Root.String(), Found: hd.root.String(),
				Detail: "the epoch root differs from the anchored root: the header was replaced, or this log is a fork of the anchored one"})
		default:
			matched[e] = true
		}
	}
	// Anchored epochs the log does not have: missing between epochs that
	// are present is removal; missing at the end is a truncated copy,
	// unless records follow the last header: those are the first missing
	// epoch's, and a writer makes a header durable before it is anchored.
	var truncatedFrom *uint64
	anchored := make([]uint64, 0, len(idx)) // epoch numbers are untrusted: never loop up to one
	for e := range idx {
		anchored = append(anchored, e)
	}
	slices.Sort(anchored)
	for _, e := range anchored {
		if present[e] || (v.newerEpochs != nil && e >= *v.newerEpochs) {
			continue
		}
		if len(v.headers) > 0 && e < maxPresent {
			v.c.add(Finding{Kind: KindEpochMissing, Epoch: u64(e), Expected: idx[e].Root.String(),
				Detail: "an anchored epoch is missing between epochs the log has: its header was removed"})
		} else if truncatedFrom == nil {
			truncatedFrom = u64(e)
		}
	}
	switch {
	case truncatedFrom != nil && v.count > v.sealedEnd:
		f := Finding{Kind: KindEpochMissing, Epoch: truncatedFrom, Seq: u64(v.sealedEnd), Expected: idx[*truncatedFrom].Root.String(),
			Detail: "an anchored epoch's header is missing but records after the last header are present: no crash leaves this (headers are durable before they are anchored); the header was removed, and these records may have been rewritten"}
		if n := v.count - v.sealedEnd; n > 1 {
			f.Count = n
		}
		v.c.add(f)
	case truncatedFrom != nil:
		v.c.add(Finding{Kind: KindTruncated, Epoch: truncatedFrom,
			Expected: fmt.Sprintf("epochs up to %d (anchored)", maxAnchored), Found: fmt.Sprintf("%d epoch headers", len(v.headers)),
			Detail: "the log ends before epochs that were anchored: this copy is truncated or older than the anchors"})
	}
	if len(v.headers) == 0 && v.count == 0 && len(idx) == 0 {
		v.c.add(Finding{Kind: KindUnanchored, Detail: "the log is empty and no anchors were given: nothing is verified"})
	}
	if len(unanchored) > 0 {
		detail := fmt.Sprintf("%d epochs from epoch %d on have no anchor yet", len(unanchored), unanchored[0])
		if len(idx) == 0 {
			detail = "no anchors were given: nothing ties the log to an external commitment"
		}
		v.c.add(Finding{Kind: KindUnanchored, Epoch: u64(unanchored[0]), Detail: detail})
	}
	// Coverage: the prefix of epochs whose roots match their anchors.
	for t := range v.headers {
		h := v.headers[t].h
		if h == nil || h.Epoch != uint64(t) || !matched[uint64(t)] {
			break
		}
		v.rep.AnchoredEpochs++
		v.rep.AnchoredEvents = min(h.FirstSeq+h.Count, v.count)
	}
}
