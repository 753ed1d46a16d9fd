package format

import (
	"crypto"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// EpochHeader commits to one epoch: its position in the log, its size, the
// RFC 6962 Merkle root over its record digests, the hash-chain head after its
// last record, and the previous epoch's root. Its digest R_t (Root) is what
// is anchored on chain, so an anchored value fixes the size and position of
// every epoch up to it. See docs/SPEC.md, "Epoch header".
type EpochHeader struct {
	Version    uint8     `cbor:"0,keyasint" json:"version"`
	Recorder   string    `cbor:"1,keyasint" json:"recorder"`
	Session    SessionID `cbor:"2,keyasint" json:"session"`
	Epoch      uint64    `cbor:"3,keyasint" json:"epoch"`
	FirstSeq   uint64    `cbor:"4,keyasint" json:"first_seq"`
	Count      uint64    `cbor:"5,keyasint" json:"count"`
	MerkleRoot Digest    `cbor:"6,keyasint" json:"merkle_root"`
	LastRecord Digest    `cbor:"7,keyasint" json:"last_record"`
	PrevRoot   Digest    `cbor:"8,keyasint" json:"prev_root"` // zero for epoch 0
	Time       int64     `cbor:"9,keyasint" json:"time"`      // seal time, Unix nanoseconds
}

// Root returns R_t = SHA-256(domainEpoch ‖ encoded header), the value
// anchored on chain for this epoch.
func (h *EpochHeader) Root() (Digest, error) {
	b, err := EncodeEpochHeader(h)
	if err != nil {
		return Digest{}, err
	}
	return EpochRoot(b), nil
}

// EpochRoot returns R_t for an encoded epoch header.
func EpochRoot(encoded []byte) Digest { return hashWithDomain(domainEpoch, encoded) }

// EncodeEpochHeader returns the canonical encoding of h. A header over
// MaxHeaderSize is refused (an error wrapping ErrLimit): no reader would
// accept it.
func EncodeEpochHeader(h *EpochHeader) ([]byte, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	b, err := encMode.Marshal(h)
	if err == nil && len(b) > MaxHeaderSize {
		return nil, fmt.Errorf("format: epoch header is %d bytes, limit %d: %w", len(b), MaxHeaderSize, ErrLimit)
	}
	return b, err
}

// DecodeEpochHeader decodes an epoch header, rejecting non-canonical input.
func DecodeEpochHeader(data []byte) (*EpochHeader, error) {
	var h EpochHeader
	if err := decodeStrict("epoch header", headerDecoder, data, &h); err != nil {
		return nil, err
	}
	if err := h.check(); err != nil {
		return nil, &DecodeError{"epoch header", err}
	}
	return &h, nil
}

func (h *EpochHeader) check() error {
	switch {
	case h.Version == 0:
		return errors.New("version 0")
	case h.Version > Version:
		return fmt.Errorf("%w: version %d, this build reads up to %d", ErrNewerVersion, h.Version, Version)
	case h.Count == 0:
		return errors.New("empty epoch")
	case len(h.Recorder) > MaxStringLength:
		return fmt.Errorf("recorder id over %d bytes", MaxStringLength)
	}
	return nil
}

// Hasher is the RFC 6962 SHA-256 tree hasher used for epoch trees: leaf hash
// SHA-256(0x00 ‖ record digest), node hash SHA-256(0x01 ‖ left ‖ right).
var Hasher = rfc6962.New(crypto.SHA256)

// hashChildren is Hasher.HashChildren — SHA-256(0x01 ‖ left ‖ right), RFC
// 6962 §2.1 — without a hasher allocation per node; TestHashChildren checks
// the two agree.
func hashChildren(left, right []byte) []byte {
	var buf [1 + 2*32]byte
	buf[0] = 0x01
	n := 1 + copy(buf[1:], left)
	n += copy(buf[n:], right)
	d := sha256.Sum256(buf[:n])
	return d[:]
}

// nodeHash is hashChildren of two digests, without allocating.
func nodeHash(left, right *Digest) Digest {
	var buf [1 + 2*32]byte
	buf[0] = 0x01
	copy(buf[1:], left[:])
	copy(buf[33:], right[:])
	return sha256.Sum256(buf[:])
}

// LeafHash returns the Merkle leaf hash of a record digest:
// SHA-256(0x00 ‖ record), as Hasher.HashLeaf computes it.
func LeafHash(record Digest) Digest {
	var buf [1 + 32]byte // 0x00 ‖ record
	copy(buf[1:], record[:])
	return sha256.Sum256(buf[:])
}

// MerkleRoot returns the RFC 6962 root over the given record digests.
func MerkleRoot(records []Digest) Digest {
	t := NewTree()
	for _, d := range records {
		t.Append(d)
	}
	return t.Root()
}

// MerkleRootOfLeaves returns the RFC 6962 root over leaf hashes already
// computed with LeafHash (so callers can compute them in parallel).
func MerkleRootOfLeaves(leaves []Digest) Digest {
	t := NewTree()
	for i := range leaves {
		t.AppendLeaf(leaves[i])
	}
	return t.Root()
}

// MerklePath returns the RFC 6962 audit path for leaf index of the tree
// over records, as transparency-dev/merkle's proof.VerifyInclusion expects.
func MerklePath(records []Digest, index uint64) ([]Digest, error) {
	size := uint64(len(records))
	nodes, err := proof.Inclusion(index, size)
	if err != nil {
		return nil, err
	}
	hashes := make([][]byte, len(nodes.IDs))
	for i, id := range nodes.IDs {
		begin, end := id.Coverage()
		if end > size {
			end = size
		}
		d := MerkleRoot(records[begin:end])
		hashes[i] = d[:]
	}
	hashes, err = nodes.Rehash(hashes, hashChildren)
	if err != nil {
		return nil, err
	}
	out := make([]Digest, len(hashes))
	for i, h := range hashes {
		copy(out[i][:], h)
	}
	return out, nil
}

// VerifyInclusion checks that record is leaf index of an epoch of size leaves
// with the given Merkle root. It returns a proof.RootMismatchError on a
// mismatch.
func VerifyInclusion(record Digest, index, size uint64, path []Digest, root Digest) error {
	p := make([][]byte, len(path))
	for i := range path {
		p[i] = path[i][:]
	}
	leaf := LeafHash(record)
	return proof.VerifyInclusion(Hasher, index, size, leaf[:], p, root[:])
}

// Tree is an RFC 6962 tree built incrementally over record digests: a
// compact range, the roots of the perfect subtrees its leaves fill (one per
// set bit of its size, largest first), as transparency-dev/merkle's
// compact.Range keeps them but in fixed arrays of digests, so that
// appending allocates nothing. Appending costs one node hash amortised and
// the root a few more, however large the tree, so sealing an epoch causes
// no latency spike. TestTreeMatchesCompactRange checks it against
// compact.Range.
type Tree struct {
	size  uint64
	n     int        // subtrees: the number of set bits of size
	roots [64]Digest // roots[:n], the subtrees from the left
}

// NewTree returns an empty tree.
func NewTree() *Tree { return new(Tree) }

// Append adds the leaf of record digest d.
func (t *Tree) Append(d Digest) { t.AppendLeaf(LeafHash(d)) }

// AppendLeaf adds a leaf hash already computed with LeafHash: it merges
// the new leaf with every subtree of its size, as a binary counter
// carries.
func (t *Tree) AppendLeaf(l Digest) {
	for s := t.size; s&1 == 1; s >>= 1 {
		t.n--
		l = nodeHash(&t.roots[t.n], &l)
	}
	t.roots[t.n] = l
	t.n++
	t.size++
}

// Size returns the number of leaves.
func (t *Tree) Size() uint64 { return t.size }

// Root returns the RFC 6962 root (the empty root for no leaves): the
// subtrees folded from the right.
func (t *Tree) Root() Digest { return RootOver(t, &emptyTree) }

var emptyTree Tree

// RootOver returns the RFC 6962 root of a tree hashed in chunks: the
// leaves of chunks are the roots of perfect subtrees of 2^k leaves each,
// appended with AppendLeaf, and tail holds the leaves after them, fewer
// than 2^k. Their subtrees, chunks' then tail's, are the whole tree's
// from the left (the binary digits of its size), folded from the right.
func RootOver(chunks, tail *Tree) Digest {
	var r Digest
	have := false
	for _, t := range [2]*Tree{tail, chunks} {
		for i := t.n - 1; i >= 0; i-- {
			if have {
				r = nodeHash(&t.roots[i], &r)
			} else {
				r, have = t.roots[i], true
			}
		}
	}
	if !have {
		return Digest(Hasher.EmptyRoot())
	}
	return r
}
