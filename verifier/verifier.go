// Package verifier decides whether an AFR log (or a disclosure bundle) is
// intact: it checks every record, the hash chain, each epoch's RFC 6962
// Merkle root and chain head, the epoch chain, and each epoch root against
// the roots anchored on chain, and optionally the payloads — by digest, or
// decrypted with event keys and checked against their commitments. The
// formats are those of docs/SPEC.md; the checks and finding kinds are listed
// in its "Verification" section.
//
// The outcome is one of three verdicts with a list of findings:
//
//   - Verified: every check passed and every event is in an epoch whose
//     root matches its anchor.
//   - Tampered: some evidence contradicts itself or the anchors.
//   - Incomplete: nothing contradicts the anchors, but something is
//     missing: events after the last anchored (or sealed) epoch, a
//     truncated or torn tail, payloads missing or not disclosed.
//
// # Queries
//
// IndexLog and IndexBundle index a log's (or bundle's) events for forensic
// queries (afr query). A Query combines envelope conditions (tool, kind,
// group, a sequence range, a range of the recorder's time) with payload
// field conditions on the payload's JSON: every one of Fields holds and at
// least one of Any. ParseFieldMatch reads "PATH OP VALUE": OP is = (exact
// text), ~ (substring), != (differs), or <, <=, >, >= (numbers, compared
// exactly); PATH names fields with dots, list elements by index or * (any
// element), as in "effects.*.file_write.path~/etc". A path the payload
// cannot have is an error naming it and the fields known there.
// Index.Around adds neighbouring events to matches, as grep -B/-A;
// CausalChain and Delegations follow provenance links.
//
// # Security
//
// A log is never reported verified unless every record is covered by an
// epoch whose root equals the anchored root. Failure classes are kept apart:
// a decode failure, a chain break, a Merkle mismatch and an anchor mismatch
// are separate findings, and one never hides another.
package verifier

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/agentflightrecorder/afr/format"
)

// Source is a log to verify. *recorder.Log implements it; so does an
// in-memory image (see package tamper). Each method calls visit with the
// frames of one stream in increasing position; a position skipped is a
// frame lost to damage. Damage is returned after the frames, as
// segment.ReadAll does: a *segment.CorruptError, *segment.TornTailError or
// *segment.VersionError, or several joined with errors.Join. The verifier
// turns them into findings; other errors abort the verification.
type Source interface {
	Records(visit func(seq uint64, raw []byte) error) error
	Payloads(visit func(seq uint64, frame []byte) error) error
	Epochs(visit func(epoch uint64, raw []byte) error) error
}

// ManifestSource is a Source whose log also has a manifest naming its
// identity: *recorder.Log (the MANIFEST file) implements it. The manifest
// is not evidence — VerifyLog takes the identity from the records and
// headers — but a writer always writes one that matches them, so VerifyLog
// reports a manifest that disagrees (or is missing) as a finding of its own.
type ManifestSource interface {
	Source
	// ManifestIdentity returns the recorder and session the manifest names.
	// The error is non-nil when the manifest is missing or unreadable.
	ManifestIdentity() (recorder string, session format.SessionID, err error)
}

// PayloadLevel selects how far payloads are checked.
type PayloadLevel uint8

// Payload levels: the paper's two verification levels, plus skipping.
const (
	// PayloadsDigest checks every stored payload frame against the digest in
	// its record: no keys needed (the default).
	PayloadsDigest PayloadLevel = iota
	// PayloadsSkip checks hashes, proofs and anchors only.
	PayloadsSkip
	// PayloadsOpen also decrypts every payload with its event key and checks
	// the plaintext against its commitment and the payload format.
	PayloadsOpen
)

// Keys returns the event key of event seq in epoch of a log of format
// version (the version of the event's record: keys are derived per version,
// docs/SPEC.md "Keys"). It returns an error wrapping format.ErrKeyErased for
// an erased epoch. *recorder.Keyring implements it.
type Keys interface {
	EventKey(version int, epoch, seq uint64) (format.EventKey, error)
}

// Options tune a verification.
type Options struct {
	Payloads PayloadLevel
	Keys     Keys // required for PayloadsOpen
	// Recorder and Session, when set, are the identity the log must have.
	// Otherwise it is taken from the first epoch header (or record): the
	// anchors then decide whether that identity is the operator's.
	Recorder string
	Session  *format.SessionID
	// MaxFindings bounds the findings kept (default 1000); the verdict
	// always accounts for all of them.
	MaxFindings int
	// Completeness, when set, also checks the log against an outside
	// record of the actions it must hold (package verifier/onchain: the
	// executions of a PaceSmartAccount), after every other check. Keys, when
	// set, let it read encrypted payloads at any payload level.
	Completeness Completeness
}

// record is what the verifier keeps per record.
type record struct {
	digest  format.Digest
	leaf    format.Digest // RFC 6962 leaf hash of digest
	payload format.Digest // commitment to the payload frame (zero if undecodable)
	version uint8         // format version (0 if undecodable)
	ok      bool          // decoded
	lost    bool          // lost to stream damage: a placeholder
}

// header is what the verifier keeps per epoch header.
type header struct {
	raw  []byte
	root format.Digest
	h    *format.EpochHeader // nil if undecodable
}

// VerifyLog verifies a log against anchors. The error is non-nil only when
// the verification could not run (an I/O error, a cancelled context, keys
// missing for PayloadsOpen); every problem with the log itself is a finding.
func VerifyLog(ctx context.Context, src Source, anchors AnchorSource, opts Options) (*Report, error) {
	if opts.Payloads == PayloadsOpen && opts.Keys == nil {
		return nil, errors.New("verifier: PayloadsOpen needs Options.Keys")
	}
	if opts.MaxFindings == 0 {
		opts.MaxFindings = 1000
	}
	v := &logVerifier{ctx: ctx, opts: opts, c: &collector{max: opts.MaxFindings}}
	as, complete, err := readAnchors(ctx, anchors, v.c)
	if err != nil {
		return nil, err
	}
	if err := v.readHeaders(src); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := v.readRecords(src); err != nil {
		return nil, err
	}
	if ms, ok := src.(ManifestSource); ok {
		v.checkManifest(ms)
	}
	idx := anchorIndex(as, complete, v.c)
	v.checkEpochs(idx)
	v.checkAnchors(idx)
	if opts.Payloads != PayloadsSkip {
		if err := v.checkPayloads(src); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Completeness != nil {
		if err := v.checkCompleteness(ctx, src); err != nil {
			return nil, err
		}
	}
	rep := &v.rep
	rep.Findings, rep.Dropped, rep.Verdict = v.c.findings, v.c.dropped, v.c.verdict
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	return rep, nil
}

type logVerifier struct {
	ctx     context.Context
	opts    Options
	c       *collector
	rep     Report
	headers []header
	records []record
	// identity every record and header must carry
	recorder string
	session  format.SessionID
	haveID   bool
	// sealedEnd is the first event not covered by the epoch headers.
	sealedEnd uint64
	// newerRecords are the first records of segment files of a newer
	// format version (unsupported_version): the records from each on that
	// were not read are not missing, this build cannot read them.
	newerRecords []uint64
	newer        []bool // by position: unread for a newer version (newerVersion)
	// state of the in-order record checks
	prev      format.Digest
	prevClock uint64
	shift     int64 // seq − position of the last record, to report each shift once
	afterLost bool  // the previous record was lost to stream damage: nothing to link to
}

func (v *logVerifier) setIdentity(rec string, s format.SessionID) {
	if v.haveID {
		return
	}
	v.recorder, v.session, v.haveID = rec, s, true
	if v.opts.Recorder != "" {
		v.recorder = v.opts.Recorder
	}
	if v.opts.Session != nil {
		v.session = *v.opts.Session
	}
}

// checkManifest compares the manifest's identity with the one the log
// must have (Options, else the first header's or record's).
func (v *logVerifier) checkManifest(ms ManifestSource) {
	rec, s, err := ms.ManifestIdentity()
	switch {
	case err != nil:
		v.c.add(Finding{Kind: KindManifestUnreadable, Detail: fmt.Sprintf("the log's manifest is missing or unreadable (%v): the identity is taken from the records", err)})
	case v.haveID && (rec != v.recorder || s != v.session):
		v.c.add(Finding{Kind: KindManifestMismatch, Expected: idString(v.recorder, v.session), Found: idString(rec, s),
			Detail: "the manifest names another recorder or session than the records and headers: it was edited or belongs to another log (hint: keys derived for the manifest's session open no payload of this log)"})
	}
}

func (v *logVerifier) readHeaders(src Source) error {
	var n uint64
	err := src.Epochs(func(t uint64, raw []byte) error {
		for ; n < t; n++ {
			v.headers = append(v.headers, header{}) // lost to stream damage, which streamEnd reports
		}
		hd := header{raw: raw, root: format.EpochRoot(raw)}
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

// recordBatch is a run of consecutive records decoded and hashed by a
// worker; the checks that link records run in order on the results.
type recordBatch struct {
	first uint64
	raw   [][]byte
	out   []record
	env   []format.Envelope
	err   []error
	lost  map[int]bool // records lost to stream damage, kept as placeholders
	done  chan struct{}
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
	close(b.done)
}

const batchSize = 4096

// readRecords reads the records stream: workers decode and hash batches in
// parallel while this goroutine checks sequence, identity, chain and clock
// in order.
func (v *logVerifier) readRecords(src Source) error {
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *recordBatch, workers)
	ordered := make(chan *recordBatch, 2*workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				b.process()
			}
		}()
	}
	checked := make(chan struct{})
	go func() {
		defer close(checked)
		for b := range ordered {
			<-b.done
			v.checkBatch(b)
		}
	}()
	// The headers tell how many records to expect.
	if k := len(v.headers); k > 0 && v.headers[k-1].h != nil {
		if end := v.headers[k-1].h.FirstSeq + v.headers[k-1].h.Count; end < 1<<28 {
			v.records = make([]record, 0, end+batchSize)
		}
	}
	var n uint64
	cur := &recordBatch{done: make(chan struct{})}
	send := func() {
		ordered <- cur
		work <- cur
		cur = &recordBatch{first: n, done: make(chan struct{}), raw: make([][]byte, 0, batchSize)}
	}
	add := func(raw []byte) {
		cur.raw = append(cur.raw, raw)
		n++
		if len(cur.raw) == batchSize {
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
	close(work)
	close(ordered)
	wg.Wait()
	<-checked
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

// merkleRoots computes, in parallel, the Merkle root over the records each
// header covers (zero where the header is undecodable or records are
// missing).
func (v *logVerifier) merkleRoots() []format.Digest {
	roots := make([]format.Digest, len(v.headers))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var leaves []format.Digest
			for t := w; t < len(v.headers); t += workers {
				h := v.headers[t].h
				if h == nil || h.Count == 0 || h.FirstSeq+h.Count < h.FirstSeq || h.FirstSeq+h.Count > uint64(len(v.records)) {
					continue
				}
				leaves = leaves[:0]
				for _, r := range v.records[h.FirstSeq : h.FirstSeq+h.Count] {
					leaves = append(leaves, r.leaf)
				}
				roots[t] = format.MerkleRootOfLeaves(leaves)
			}
		}(w)
	}
	wg.Wait()
	return roots
}

// checkEpochs checks the epoch chain and each epoch's tree and chain head.
func (v *logVerifier) checkEpochs(anchors map[uint64]format.Anchor) {
	roots := v.merkleRoots()
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
		end := h.FirstSeq + h.Count
		if end < h.FirstSeq { // overflow: a forged count
			end = ^uint64(0)
		}
		if end > uint64(len(v.records)) {
			// The records stream ends inside this epoch. If the epoch is
			// anchored, records it committed to were removed. If not, nothing
			// external committed to them: a partial copy, or a crash that
			// lost unsynced writes under the write or none sync policy (the
			// writer puts a header on disk only after its records otherwise).
			have := uint64(0)
			if uint64(len(v.records)) > h.FirstSeq {
				have = uint64(len(v.records)) - h.FirstSeq
			}
			f := Finding{Kind: KindRecordsMissing, Epoch: ep, Seq: u64(h.FirstSeq + have),
				Expected: fmt.Sprintf("%d records", h.Count), Found: fmt.Sprintf("%d records", have),
				Detail: "the anchored epoch header commits to records that are not in the log"}
			switch a, ok := anchors[h.Epoch]; {
			case v.newerVersion(uint64(len(v.records))):
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
		if got := roots[t]; got != h.MerkleRoot {
			v.c.add(Finding{Kind: KindMerkleMismatch, Epoch: ep, Seq: u64(h.FirstSeq), Expected: h.MerkleRoot.String(), Found: got.String(),
				Detail: fmt.Sprintf("records %d..%d do not give the epoch's Merkle root", h.FirstSeq, end-1)})
		}
		if last := v.records[end-1].digest; last != h.LastRecord {
			v.c.add(Finding{Kind: KindChainHeadMismatch, Epoch: ep, Seq: u64(end - 1), Expected: h.LastRecord.String(), Found: last.String(),
				Detail: "the epoch's chain head is not its last record's digest: the hash chain and the Merkle tree do not commit to the same records"})
		}
	}
	v.sealedEnd = nextSeq
	if nextSeq < uint64(len(v.records)) {
		v.c.add(Finding{Kind: KindUnsealed, Seq: u64(nextSeq), Count: 0,
			Detail: fmt.Sprintf("%d events after the last sealed epoch are in no epoch and cannot be anchored yet", uint64(len(v.records))-nextSeq)})
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
		case hd.raw == nil:
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
		if present[e] {
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
	case truncatedFrom != nil && uint64(len(v.records)) > v.sealedEnd:
		f := Finding{Kind: KindEpochMissing, Epoch: truncatedFrom, Seq: u64(v.sealedEnd), Expected: idx[*truncatedFrom].Root.String(),
			Detail: "an anchored epoch's header is missing but records after the last header are present: no crash leaves this (headers are durable before they are anchored); the header was removed, and these records may have been rewritten"}
		if n := uint64(len(v.records)) - v.sealedEnd; n > 1 {
			f.Count = n
		}
		v.c.add(f)
	case truncatedFrom != nil:
		v.c.add(Finding{Kind: KindTruncated, Epoch: truncatedFrom,
			Expected: fmt.Sprintf("epochs up to %d (anchored)", maxAnchored), Found: fmt.Sprintf("%d epoch headers", len(v.headers)),
			Detail: "the log ends before epochs that were anchored: this copy is truncated or older than the anchors"})
	}
	if len(v.headers) == 0 && len(v.records) == 0 && len(idx) == 0 {
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
		v.rep.AnchoredEvents = min(h.FirstSeq+h.Count, uint64(len(v.records)))
	}
}

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
