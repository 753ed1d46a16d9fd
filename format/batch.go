package format

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Aggregate batches (docs/SPEC.md, "Aggregate batches"): one anchoring
// transaction commits the sealed epochs of many logs of one operator. Each
// epoch is a BatchEntry; a batch's entries form an RFC 6962 tree whose
// root, bound to the batch number and size, is the BatchRoot the operator
// anchors as epoch b of its batch chain (log id zero) on EpochAnchor.

const (
	domainBatchEntry = "AFR-v1-batch-entry\x00"
	domainBatch      = "AFR-v1-batch\x00"
)

// BatchEntrySize is the size of an encoded BatchEntry.
const BatchEntrySize = 32 + 8 + 32 + 32

// MaxBatchEntries bounds the entries of one batch that readers accept.
const MaxBatchEntries = 1 << 16

// BatchEntry is one sealed epoch of one log in an aggregate batch: the
// same (epoch, R_t, R_{t−1}) a per-log anchor commits, with the log id.
type BatchEntry struct {
	Log      Digest `json:"log"`
	Epoch    uint64 `json:"epoch"`
	Root     Digest `json:"root"`
	PrevRoot Digest `json:"prev_root"`
}

// Encode returns log ‖ uint64be(epoch) ‖ root ‖ prev_root (104 bytes).
func (e BatchEntry) Encode() [BatchEntrySize]byte {
	var b [BatchEntrySize]byte
	copy(b[:32], e.Log[:])
	binary.BigEndian.PutUint64(b[32:40], e.Epoch)
	copy(b[40:72], e.Root[:])
	copy(b[72:], e.PrevRoot[:])
	return b
}

// Digest returns SHA-256("AFR-v1-batch-entry\x00" ‖ Encode()): the leaf
// data of the batch tree (its leaf hash is SHA-256(0x00 ‖ digest), as for
// record digests in epoch trees).
func (e BatchEntry) Digest() Digest {
	b := e.Encode()
	return hashWithDomain(domainBatchEntry, b[:])
}

// DecodeBatchEntries decodes entries packed back to back, as EpochAnchor's
// anchorBatch publishes them in its event data.
func DecodeBatchEntries(b []byte) ([]BatchEntry, error) {
	if len(b)%BatchEntrySize != 0 {
		return nil, fmt.Errorf("format: batch entries: %d bytes is not a multiple of %d", len(b), BatchEntrySize)
	}
	n := len(b) / BatchEntrySize
	if n == 0 || n > MaxBatchEntries {
		return nil, fmt.Errorf("format: batch entries: %d entries (want 1..%d)", n, MaxBatchEntries)
	}
	out := make([]BatchEntry, n)
	for i := range out {
		e := b[i*BatchEntrySize:]
		copy(out[i].Log[:], e[:32])
		out[i].Epoch = binary.BigEndian.Uint64(e[32:40])
		copy(out[i].Root[:], e[40:72])
		copy(out[i].PrevRoot[:], e[72:104])
	}
	return out, nil
}

// EncodeBatchEntries packs entries back to back (the inverse of
// DecodeBatchEntries).
func EncodeBatchEntries(entries []BatchEntry) []byte {
	out := make([]byte, 0, len(entries)*BatchEntrySize)
	for _, e := range entries {
		b := e.Encode()
		out = append(out, b[:]...)
	}
	return out
}

// ErrEmptyBatch is returned for a batch without entries: a batch commits at
// least one epoch.
var ErrEmptyBatch = errors.New("format: a batch has at least one entry")

// BatchRoot returns the value anchored for batch number b with these
// entries, in order:
//
//	SHA-256("AFR-v1-batch\x00" ‖ uint64be(b) ‖ uint64be(n) ‖ M_b)
//
// where M_b is the RFC 6962 root over the entries' digests. Binding b and
// n makes the anchored value name its batch and fix the tree size that
// inclusion proofs are checked at.
func BatchRoot(b uint64, entries []BatchEntry) (Digest, error) {
	if len(entries) == 0 {
		return Digest{}, ErrEmptyBatch
	}
	t := NewTree()
	for _, e := range entries {
		t.Append(e.Digest())
	}
	return batchRoot(b, uint64(len(entries)), t.Root()), nil
}

func batchRoot(b, n uint64, merkleRoot Digest) Digest {
	var buf [8 + 8 + 32]byte
	binary.BigEndian.PutUint64(buf[:8], b)
	binary.BigEndian.PutUint64(buf[8:16], n)
	copy(buf[16:], merkleRoot[:])
	return hashWithDomain(domainBatch, buf[:])
}
