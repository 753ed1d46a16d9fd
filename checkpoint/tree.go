package checkpoint

import (
	"errors"
	"fmt"

	"github.com/transparency-dev/merkle/proof"

	"github.com/agentflightrecorder/afr/format"
)

// ErrInconsistent is wrapped by the error of a consistency proof that does
// not lead from one tree head to the other. A proof computed from the
// leaves (ConsistencyProof) fails only if the heads are not of one
// append-only tree: if the operator signed both, the log has forked.
var ErrInconsistent = errors.New("checkpoint: inconsistent tree heads")

// Root returns the root of the log-level tree over leaves, the epoch roots
// R_0 … R_{n−1} in epoch order: the RFC 6962 tree with leaf hash
// SHA-256(0x00 ‖ R_t) and node hash SHA-256(0x01 ‖ left ‖ right), the same
// hasher as an epoch's tree (format.MerkleRoot). The root of no leaves is
// SHA-256 of the empty string.
func Root(leaves []format.Digest) format.Digest { return format.MerkleRoot(leaves) }

// ConsistencyProof returns the RFC 6962 consistency proof (§2.1.2) from the
// tree of the first oldSize leaves to the tree of all of them, as
// transparency-dev/merkle's proof.VerifyConsistency checks it. It is empty
// when oldSize is 0 or equals len(leaves).
func ConsistencyProof(leaves []format.Digest, oldSize uint64) ([]format.Digest, error) {
	size := uint64(len(leaves))
	if oldSize > size {
		return nil, fmt.Errorf("checkpoint: consistency proof from size %d: the tree has only %d leaves", oldSize, size)
	}
	if oldSize == 0 {
		return nil, nil // the empty tree is consistent with every tree
	}
	nodes, err := proof.Consistency(oldSize, size)
	if err != nil {
		return nil, err
	}
	hashes := make([][]byte, len(nodes.IDs))
	for i, id := range nodes.IDs {
		begin, end := id.Coverage()
		end = min(end, size)
		d := Root(leaves[begin:end])
		hashes[i] = d[:]
	}
	hashes, err = nodes.Rehash(hashes, format.Hasher.HashChildren)
	if err != nil {
		return nil, err
	}
	out := make([]format.Digest, len(hashes))
	for i, h := range hashes {
		copy(out[i][:], h)
	}
	return out, nil
}

// VerifyConsistency checks that p proves the tree of size oldSize with root
// oldRoot to be a prefix of the tree of size newSize with root newRoot. The
// error wraps ErrInconsistent when the proof is well formed for the sizes
// but leads elsewhere (or the sizes are equal and the roots differ): with
// two signed heads, that is evidence of a fork.
func VerifyConsistency(oldSize, newSize uint64, oldRoot, newRoot format.Digest, p []format.Digest) error {
	if oldSize > newSize {
		return fmt.Errorf("checkpoint: consistency from size %d to the smaller size %d", oldSize, newSize)
	}
	if oldSize == 0 {
		if len(p) != 0 {
			return fmt.Errorf("checkpoint: a consistency proof from size 0 must be empty, got %d hashes", len(p))
		}
		return nil
	}
	hs := make([][]byte, len(p))
	for i := range p {
		hs[i] = p[i][:]
	}
	err := proof.VerifyConsistency(format.Hasher, oldSize, newSize, hs, oldRoot[:], newRoot[:])
	var mismatch proof.RootMismatchError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &mismatch), oldSize == newSize && len(p) == 0:
		return fmt.Errorf("%w: size %d (root %s) is not a prefix of size %d (root %s): %v",
			ErrInconsistent, oldSize, oldRoot, newSize, newRoot, err)
	}
	return fmt.Errorf("checkpoint: consistency proof from size %d to %d is malformed: %w", oldSize, newSize, err)
}
