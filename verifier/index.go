package verifier

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"sort"

	"github.com/agentflightrecorder/afr/format"
)

// Event is one decoded event for forensic queries.
type Event struct {
	Seq      uint64          `json:"seq"`
	Epoch    uint64          `json:"epoch"`
	Envelope format.Envelope `json:"envelope"`
	Payload  *format.Payload `json:"payload,omitempty"` // nil when not available (no key, not disclosed)
	fields   map[string]any  // payload as JSON values (numbers as json.Number), for field matches
	digest   format.Digest   // record digest: the event id PDRs bind
}

// Index holds a log's (or a bundle's) events for structured queries. Only
// events whose records decode are indexed; verify first to know whether the
// log is intact.
type Index struct {
	events   []*Event
	bySeq    map[uint64]*Event
	byDigest map[format.Digest]*Event
	byID     map[runID][]*Event    // events by run and id (docs/SPEC.md, "Links by id")
	headers  []*format.EpochHeader // decodable headers, in log order
}

// IndexLog decodes every record of a log and, where it can, its payload:
// with keys, payloads are opened and checked against their commitments;
// plaintext frames (mode 0) whose digest matches the record are read as
// they are when no key opens them. Damage in a stream (a
// *segment.CorruptError or *segment.TornTailError) does not stop it: what
// is readable is indexed, and VerifyLog says what is not.
func IndexLog(src Source, keys Keys) (*Index, error) {
	ix := &Index{bySeq: map[uint64]*Event{}, byDigest: map[format.Digest]*Event{}}
	streamErr := func(err error) error {
		if isStreamEnd(err) {
			return nil
		}
		return err
	}
	var spans []span
	if err := src.Epochs(func(t uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err == nil {
			ix.headers = append(ix.headers, h)
			spans = append(spans, spanOf(t, h))
		}
		return nil
	}); streamErr(err) != nil {
		return nil, err
	}
	if err := src.Records(func(seq uint64, raw []byte) error {
		e, err := format.DecodeEnvelope(raw)
		if err != nil || e.Seq != seq {
			return nil
		}
		ev := &Event{Seq: seq, Epoch: epochOf(spans, seq), Envelope: *e, digest: format.RecordDigest(raw)}
		ix.add(ev)
		return nil
	}); streamErr(err) != nil {
		return nil, err
	}
	err := src.Payloads(func(seq uint64, frame []byte) error {
		ev := ix.bySeq[seq]
		if ev == nil || format.PayloadFrameDigest(frame) != ev.Envelope.Payload {
			return nil
		}
		var pt []byte
		if keys != nil {
			if k, err := keys.EventKey(int(ev.Envelope.Version), ev.Epoch, seq); err == nil {
				pt, _ = format.OpenPayload(&k, ev.Envelope.Session, seq, frame)
			}
		}
		if pt == nil {
			pt, _ = format.PlainText(frame)
		}
		if pt != nil {
			ev.setPayload(pt)
		}
		return nil
	})
	return ix, streamErr(err)
}

// runID is an event id within its run.
type runID struct{ run, id string }

// span is where a decodable epoch header sits in its log: its position in
// the epochs stream and the events [first, end) it covers.
type span struct{ pos, first, end uint64 }

func spanOf(pos uint64, h *format.EpochHeader) span {
	end := h.FirstSeq + h.Count
	if end < h.FirstSeq { // overflow: a forged count
		end = ^uint64(0)
	}
	return span{pos: pos, first: h.FirstSeq, end: end}
}

// epochOf returns the epoch of event seq (docs/SPEC.md, "Keys") given the
// decodable headers of a log in stream order: the position of the header
// that covers seq; for an event no decodable header covers (unsealed, or
// under a header that does not decode), the position after the last
// decodable header that ends at or before it, 0 if none. Frames of the
// epochs stream that do not decode (a damaged header, or garbage after the
// last one) thus never move an event to another epoch than the one its
// neighbours place it in.
func epochOf(spans []span, seq uint64) uint64 {
	i, ok := locate(spans, seq)
	switch {
	case ok:
		return spans[i].pos
	case i == 0:
		return 0
	}
	return spans[i-1].pos + 1
}

// locate returns the index of the first span that ends after seq, and
// whether it covers seq.
func locate(spans []span, seq uint64) (int, bool) {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].end > seq })
	return i, i < len(spans) && spans[i].first <= seq
}

// lastCovering returns, for each seq of seqs, the index of the last span
// of spans that covers it, or -1 when none does: what a
// search of every span for every seq finds, in O((n+m) log n) for n spans
// and m seqs, whatever their order or overlaps (a bundle may repeat a
// header 100,000 times).
func lastCovering(spans []span, seqs []uint64) []int {
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return seqs[order[a]] < seqs[order[b]] })
	byFirst := make([]span, len(spans))
	for i, sp := range spans {
		byFirst[i] = span{pos: uint64(i), first: sp.first, end: sp.end}
	}
	sort.SliceStable(byFirst, func(a, b int) bool { return byFirst[a].first < byFirst[b].first })
	out := make([]int, len(seqs))
	var open lastSpans
	j := 0
	for _, k := range order {
		s := seqs[k]
		for ; j < len(byFirst) && byFirst[j].first <= s; j++ {
			heap.Push(&open, byFirst[j])
		}
		// Spans that end at or before s end before every later seq too.
		for len(open) > 0 && open[0].end <= s {
			heap.Pop(&open)
		}
		out[k] = -1
		if len(open) > 0 {
			out[k] = int(open[0].pos)
		}
	}
	return out
}

// lastSpans is a heap of spans, the last (largest pos) on top.
type lastSpans []span

func (h lastSpans) Len() int           { return len(h) }
func (h lastSpans) Less(i, j int) bool { return h[i].pos > h[j].pos }
func (h lastSpans) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lastSpans) Push(x any)        { *h = append(*h, x.(span)) }
func (h *lastSpans) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (ix *Index) add(ev *Event) {
	ix.events = append(ix.events, ev)
	ix.bySeq[ev.Seq] = ev
	ix.byDigest[ev.digest] = ev
	if e := &ev.Envelope; e.ID != "" {
		if ix.byID == nil {
			ix.byID = map[runID][]*Event{}
		}
		k := runID{e.Run, e.ID}
		ix.byID[k] = append(ix.byID[k], ev)
	}
}

// IndexBundle indexes the events of a bundle; payloads are those that open
// with their disclosed keys.
func IndexBundle(b *Bundle) *Index {
	ix := &Index{bySeq: map[uint64]*Event{}, byDigest: map[format.Digest]*Event{}}
	for _, raw := range b.Headers {
		if h, err := format.DecodeEpochHeader(raw); err == nil {
			ix.headers = append(ix.headers, h)
		}
	}
	spans := make([]span, len(ix.headers))
	for i, h := range ix.headers {
		spans[i] = spanOf(uint64(i), h)
	}
	envs, _ := decodeRecords(b.Events)
	seqs := make([]uint64, len(envs))
	for i, e := range envs {
		if e != nil {
			seqs[i] = e.Seq
		}
	}
	cover := lastCovering(spans, seqs)
	for i, d := range b.Events {
		e := envs[i]
		if e == nil {
			continue
		}
		ev := &Event{Seq: e.Seq, Envelope: *e, digest: format.RecordDigest(d.Record)}
		if h := cover[i]; h >= 0 {
			ev.Epoch = ix.headers[h].Epoch
		}
		if len(d.Key) == format.EventKeySize && format.PayloadFrameDigest(d.Payload) == e.Payload {
			var k format.EventKey
			copy(k[:], d.Key)
			if pt, err := format.OpenPayload(&k, e.Session, e.Seq, d.Payload); err == nil {
				ev.setPayload(pt)
			}
		}
		ix.add(ev)
	}
	sort.Slice(ix.events, func(i, j int) bool { return ix.events[i].Seq < ix.events[j].Seq })
	return ix
}

func (ev *Event) setPayload(pt []byte) {
	p, err := format.DecodePayload(pt)
	if err != nil || p.CheckVersion(ev.Envelope.Version) != nil {
		return
	}
	ev.Payload = p
	b, err := json.Marshal(p)
	if err == nil {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber() // numbers keep their digits, for exact = and numeric <, >
		d.Decode(&ev.fields)
	}
}

// Digest returns the event's record digest: its event id, the leaf of its
// epoch's Merkle tree.
func (ev *Event) Digest() format.Digest { return ev.digest }

// ByDigest returns the event whose record digest is d: the event id a PDR
// binds (docs/SPEC.md, "On-chain completeness").
func (ix *Index) ByDigest(d format.Digest) (*Event, bool) {
	ev, ok := ix.byDigest[d]
	return ev, ok
}

// Headers returns the decodable epoch headers, in log order.
func (ix *Index) Headers() []*format.EpochHeader { return ix.headers }

// Len returns the number of indexed events.
func (ix *Index) Len() int { return len(ix.events) }

// Event returns the event with sequence number seq.
func (ix *Index) Event(seq uint64) (*Event, bool) {
	ev, ok := ix.bySeq[seq]
	return ev, ok
}

// Seqs returns the sequence numbers of events, for Disclose.
func Seqs(events []*Event) []uint64 {
	out := make([]uint64, len(events))
	for i, ev := range events {
		out[i] = ev.Seq
	}
	return out
}
