// Package tamper rewrites copies of AFR logs the way an attacker would, for
// adversarial tests of the verifier: edits, deletions, insertions,
// reordering, replaced or dropped epoch headers, forks, a rewritten tail
// passed off as unsealed, splices from another session, payload swaps,
// truncation, rollback and the "linear-fake" epoch whose hash chain and
// Merkle tree commit to different records.
//
// An Image is a log held in memory (it implements verifier.Source); every
// attack mutates the image in place. Attacks that recompute hashes do so
// with the recorder's own encoders, so the result is as consistent as an
// attacker holding no keys can make it.
//
// Attacks lists every attack class with the verdict and finding a
// verification of the attacked copy must give: the verifier's adversarial
// tests, the log-tampering specs and `afr bench` (Table IV) all run it.
package tamper

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/format/segment"
	"github.com/agentflightrecorder/afr/verifier"
)

// Image is a whole log in memory.
type Image struct {
	RecordFrames  [][]byte
	PayloadFrames [][]byte
	HeaderFrames  [][]byte
}

// Load reads every stream of src into an image.
func Load(src verifier.Source) (*Image, error) {
	im := &Image{}
	if err := src.Records(func(_ uint64, b []byte) error { im.RecordFrames = append(im.RecordFrames, b); return nil }); err != nil {
		return nil, err
	}
	if err := src.Payloads(func(_ uint64, b []byte) error { im.PayloadFrames = append(im.PayloadFrames, b); return nil }); err != nil {
		return nil, err
	}
	if err := src.Epochs(func(_ uint64, b []byte) error { im.HeaderFrames = append(im.HeaderFrames, b); return nil }); err != nil {
		return nil, err
	}
	return im, nil
}

// Clone returns a deep copy.
func (im *Image) Clone() *Image {
	cp := func(in [][]byte) [][]byte {
		out := make([][]byte, len(in))
		for i, b := range in {
			out[i] = append([]byte(nil), b...)
		}
		return out
	}
	return &Image{RecordFrames: cp(im.RecordFrames), PayloadFrames: cp(im.PayloadFrames), HeaderFrames: cp(im.HeaderFrames)}
}

func each(frames [][]byte, visit func(uint64, []byte) error) error {
	for i, b := range frames {
		if err := visit(uint64(i), b); err != nil {
			return err
		}
	}
	return nil
}

// Records implements verifier.Source.
func (im *Image) Records(visit func(uint64, []byte) error) error { return each(im.RecordFrames, visit) }

// Payloads implements verifier.Source.
func (im *Image) Payloads(visit func(uint64, []byte) error) error {
	return each(im.PayloadFrames, visit)
}

// Epochs implements verifier.Source.
func (im *Image) Epochs(visit func(uint64, []byte) error) error { return each(im.HeaderFrames, visit) }

// WriteStreams writes the image's three streams as segment files under dir
// (records/, payloads/, epochs/), replacing nothing else: copy a log's
// MANIFEST and keys beside them to get a log directory.
func (im *Image) WriteStreams(dir string) error {
	for _, s := range []struct {
		kind   string
		frames [][]byte
	}{{"records", im.RecordFrames}, {"payloads", im.PayloadFrames}, {"epochs", im.HeaderFrames}} {
		w, _, err := segment.Open(filepath.Join(dir, s.kind), s.kind, 64<<20, nil)
		if err != nil {
			return err
		}
		if w.Next() != 0 {
			w.Close()
			return fmt.Errorf("tamper: %s already holds a %s stream", dir, s.kind)
		}
		for _, f := range s.frames {
			if _, err := w.Append(f); err != nil {
				w.Close()
				return err
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}

// Anchors returns the anchors an honest operator would have committed for
// the image's epochs.
func (im *Image) Anchors() ([]format.Anchor, error) { return verifier.AnchorsFromLog(im) }

var errPos = errors.New("tamper: position out of range")

func (im *Image) checkSeq(i int) error {
	if i < 0 || i >= len(im.RecordFrames) {
		return fmt.Errorf("%w: record %d of %d", errPos, i, len(im.RecordFrames))
	}
	return nil
}

func (im *Image) envelope(i int) (*format.Envelope, error) {
	if err := im.checkSeq(i); err != nil {
		return nil, err
	}
	return format.DecodeEnvelope(im.RecordFrames[i])
}

func (im *Image) setEnvelope(i int, e *format.Envelope) error {
	b, err := format.EncodeEnvelope(e)
	if err != nil {
		return err
	}
	im.RecordFrames[i] = b
	return nil
}

// EditRecord changes record i's tool name and re-encodes it canonically,
// without fixing anything else.
func (im *Image) EditRecord(i int) error {
	e, err := im.envelope(i)
	if err != nil {
		return err
	}
	e.Tool += "!"
	return im.setEnvelope(i, e)
}

// FlipRecordByte flips one bit in the middle of record i's bytes.
func (im *Image) FlipRecordByte(i int) error {
	if err := im.checkSeq(i); err != nil {
		return err
	}
	im.RecordFrames[i][len(im.RecordFrames[i])/2] ^= 0x01
	return nil
}

// EditPayload flips one bit in the last byte of payload frame i.
func (im *Image) EditPayload(i int) error {
	if i < 0 || i >= len(im.PayloadFrames) {
		return errPos
	}
	p := im.PayloadFrames[i]
	p[len(p)-1] ^= 0x01
	return nil
}

// DeleteRecord removes record i and its payload.
func (im *Image) DeleteRecord(i int) error {
	if err := im.checkSeq(i); err != nil {
		return err
	}
	im.RecordFrames = append(im.RecordFrames[:i], im.RecordFrames[i+1:]...)
	im.PayloadFrames = append(im.PayloadFrames[:i], im.PayloadFrames[i+1:]...)
	return nil
}

// InsertRecord inserts a forged record before position i (i may be the
// log's length): well-formed, of the same session, with seq i and chained
// to record i−1, with a payload frame it commits to.
func (im *Image) InsertRecord(i int) error {
	if i < 0 || i > len(im.RecordFrames) {
		return errPos
	}
	tmpl, err := im.envelope(min(i, len(im.RecordFrames)-1))
	if err != nil {
		return err
	}
	forged := *tmpl
	forged.Seq, forged.Tool = uint64(i), "forged"
	forged.Prev = format.Digest{}
	if i > 0 {
		forged.Prev = format.RecordDigest(im.RecordFrames[i-1])
		prev, err := im.envelope(i - 1)
		if err != nil {
			return err
		}
		forged.Clock = prev.Clock + 1
	}
	frame := []byte{format.ModePlain}
	frame = append(frame, make([]byte, 32)...)
	frame = append(frame, 0xa0) // an empty payload
	forged.Payload = format.PayloadFrameDigest(frame)
	b, err := format.EncodeEnvelope(&forged)
	if err != nil {
		return err
	}
	im.RecordFrames = append(im.RecordFrames[:i], append([][]byte{b}, im.RecordFrames[i:]...)...)
	im.PayloadFrames = append(im.PayloadFrames[:i], append([][]byte{frame}, im.PayloadFrames[i:]...)...)
	return nil
}

// SwapRecords exchanges records (and payloads) i and j.
func (im *Image) SwapRecords(i, j int) error {
	if im.checkSeq(i) != nil || im.checkSeq(j) != nil {
		return errPos
	}
	im.RecordFrames[i], im.RecordFrames[j] = im.RecordFrames[j], im.RecordFrames[i]
	im.PayloadFrames[i], im.PayloadFrames[j] = im.PayloadFrames[j], im.PayloadFrames[i]
	return nil
}

// SwapPayloads exchanges the payload frames of events i and j.
func (im *Image) SwapPayloads(i, j int) error {
	if i < 0 || j < 0 || i >= len(im.PayloadFrames) || j >= len(im.PayloadFrames) {
		return errPos
	}
	im.PayloadFrames[i], im.PayloadFrames[j] = im.PayloadFrames[j], im.PayloadFrames[i]
	return nil
}

// Splice replaces record i and its payload with those at the same position
// of another log (another session or recorder).
func (im *Image) Splice(i int, other *Image) error {
	if im.checkSeq(i) != nil || i >= len(other.RecordFrames) || i >= len(other.PayloadFrames) {
		return errPos
	}
	im.RecordFrames[i] = append([]byte(nil), other.RecordFrames[i]...)
	im.PayloadFrames[i] = append([]byte(nil), other.PayloadFrames[i]...)
	return nil
}

func (im *Image) header(t int) (*format.EpochHeader, error) {
	if t < 0 || t >= len(im.HeaderFrames) {
		return nil, fmt.Errorf("%w: epoch %d of %d", errPos, t, len(im.HeaderFrames))
	}
	return format.DecodeEpochHeader(im.HeaderFrames[t])
}

// ReplaceHeader replaces epoch t's header by a different, well-formed one
// (same records, another seal time), leaving later headers alone.
func (im *Image) ReplaceHeader(t int) error {
	h, err := im.header(t)
	if err != nil {
		return err
	}
	h.Time++
	b, err := format.EncodeEpochHeader(h)
	if err != nil {
		return err
	}
	im.HeaderFrames[t] = b
	return nil
}

// DropHeader removes epoch t's header.
func (im *Image) DropHeader(t int) error {
	if _, err := im.header(t); err != nil {
		return err
	}
	im.HeaderFrames = append(im.HeaderFrames[:t], im.HeaderFrames[t+1:]...)
	return nil
}

// EpochOf returns the epoch whose header covers record i.
func (im *Image) EpochOf(i int) (int, error) {
	for t := range im.HeaderFrames {
		h, err := im.header(t)
		if err != nil {
			return 0, err
		}
		if uint64(i) >= h.FirstSeq && uint64(i) < h.FirstSeq+h.Count {
			return t, nil
		}
	}
	return 0, fmt.Errorf("%w: record %d is in no epoch", errPos, i)
}

// Fork rewrites history from record i on: record i's tool changes, every
// later record is re-chained, and every epoch header from the one holding i
// is recomputed. The result is internally consistent; only the anchors can
// tell it from the original.
func (im *Image) Fork(i int) error {
	if err := im.EditRecord(i); err != nil {
		return err
	}
	if err := im.rechain(i + 1); err != nil {
		return err
	}
	t, err := im.EpochOf(i)
	if err != nil {
		return err
	}
	return im.reseal(t)
}

// RewriteTail rewrites history from record i on and hides it from the
// headers: record i's tool changes, every later record is re-chained, and
// every epoch header from the one holding i on is dropped, so the rewritten
// records look like events not yet sealed. Written out with WriteStreams,
// every frame has a valid checksum.
func (im *Image) RewriteTail(i int) error {
	t, err := im.EpochOf(i)
	if err != nil {
		return err
	}
	if err := im.EditRecord(i); err != nil {
		return err
	}
	if err := im.rechain(i + 1); err != nil {
		return err
	}
	im.HeaderFrames = im.HeaderFrames[:t]
	return nil
}

// Rollback rolls the log back to the start of epoch t and writes a
// different history from there: a fork at an epoch boundary.
func (im *Image) Rollback(t int) error {
	h, err := im.header(t)
	if err != nil {
		return err
	}
	return im.Fork(int(h.FirstSeq))
}

// Truncate keeps the first n records and payloads and the headers of the
// epochs that end within them.
func (im *Image) Truncate(n int) error {
	if n < 0 || n > len(im.RecordFrames) {
		return errPos
	}
	im.RecordFrames, im.PayloadFrames = im.RecordFrames[:n], im.PayloadFrames[:min(n, len(im.PayloadFrames))]
	keep := 0
	for t := range im.HeaderFrames {
		h, err := im.header(t)
		if err != nil {
			return err
		}
		if h.FirstSeq+h.Count > uint64(n) {
			break
		}
		keep = t + 1
	}
	im.HeaderFrames = im.HeaderFrames[:keep]
	return nil
}

// LinearFake forges epoch t as an operator could at seal time: its header
// keeps the Merkle root of the epoch's true records but names as chain head
// the digest of a different record, and every later header is re-linked.
// It returns the anchors of the forged log — what the dishonest operator
// would have anchored — because the attack is against the header itself.
func (im *Image) LinearFake(t int) ([]format.Anchor, error) {
	h, err := im.header(t)
	if err != nil {
		return nil, err
	}
	last := int(h.FirstSeq + h.Count - 1)
	e, err := im.envelope(last)
	if err != nil {
		return nil, err
	}
	e.Tool += "!" // the record the fake chain head stands for
	b, err := format.EncodeEnvelope(e)
	if err != nil {
		return nil, err
	}
	h.LastRecord = format.RecordDigest(b)
	if im.HeaderFrames[t], err = format.EncodeEpochHeader(h); err != nil {
		return nil, err
	}
	if err := im.relink(t + 1); err != nil {
		return nil, err
	}
	return im.Anchors()
}

// rechain re-links records from position i on to their predecessors.
func (im *Image) rechain(i int) error {
	for k := max(i, 1); k < len(im.RecordFrames); k++ {
		e, err := im.envelope(k)
		if err != nil {
			return err
		}
		e.Prev = format.RecordDigest(im.RecordFrames[k-1])
		if err := im.setEnvelope(k, e); err != nil {
			return err
		}
	}
	return nil
}

// reseal recomputes every header from epoch t on from the records.
func (im *Image) reseal(t int) error {
	for k := t; k < len(im.HeaderFrames); k++ {
		h, err := im.header(k)
		if err != nil {
			return err
		}
		end := h.FirstSeq + h.Count
		if end > uint64(len(im.RecordFrames)) {
			return errPos
		}
		ds := make([]format.Digest, 0, h.Count)
		for _, r := range im.RecordFrames[h.FirstSeq:end] {
			ds = append(ds, format.RecordDigest(r))
		}
		h.MerkleRoot, h.LastRecord = format.MerkleRoot(ds), ds[len(ds)-1]
		if k > 0 {
			h.PrevRoot = format.EpochRoot(im.HeaderFrames[k-1])
		}
		if im.HeaderFrames[k], err = format.EncodeEpochHeader(h); err != nil {
			return err
		}
	}
	return nil
}

// relink recomputes only the prev_root links from epoch t on.
func (im *Image) relink(t int) error {
	for k := max(t, 1); k < len(im.HeaderFrames); k++ {
		h, err := im.header(k)
		if err != nil {
			return err
		}
		h.PrevRoot = format.EpochRoot(im.HeaderFrames[k-1])
		if im.HeaderFrames[k], err = format.EncodeEpochHeader(h); err != nil {
			return err
		}
	}
	return nil
}
