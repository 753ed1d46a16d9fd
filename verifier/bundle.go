package verifier

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/agentflightrecorder/afr/format"
)

// BundleVersion is the disclosure-bundle format version (docs/SPEC.md,
// "Disclosure bundle").
const BundleVersion = 1

// MaxBundleSize bounds a bundle accepted by DecodeBundle (64 MiB).
const MaxBundleSize = 64 << 20

// Bundle discloses chosen events of a log to a third party: their records,
// the inclusion proofs and epoch headers that tie them to anchored roots,
// and optionally their payload frames and per-event keys. It never holds an
// epoch key or the master key.
type Bundle struct {
	Version  uint8            `cbor:"0,keyasint" json:"version"`
	Recorder string           `cbor:"1,keyasint" json:"recorder"`
	Session  format.SessionID `cbor:"2,keyasint" json:"session"`
	Headers  []format.Bytes   `cbor:"3,keyasint" json:"headers"` // encoded epoch headers, by epoch
	Events   []DisclosedEvent `cbor:"4,keyasint" json:"events"`  // by sequence number
}

// DisclosedEvent is one event of a bundle.
type DisclosedEvent struct {
	Record  format.Bytes    `cbor:"1,keyasint" json:"record"`                      // encoded envelope
	Index   uint64          `cbor:"2,keyasint" json:"index"`                       // leaf index in its epoch
	Path    []format.Digest `cbor:"3,keyasint" json:"path"`                        // RFC 6962 audit path
	Payload format.Bytes    `cbor:"4,keyasint,omitempty" json:"payload,omitempty"` // stored payload frame
	Key     format.Bytes    `cbor:"5,keyasint,omitempty" json:"key,omitempty"`     // 64-byte event key
}

// bundleDecoder bounds a bundle's encoding: nesting of a few levels, up to
// 2^20 events, paths or headers.
var bundleDecoder = format.NewDecoder(format.Limits{Size: MaxBundleSize, Nesting: 8, Items: 1 << 20})

// Encode returns the bundle's canonical CBOR encoding.
func (b *Bundle) Encode() ([]byte, error) { return format.Marshal(b) }

// LogID returns the id of the log the bundle declares itself a part of
// (format.LogID of its recorder and session): what its anchors are
// committed under. VerifyBundle checks every record and header against
// that identity.
func (b *Bundle) LogID() format.Digest { return format.LogID(b.Recorder, b.Session) }

// DecodeBundle decodes a bundle, rejecting non-canonical or oversized input.
// What the bundle holds (its order included) is judged by VerifyBundle; a
// bundle with no events decodes, and verifies as incomplete.
func DecodeBundle(data []byte) (*Bundle, error) {
	if len(data) > MaxBundleSize {
		return nil, fmt.Errorf("verifier: bundle is %d bytes, limit %d", len(data), MaxBundleSize)
	}
	var b Bundle
	if err := bundleDecoder.Decode(data, &b); err != nil {
		return nil, fmt.Errorf("verifier: decode bundle: %w", err)
	}
	if b.Version == 0 || b.Version > BundleVersion {
		return nil, fmt.Errorf("verifier: bundle version %d, this build reads up to %d", b.Version, BundleVersion)
	}
	// CBOR null decodes to a nil slice, which re-encodes as null: the
	// canonical check alone would take it for an array or a byte string.
	if b.Headers == nil || b.Events == nil {
		return nil, errors.New("verifier: decode bundle: headers and events must be arrays, not null")
	}
	for i, h := range b.Headers {
		if h == nil {
			return nil, fmt.Errorf("verifier: decode bundle: header %d is null, not a byte string", i)
		}
	}
	for i, e := range b.Events {
		if e.Record == nil || e.Path == nil {
			return nil, fmt.Errorf("verifier: decode bundle: event %d: record and path must be a byte string and an array, not null", i)
		}
		if len(e.Key) != 0 && len(e.Key) != format.EventKeySize {
			return nil, fmt.Errorf("verifier: bundle event %d: key of %d bytes, want %d", i, len(e.Key), format.EventKeySize)
		}
	}
	return &b, nil
}

// decodeRecords decodes the record of each event of a bundle: the
// envelope, or nil and the error that refused it.
func decodeRecords(events []DisclosedEvent) ([]*format.Envelope, []error) {
	envs, errs := make([]*format.Envelope, len(events)), make([]error, len(events))
	for i, ev := range events {
		envs[i], errs[i] = format.DecodeEnvelope(ev.Record)
	}
	return envs, errs
}

// DiscloseOptions choose what a bundle carries besides records and proofs.
type DiscloseOptions struct {
	Payloads bool // include the stored payload frames
	Keys     Keys // if set, include each event's key (implies Payloads)
}

// UnsealedError is returned by Disclose for an event in no sealed epoch:
// there is no root to prove it against until its epoch is sealed.
type UnsealedError struct {
	Seq uint64
}

func (e *UnsealedError) Error() string {
	return fmt.Sprintf("verifier: event %d is not in a sealed epoch", e.Seq)
}

// Disclose builds a bundle for the events seqs of a log (a Source, such as
// *recorder.Log). Every event must be in a sealed epoch (else a
// *UnsealedError); the bundle takes the log's identity from its first epoch
// header. The log is read once.
func Disclose(src Source, seqs []uint64, opts DiscloseOptions) (*Bundle, error) {
	if len(seqs) == 0 {
		return nil, errors.New("verifier: no events to disclose")
	}
	want := map[uint64]bool{}
	for _, s := range seqs {
		want[s] = true
	}
	// Epochs of the wanted events.
	var raws [][]byte
	var headers []*format.EpochHeader
	var spans []span
	err := src.Epochs(func(_ uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		spans = append(spans, spanOf(uint64(len(headers)), h))
		raws, headers = append(raws, raw), append(headers, h)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// sealedEpoch is the position of the sealed epoch holding seq, or -1.
	sealedEpoch := func(seq uint64) int {
		if i, ok := locate(spans, seq); ok {
			return int(spans[i].pos)
		}
		return -1
	}
	needed := map[int]bool{}
	for s := range want {
		t := sealedEpoch(s)
		if t < 0 {
			return nil, &UnsealedError{Seq: s}
		}
		needed[t] = true
	}
	// One pass over the records: digests of the needed epochs.
	digests := map[int][]format.Digest{}
	records := map[uint64][]byte{}
	err = src.Records(func(seq uint64, raw []byte) error {
		if t := sealedEpoch(seq); t >= 0 && needed[t] {
			digests[t] = append(digests[t], format.RecordDigest(raw))
			if want[seq] {
				records[seq] = raw
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	frames := map[uint64][]byte{}
	if opts.Payloads || opts.Keys != nil {
		if err := src.Payloads(func(seq uint64, f []byte) error {
			if want[seq] {
				frames[seq] = f
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	b := &Bundle{Version: BundleVersion, Recorder: headers[0].Recorder, Session: headers[0].Session}
	ts := make([]int, 0, len(needed))
	for t := range needed {
		ts = append(ts, t)
	}
	sort.Ints(ts)
	for _, t := range ts {
		if uint64(len(digests[t])) != headers[t].Count {
			return nil, fmt.Errorf("verifier: epoch %d has %d records, its header says %d: verify the log first", t, len(digests[t]), headers[t].Count)
		}
		b.Headers = append(b.Headers, raws[t])
	}
	sorted := make([]uint64, 0, len(want))
	for s := range want {
		sorted = append(sorted, s)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	for _, s := range sorted {
		t := sealedEpoch(s)
		h := headers[t]
		path, err := format.MerklePath(digests[t], s-h.FirstSeq)
		if err != nil {
			return nil, err
		}
		if path == nil {
			path = []format.Digest{}
		}
		ev := DisclosedEvent{Record: records[s], Index: s - h.FirstSeq, Path: path}
		if opts.Payloads || opts.Keys != nil {
			f, ok := frames[s]
			if !ok {
				return nil, fmt.Errorf("verifier: event %d has no payload in the log", s)
			}
			ev.Payload = f
		}
		if opts.Keys != nil {
			e, err := format.DecodeEnvelope(records[s])
			if err != nil {
				return nil, fmt.Errorf("verifier: record of event %d: %w", s, err)
			}
			k, err := opts.Keys.EventKey(int(e.Version), h.Epoch, s)
			if err != nil {
				return nil, fmt.Errorf("verifier: key of event %d: %w", s, err)
			}
			ev.Key = k[:]
		}
		b.Events = append(b.Events, ev)
	}
	return b, nil
}

// BundleReport is the result of verifying a bundle: the report, and for each
// disclosed event whose payload opened, the payload.
type BundleReport struct {
	Report
	Payloads map[uint64]*format.Payload `json:"payloads,omitempty"`
}

// VerifyBundle checks every event of a bundle against the anchors: record
// format and identity, inclusion proof to its epoch's Merkle root, the epoch
// root against its anchor, and — at the chosen payload level — the payload
// frame against the record and, with a disclosed key, the plaintext against
// its commitment. Events not in the bundle are not judged. Of opts, only
// Payloads and MaxFindings apply: the keys are the bundle's own, and
// completeness needs the whole log.
func VerifyBundle(ctx context.Context, b *Bundle, anchors AnchorSource, opts Options) (*BundleReport, error) {
	if opts.MaxFindings == 0 {
		opts.MaxFindings = 1000
	}
	level := opts.Payloads
	c := &collector{max: opts.MaxFindings}
	as, _, err := readAnchors(ctx, anchors, c)
	if err != nil {
		return nil, err
	}
	// Only the anchors of the bundle's epochs matter: index just those (a
	// long log has many anchors, a bundle a few epochs).
	needed := map[uint64]bool{}
	for _, raw := range b.Headers {
		if h, err := format.DecodeEpochHeader(raw); err == nil {
			needed[h.Epoch] = true
		}
	}
	var relevant []format.Anchor
	for _, a := range as {
		if needed[a.Epoch] {
			relevant = append(relevant, a)
		}
	}
	idx := anchorIndex(relevant, false, c)
	rep := &BundleReport{Payloads: map[uint64]*format.Payload{}}
	type hdr struct {
		h    *format.EpochHeader
		root format.Digest
	}
	var headers []hdr
	for i, raw := range b.Headers {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			c.add(Finding{Kind: KindHeaderDecode, Epoch: u64(uint64(i)), Detail: err.Error()})
			continue
		}
		ep := u64(h.Epoch)
		if n := len(headers); n > 0 && h.Epoch <= headers[n-1].h.Epoch {
			c.add(Finding{Kind: KindBundleOrder, Epoch: ep, Expected: fmt.Sprintf("epoch > %d", headers[n-1].h.Epoch), Found: fmt.Sprintf("epoch %d", h.Epoch),
				Detail: "the bundle's epoch headers are not in strictly increasing epoch order: reordered or duplicated"})
		}
		if h.Recorder != b.Recorder || h.Session != b.Session {
			c.add(Finding{Kind: KindForeignRecord, Epoch: ep, Expected: idString(b.Recorder, b.Session), Found: idString(h.Recorder, h.Session), Detail: "epoch header of another session or recorder"})
		}
		root := format.EpochRoot(raw)
		switch a, ok := idx[h.Epoch]; {
		case !ok:
			c.add(Finding{Kind: KindUnanchored, Epoch: ep, Detail: "no anchor for this epoch"})
		case a.Root != root:
			c.add(Finding{Kind: KindAnchorMismatch, Epoch: ep, Expected: a.Root.String(), Found: root.String(), Detail: "the epoch root differs from the anchored root"})
		default:
			rep.AnchoredEpochs++
		}
		headers = append(headers, hdr{h, root})
		rep.Epochs++
	}
	spans := make([]span, len(headers))
	for i, h := range headers {
		spans[i] = spanOf(uint64(i), h.h)
	}
	envs, errs := decodeRecords(b.Events)
	seqs := make([]uint64, len(envs))
	for i, e := range envs {
		if e != nil {
			seqs[i] = e.Seq
		}
	}
	// The header of each event: the last that covers it.
	cover := lastCovering(spans, seqs)
	var lastSeq *uint64 // of the last decoded event
	for i, ev := range b.Events {
		rep.Events++
		e := envs[i]
		if e == nil {
			c.add(Finding{Kind: KindRecordDecode, Detail: errs[i].Error()})
			continue
		}
		seq := u64(e.Seq)
		if lastSeq != nil && e.Seq <= *lastSeq {
			c.add(Finding{Kind: KindBundleOrder, Seq: seq, Expected: fmt.Sprintf("seq > %d", *lastSeq), Found: fmt.Sprintf("seq %d", e.Seq),
				Detail: "the bundle's events are not in strictly increasing seq order: reordered or duplicated"})
		}
		lastSeq = seq
		var h *hdr
		if j := cover[i]; j >= 0 {
			h = &headers[j]
		}
		if h == nil {
			c.add(Finding{Kind: KindRecordsMissing, Seq: seq, Detail: "the bundle has no epoch header covering this event"})
			continue
		}
		if e.Recorder != b.Recorder || e.Session != b.Session {
			c.add(Finding{Kind: KindForeignRecord, Seq: seq, Expected: idString(b.Recorder, b.Session), Found: idString(e.Recorder, e.Session), Detail: "record of another session or recorder"})
		}
		if ev.Index != e.Seq-h.h.FirstSeq {
			c.add(Finding{Kind: KindSequence, Seq: seq, Expected: fmt.Sprint(e.Seq - h.h.FirstSeq), Found: fmt.Sprint(ev.Index), Detail: "the proof's leaf index is not the record's position in its epoch"})
			continue
		}
		if err := format.VerifyInclusion(format.RecordDigest(ev.Record), ev.Index, h.h.Count, ev.Path, h.h.MerkleRoot); err != nil {
			c.add(Finding{Kind: KindProofInvalid, Seq: seq, Epoch: u64(h.h.Epoch), Detail: err.Error()})
			continue
		}
		if a, ok := idx[h.h.Epoch]; ok && a.Root == h.root {
			rep.AnchoredEvents++
		}
		if level == PayloadsSkip {
			continue
		}
		if len(ev.Payload) == 0 {
			c.add(Finding{Kind: KindPayloadMissing, Seq: seq, Detail: "payload not disclosed"})
			continue
		}
		rep.PayloadsChecked++
		if format.PayloadFrameDigest(ev.Payload) != e.Payload {
			c.add(Finding{Kind: KindPayloadMismatch, Seq: seq, Detail: "the disclosed payload is not the one the record commits to"})
			continue
		}
		if level != PayloadsOpen {
			continue // keys are used at level open only, even when bundled
		}
		if len(ev.Key) == 0 {
			c.add(Finding{Kind: KindPayloadMissing, Seq: seq, Detail: "event key not disclosed: the payload cannot be opened"})
			continue
		}
		var k format.EventKey
		copy(k[:], ev.Key)
		if p := checkOpen(c, &k, b.Session, e.Version, e.Seq, ev.Payload); p != nil {
			rep.Payloads[e.Seq] = p
			rep.PayloadsOpened++
		}
	}
	if len(b.Events) == 0 {
		c.add(Finding{Kind: KindBundleEmpty, Detail: "the bundle discloses no events: nothing is verified"})
	}
	rep.Findings, rep.Dropped, rep.Verdict = c.findings, c.dropped, c.verdict
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	return rep, nil
}
