package verifier

import (
	"errors"
	"fmt"
	"sync"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
)

// payloadBatch is a run of consecutive payload frames, each with what its
// record commits it to (read in order as the frames are), which a worker
// checks and, at PayloadsOpen, decrypts; the findings are added in order.
type payloadBatch struct {
	v        *logVerifier
	epochOf  func(seq uint64) uint64
	seq      []uint64
	frame    [][]byte
	commit   []format.Digest
	version  []uint8
	check    []bool // the frame has a decoded record to check it against
	findings findingList
	checked  uint64
	opened   uint64
}

func (b *payloadBatch) process() {
	for k, i := range b.seq {
		if !b.check[k] {
			continue // no record (never acknowledged), or the record's own finding covers it
		}
		b.checked++
		if d := format.PayloadFrameDigest(b.frame[k]); d != b.commit[k] {
			b.findings.add(Finding{Kind: KindPayloadMismatch, Seq: u64(i), Expected: b.commit[k].String(), Found: d.String(),
				Detail: "the stored payload is not the one the record commits to: edited, or swapped with another event's"})
			continue
		}
		if b.v.opts.Payloads == PayloadsOpen && b.v.open(&b.findings, int(b.version[k]), i, b.epochOf(i), b.frame[k]) {
			b.opened++
		}
	}
}

// findingList collects findings as they are met, for a collector to add
// in the same order later: the same report as adding them at once.
type findingList []Finding

func (l *findingList) add(f Finding) { *l = append(*l, f) }

// checkPayloads checks stored payload frames against their records and,
// with keys, opens them.
func (v *logVerifier) checkPayloads(src Source) error {
	epochOf := v.epochIndex()
	var free sync.Pool
	check := func(b *payloadBatch) {
		for _, f := range b.findings {
			v.c.add(f)
		}
		v.rep.PayloadsChecked += b.checked
		v.rep.PayloadsOpened += b.opened
		// Recycled: the next batch reuses its slices.
		clear(b.frame) // let go of the segment windows
		b.seq, b.frame, b.commit, b.version, b.check, b.findings = b.seq[:0], b.frame[:0], b.commit[:0], b.version[:0], b.check[:0], b.findings[:0]
		b.checked, b.opened = 0, 0
		free.Put(b)
	}
	pool := newInOrder(v.opts.workers(), (*payloadBatch).process, check)
	ends := v.epochEnds()
	batch := func() *payloadBatch {
		if b, ok := free.Get().(*payloadBatch); ok {
			return b
		}
		return &payloadBatch{v: v, epochOf: epochOf}
	}
	cur := batch()
	send := func() {
		pool.send(cur)
		cur = batch()
	}
	var n, next uint64
	var gaps [][2]uint64 // positions [from, to) without a payload frame
	rerr := src.Payloads(func(i uint64, frame []byte) error {
		if i > next {
			gaps = append(gaps, [2]uint64{next, i})
		}
		next = i + 1
		n++
		var commit format.Digest
		var version uint8
		ok := false
		if i < v.count {
			var err error
			if commit, version, ok, err = v.commits.get(i); err != nil {
				return fmt.Errorf("verifier: reading back the payload commitments: %w", err)
			}
		}
		cur.seq, cur.frame = append(cur.seq, i), append(cur.frame, frame)
		cur.commit, cur.version, cur.check = append(cur.commit, commit), append(cur.version, version), append(cur.check, ok)
		for len(ends) > 0 && ends[0] <= i {
			ends = ends[1:]
		}
		if len(cur.seq) == batchSize || (len(ends) > 0 && ends[0] == i+1) {
			send()
		}
		if n%batchSize == 0 {
			if err := v.ctx.Err(); err != nil {
				return err // cancelled: stop mid-stream
			}
		}
		return nil
	})
	send()
	pool.wait()
	if err := v.streamEnd("payloads", rerr); err != nil {
		return err
	}
	// Payloads in a file of a newer version are not checked, not missing.
	unchecked := map[uint64]bool{}
	for _, d := range streamDamage(rerr) {
		var ve *segment.VersionError
		if errors.As(d, &ve) {
			unchecked[ve.Index] = true
		}
	}
	for _, g := range append(gaps, [2]uint64{next, v.count}) {
		if !unchecked[g[0]] {
			v.missingPayloads(g[0], min(g[1], v.count))
		}
	}
	return nil
}

// missingPayloads reports the payloads of events from..to-1, which the
// payloads stream does not hold. A writer makes payloads durable before
// records, records before their epoch header, and the header before the
// epoch is anchored: payloads of anchored events can only be missing if
// they were removed or damaged.
func (v *logVerifier) missingPayloads(from, to uint64) {
	anchored := min(v.rep.AnchoredEvents, to)
	if from < anchored {
		v.c.add(Finding{Kind: KindPayloadLost, Seq: u64(from), Count: anchored - from,
			Detail: fmt.Sprintf("the payloads of %d events in anchored epochs are missing or unreadable", anchored-from)})
	}
	if from = max(from, anchored); from < to {
		v.c.add(Finding{Kind: KindPayloadMissing, Seq: u64(from), Count: to - from,
			Detail: fmt.Sprintf("%d payloads of events not yet anchored are absent from the log", to-from)})
	}
}

// epochIndex maps a sequence number to its epoch (epochOf).
func (v *logVerifier) epochIndex() func(seq uint64) uint64 {
	var spans []span
	for t, hd := range v.headers {
		if hd.h != nil {
			spans = append(spans, spanOf(uint64(t), hd.h))
		}
	}
	return func(seq uint64) uint64 { return epochOf(spans, seq) }
}

// open decrypts a payload and checks it, adding findings to c, and
// reports whether it had a key to try (PayloadsOpened). It runs on the
// workers: Options.Keys is called from several goroutines.
func (v *logVerifier) open(c adder, version int, seq, epoch uint64, frame []byte) bool {
	k, err := v.opts.Keys.EventKey(version, epoch, seq)
	if errors.Is(err, format.ErrKeyErased) {
		c.add(Finding{Kind: KindPayloadErased, Seq: u64(seq), Epoch: u64(epoch), Detail: "key material erased: the payload is unrecoverable by design; hashes, proofs and anchors still verify"})
		return false
	}
	if err != nil {
		c.add(Finding{Kind: KindPayloadMissing, Seq: u64(seq), Detail: "no key for this payload: " + err.Error()})
		return false
	}
	checkOpen(c, &k, v.session, uint8(version), seq, frame)
	return true
}

// adder takes findings: a collector, or a findingList to add later.
type adder interface{ add(Finding) }

// checkOpen decrypts a frame with its event key and checks the commitment
// and the payload format of its record's version, adding a finding for
// each failure.
func checkOpen(c adder, k *format.EventKey, session format.SessionID, version uint8, seq uint64, frame []byte) *format.Payload {
	pt, err := format.OpenPayload(k, session, seq, frame)
	switch {
	case errors.Is(err, format.ErrCommitmentMismatch):
		c.add(Finding{Kind: KindPayloadCommit, Seq: u64(seq), Detail: "the decrypted payload does not match its commitment"})
		return nil
	case err != nil:
		c.add(Finding{Kind: KindPayloadDecrypt, Seq: u64(seq), Detail: err.Error()})
		return nil
	}
	p, err := format.DecodePayload(pt)
	if err == nil {
		err = p.CheckVersion(version)
	}
	if err != nil {
		c.add(Finding{Kind: KindPayloadDecode, Seq: u64(seq), Detail: err.Error()})
		return nil
	}
	return p
}
