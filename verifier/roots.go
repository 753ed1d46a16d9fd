package verifier

import (
	"slices"
	"sort"

	"github.com/agentflightrecorder/afr/format"
)

// epochTrees computes, while the records stream is read, what the epoch
// checks need of the records: for each decodable header, the Merkle root
// over the records it claims and the digest of the last of them. Nothing
// per record is kept, so memory is bounded by the headers, not the log.
//
// The headers are untrusted. The records of a span no other header's span
// intersects (every header of an intact log) are hashed by the workers, a
// batch at a time: the batches of such a span are cut at its start, every
// batchSize records, and at its end, so each full batch is a perfect
// subtree and the span's root joins them (format.RootOver). The spans that
// intersect others (forged or duplicated headers) have their leaves
// appended one by one, in order, to a tree of their own.
type epochTrees struct {
	spans   []treeSpan // distinct spans by (first, end)
	regular []int      // the spans that intersect no other, in order
	cuts    []uint64   // where record batches end: the regular spans' ends and starts, ascending
	byPos   []int      // header position → its span, -1 for none (undecodable, or end overflows)
	// lastAt are the positions whose record digest a header names as its
	// last (end−1), ascending, and last their digests once read.
	lastAt []uint64
	last   []format.Digest
	nextAt int // the next of lastAt to read

	cur      int         // the regular span being hashed (an index into regular)
	chunks   format.Tree // its full batches' roots
	active   []int       // the irregular spans holding the record being read
	irregNxt int         // the next irregular span to start, an index into irregular
	irreg    []int       // the irregular spans by first
}

type treeSpan struct {
	first, end uint64
	tree       *format.Tree // an irregular span's leaves so far
	root       format.Digest
	done       bool // every record of the span was read
}

// newEpochTrees plans the roots of the decodable headers.
func newEpochTrees(headers []header) *epochTrees {
	et := &epochTrees{byPos: make([]int, len(headers))}
	type key struct{ first, end uint64 }
	index := map[key]int{}
	for t, hd := range headers {
		et.byPos[t] = -1
		h := hd.h
		if h == nil {
			continue
		}
		end := h.FirstSeq + h.Count
		if end < h.FirstSeq {
			continue // overflows: never covered by the records read
		}
		et.lastAt = append(et.lastAt, end-1) // Count ≥ 1: the decoder refuses 0
		k := key{h.FirstSeq, end}
		if _, ok := index[k]; !ok {
			index[k] = len(et.spans)
			et.spans = append(et.spans, treeSpan{first: k.first, end: k.end})
		}
	}
	sort.Slice(et.spans, func(i, j int) bool {
		a, b := et.spans[i], et.spans[j]
		return a.first < b.first || (a.first == b.first && a.end < b.end)
	})
	for i, s := range et.spans {
		index[key{s.first, s.end}] = i
	}
	for t, hd := range headers {
		if h := hd.h; h != nil && h.FirstSeq+h.Count >= h.FirstSeq {
			et.byPos[t] = index[key{h.FirstSeq, h.FirstSeq + h.Count}]
		}
	}
	var maxEnd uint64 // of the spans before
	for i, s := range et.spans {
		before := i > 0 && s.first < maxEnd
		after := i+1 < len(et.spans) && s.end > et.spans[i+1].first
		if before || after {
			et.irreg = append(et.irreg, i)
		} else {
			et.regular = append(et.regular, i)
			et.cuts = append(et.cuts, s.first, s.end)
		}
		maxEnd = max(maxEnd, s.end)
	}
	et.cuts = slices.Compact(et.cuts)
	slices.Sort(et.lastAt)
	et.lastAt = slices.Compact(et.lastAt)
	et.last = make([]format.Digest, len(et.lastAt))
	return et
}

// spanOfBatch returns the regular span a batch starting at first lies in
// (batches never cross a cut), or -1. Batches are asked for in order.
func (et *epochTrees) spanOfBatch(first uint64) int {
	for et.cur < len(et.regular) && et.spans[et.regular[et.cur]].end <= first {
		et.cur++
	}
	if et.cur < len(et.regular) && et.spans[et.regular[et.cur]].first <= first {
		return et.regular[et.cur]
	}
	return -1
}

// record takes record i's leaf and digest, in order.
func (et *epochTrees) record(i uint64, leaf, digest *format.Digest) {
	if et.nextAt < len(et.lastAt) && et.lastAt[et.nextAt] == i {
		et.last[et.nextAt] = *digest
		et.nextAt++
	}
	if len(et.irreg) == 0 {
		return
	}
	for et.irregNxt < len(et.irreg) && et.spans[et.irreg[et.irregNxt]].first == i {
		s := &et.spans[et.irreg[et.irregNxt]]
		s.tree = format.NewTree()
		et.active = append(et.active, et.irreg[et.irregNxt])
		et.irregNxt++
	}
	for k := 0; k < len(et.active); k++ {
		s := &et.spans[et.active[k]]
		s.tree.AppendLeaf(*leaf)
		if i == s.end-1 {
			s.root, s.done, s.tree = s.tree.Root(), true, nil
			et.active = slices.Delete(et.active, k, k+1)
			k--
		}
	}
}

// batch takes a hashed batch of the regular span sp: records [first, end)
// whose own tree is tree. Batches are given in order.
func (et *epochTrees) batch(sp int, end uint64, tree *format.Tree) {
	s := &et.spans[sp]
	if end == s.end {
		s.root, s.done = format.RootOver(&et.chunks, tree), true
		et.chunks = format.Tree{}
		return
	}
	et.chunks.AppendLeaf(tree.Root()) // a full batch: batchSize, a power of two
}

// root returns the Merkle root over the records header t claims, if they
// were all read.
func (et *epochTrees) root(t int) (format.Digest, bool) {
	if sp := et.byPos[t]; sp >= 0 && et.spans[sp].done {
		return et.spans[sp].root, true
	}
	return format.Digest{}, false
}

// lastDigest returns the digest of record i, one a header names as its
// last, read from the stream (zero for a record lost to damage).
func (et *epochTrees) lastDigest(i uint64) format.Digest {
	if k, ok := slices.BinarySearch(et.lastAt, i); ok {
		return et.last[k]
	}
	return format.Digest{}
}
