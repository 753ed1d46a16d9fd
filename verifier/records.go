package verifier

import (
	"fmt"
	"slices"

	"github.com/agentflightrecorder/afr/format"
)

// recordBatch is a run of consecutive records — an epoch's, as its header
// says, or at most batchSize — decoded and hashed by a worker; the checks
// that link records run in order on the results.
type recordBatch struct {
	first uint64
	raw   [][]byte
	out   []record
	env   []format.Envelope
	err   []error
	lost  map[int]bool // records lost to stream damage, kept as placeholders
}

func (b *recordBatch) process() {
	b.out = make([]record, len(b.raw))
	b.env = make([]format.Envelope, len(b.raw))
	b.err = make([]error, len(b.raw))
	for k, raw := range b.raw {
		if b.lost[k] {
			b.out[k].lost = true
			continue
		}
		b.out[k].digest = format.RecordDigest(raw)
		b.out[k].leaf = format.LeafHash(b.out[k].digest)
		if k > 0 {
			b.env[k] = b.env[k-1] // lets the decoder reuse equal text fields
		}
		if err := format.DecodeEnvelopeInto(raw, &b.env[k]); err != nil {
			b.err[k] = err
			continue
		}
		b.out[k].ok, b.out[k].payload, b.out[k].version = true, b.env[k].Payload, b.env[k].Version
	}
}

const batchSize = 4096

// epochEnds returns, in increasing order, the first event after each epoch
// the decodable headers claim: where record batches are cut. Headers are
// not trusted here: a forged one only moves a cut, never a finding.
func (v *logVerifier) epochEnds() []uint64 {
	var ends []uint64
	for t, hd := range v.headers {
		if hd.h != nil {
			ends = append(ends, spanOf(uint64(t), hd.h).end)
		}
	}
	slices.Sort(ends)
	return slices.Compact(ends)
}

// readRecords reads the records stream: workers decode and hash the
// records of each epoch in parallel while one goroutine checks sequence,
// identity, chain and clock in order.
func (v *logVerifier) readRecords(src Source) error {
	pool := newInOrder(v.opts.workers(), (*recordBatch).process, v.checkBatch)
	// The headers tell how many records to expect.
	if k := len(v.headers); k > 0 && v.headers[k-1].h != nil {
		if end := v.headers[k-1].h.FirstSeq + v.headers[k-1].h.Count; end < 1<<28 {
			v.records = make([]record, 0, end+batchSize)
		}
	}
	ends := v.epochEnds()
	var n uint64
	cur := &recordBatch{}
	send := func() {
		pool.send(cur)
		cur = &recordBatch{first: n, raw: make([][]byte, 0, min(batchSize, 128))}
	}
	add := func(raw []byte) {
		cur.raw = append(cur.raw, raw)
		n++
		for len(ends) > 0 && ends[0] < n {
			ends = ends[1:]
		}
		if len(cur.raw) == batchSize || (len(ends) > 0 && ends[0] == n) {
			send()
		}
	}
	err := src.Records(func(i uint64, raw []byte) error {
		for n < i {
			// Lost to stream damage (streamEnd reports it): the records
			// after it keep their positions.
			if cur.lost == nil {
				cur.lost = map[int]bool{}
			}
			cur.lost[len(cur.raw)] = true
			add(nil)
		}
		add(raw)
		if n%batchSize == 0 {
			return v.ctx.Err() // cancelled: stop mid-stream
		}
		return nil
	})
	send()
	pool.wait()
	v.rep.Events = n
	return v.streamEnd("records", err)
}

// checkBatch runs the in-order checks over a processed batch.
func (v *logVerifier) checkBatch(b *recordBatch) {
	for k := range b.raw {
		i := b.first + uint64(k)
		rec := b.out[k]
		if b.lost[k] {
			v.records = append(v.records, rec)
			v.afterLost = true
			continue
		}
		if b.err[k] != nil {
			v.c.add(Finding{Kind: KindRecordDecode, Seq: u64(i), Detail: b.err[k].Error()})
		} else {
			e := &b.env[k]
			v.setIdentity(e.Recorder, e.Session)
			if s := int64(e.Seq) - int64(i); s != v.shift && s != 0 {
				v.c.add(Finding{Kind: KindSequence, Seq: u64(i), Expected: fmt.Sprint(i), Found: fmt.Sprint(e.Seq),
					Detail: "the record's sequence number is not its position: records inserted, deleted or reordered here"})
				v.shift = s
			} else if s == 0 {
				v.shift = 0
			}
			if e.Recorder != v.recorder || e.Session != v.session {
				v.c.add(Finding{Kind: KindForeignRecord, Seq: u64(i), Expected: idString(v.recorder, v.session), Found: idString(e.Recorder, e.Session),
					Detail: "record of another session or recorder"})
			}
			if e.Prev != v.prev && !v.afterLost {
				v.c.add(Finding{Kind: KindChainBreak, Seq: u64(i), Expected: v.prev.String(), Found: e.Prev.String(),
					Detail: chainBreakDetail(i)})
			}
			if i > 0 && e.Clock <= v.prevClock {
				v.c.add(Finding{Kind: KindClock, Seq: u64(i), Expected: fmt.Sprintf("> %d", v.prevClock), Found: fmt.Sprint(e.Clock),
					Detail: "logical clock does not increase"})
			}
			v.prevClock = e.Clock
		}
		v.prev, v.afterLost = rec.digest, false
		v.records = append(v.records, rec)
	}
}

func chainBreakDetail(i uint64) string {
	if i == 0 {
		return "the first record does not start the chain"
	}
	return fmt.Sprintf("record %d does not link to record %d: one of them was changed, or records were removed or inserted between them", i, i-1)
}

func idString(rec string, s format.SessionID) string { return fmt.Sprintf("%s/%s", rec, s) }

// newerVersion reports whether record i was not read because it is in a
// segment file of a newer format version; i = len(records) asks whether the
// stream ends in such a file.
func (v *logVerifier) newerVersion(i uint64) bool {
	if v.newer == nil {
		// Unread records from the start of a newer-version file on, up to
		// the next record read.
		starts := map[uint64]bool{}
		for _, s := range v.newerRecords {
			starts[s] = true
		}
		v.newer = make([]bool, len(v.records)+1)
		for j := range v.newer {
			lost := j == len(v.records) || v.records[j].lost
			v.newer[j] = lost && (starts[uint64(j)] || (j > 0 && v.newer[j-1]))
		}
	}
	return i < uint64(len(v.newer)) && v.newer[i]
}

// newerVersionIn reports whether any record of [from, to) is unread for
// being in a segment file of a newer format version.
func (v *logVerifier) newerVersionIn(from, to uint64) bool {
	for i := from; i < to; i++ {
		if v.newerVersion(i) {
			return true
		}
	}
	return false
}
