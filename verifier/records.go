package verifier

import (
	"fmt"
	"slices"
	"sync"

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
	// span is the regular span of epochTrees the batch lies in (-1: none),
	// and tree the tree of its leaves, for the span's root.
	span int
	tree format.Tree
}

func (b *recordBatch) process() {
	// A recycled batch's slices are reused: out and err cleared; env kept,
	// the decoder overwrites it (reusing text fields equal to what is there).
	n := len(b.raw)
	b.out, b.err = slices.Grow(b.out[:0], n)[:n], slices.Grow(b.err[:0], n)[:n]
	clear(b.out)
	clear(b.err)
	b.env = slices.Grow(b.env[:0], n)[:n]
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
	if b.span >= 0 {
		for k := range b.out {
			b.tree.AppendLeaf(b.out[k].leaf)
		}
	}
}

// batchSize is the most records or payloads in a batch: a power of two,
// so that the full batches of an epoch are perfect subtrees of its tree.
const batchSize = 4096

// epochEnds returns, in increasing order, the first event after each epoch
// the decodable headers claim: where payload batches are cut. Headers are
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
// records of each epoch (and its Merkle tree) in parallel while one
// goroutine checks sequence, identity, chain and clock in order, keeping
// of each record only what the epoch and payload checks need.
func (v *logVerifier) readRecords(src Source) error {
	// Batches are recycled once checked: their tables are most of what a
	// verification would otherwise allocate per record.
	var free sync.Pool
	pool := newInOrder(v.opts.workers(), (*recordBatch).process, func(b *recordBatch) {
		v.checkBatch(b)
		clear(b.raw) // let go of the segment windows
		b.raw, b.lost, b.tree = b.raw[:0], nil, format.Tree{}
		free.Put(b)
	})
	batch := func(first uint64) *recordBatch {
		b, _ := free.Get().(*recordBatch)
		if b == nil {
			b = &recordBatch{raw: make([][]byte, 0, min(batchSize, 128))}
		}
		b.first, b.span = first, v.trees.spanOfBatch(first)
		return b
	}
	v.trees = newEpochTrees(v.headers)
	if v.opts.Payloads != PayloadsSkip {
		v.commits = &commits{}
	}
	ends := v.trees.cuts
	var n uint64
	cur := batch(0)
	send := func() {
		pool.send(cur)
		cur = batch(n)
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
	v.rep.Events, v.count = n, n
	return v.streamEnd("records", err)
}

// checkBatch runs the in-order checks over a processed batch.
func (v *logVerifier) checkBatch(b *recordBatch) {
	if b.span >= 0 && len(b.raw) > 0 { // the last batch sent may be empty
		v.trees.batch(b.span, b.first+uint64(len(b.raw)), &b.tree)
	}
	for k := range b.raw {
		i := b.first + uint64(k)
		rec := &b.out[k]
		v.trees.record(i, &rec.leaf, &rec.digest)
		if v.commits != nil {
			v.commits.add(rec.payload, rec.version, rec.ok)
		}
		if b.lost[k] {
			v.lostRecord(i)
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
	}
}

// lostRecord notes record i lost to stream damage: runs of them, for
// newerVersion.
func (v *logVerifier) lostRecord(i uint64) {
	if n := len(v.lost); n > 0 && v.lost[n-1][1] == i {
		v.lost[n-1][1] = i + 1
		return
	}
	v.lost = append(v.lost, [2]uint64{i, i + 1})
}

func chainBreakDetail(i uint64) string {
	if i == 0 {
		return "the first record does not start the chain"
	}
	return fmt.Sprintf("record %d does not link to record %d: one of them was changed, or records were removed or inserted between them", i, i-1)
}

func idString(rec string, s format.SessionID) string { return fmt.Sprintf("%s/%s", rec, s) }

// newerVersion reports whether record i was not read because it is in a
// segment file of a newer format version; i = the number of records asks
// whether the stream ends in such a file.
func (v *logVerifier) newerVersion(i uint64) bool { return v.newerVersionIn(i, i+1) }

// newerVersionIn reports whether any record of [from, to) is unread for
// being in a segment file of a newer format version: from the first record
// of such a file on, the run of records lost there (the end of the stream
// counting as lost).
func (v *logVerifier) newerVersionIn(from, to uint64) bool {
	if v.newer == nil {
		v.newer = [][2]uint64{}
		for _, s := range v.newerRecords {
			run, ok := [2]uint64{s, s + 1}, s == v.count
			for _, r := range v.lost {
				if r[0] <= s && s < r[1] {
					run, ok = [2]uint64{s, r[1]}, true
				}
			}
			if ok && run[1] == v.count {
				run[1] = v.count + 1 // the end of the stream
			}
			if ok {
				v.newer = append(v.newer, run)
			}
		}
	}
	for _, r := range v.newer {
		if r[0] < to && from < r[1] {
			return true
		}
	}
	return false
}
