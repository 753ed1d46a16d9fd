package checkpoint_test

import (
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
)

// mth is RFC 6962's Merkle Tree Hash (§2.1) written from its definition,
// recursively, over leaf data d(0:n): the reference for Root.
func mth(d []format.Digest) format.Digest {
	switch n := len(d); n {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return sha256.Sum256(append([]byte{0}, d[0][:]...))
	default:
		k := 1
		for k*2 < n {
			k *= 2
		}
		l, r := mth(d[:k]), mth(d[k:])
		return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
	}
}

func digests(n int, salt byte) []format.Digest {
	out := make([]format.Digest, n)
	for i := range out {
		out[i] = sha256.Sum256([]byte{salt, byte(i), byte(i >> 8)})
	}
	return out
}

// Root is RFC 6962's tree over the 32-byte epoch roots as leaf data.
func TestRootIsRFC6962(t *testing.T) {
	for n := 0; n <= 70; n++ {
		d := digests(n, 1)
		if got, want := checkpoint.Root(d), mth(d); got != want {
			t.Fatalf("n=%d: Root %s, RFC 6962 MTH %s", n, got, want)
		}
	}
}

// Every proof between every pair of sizes up to 40 verifies; a proof with
// one hash changed, or between heads of different trees, does not, and
// the failure is ErrInconsistent.
func TestConsistencyProofs(t *testing.T) {
	leaves := digests(40, 2)
	other := digests(40, 3) // a different tree: every leaf differs
	for n := 0; n <= len(leaves); n++ {
		newRoot := checkpoint.Root(leaves[:n])
		for m := 0; m <= n; m++ {
			p, err := checkpoint.ConsistencyProof(leaves[:n], uint64(m))
			if err != nil {
				t.Fatalf("%d→%d: %v", m, n, err)
			}
			if m == 0 || m == n {
				if len(p) != 0 {
					t.Fatalf("%d→%d: proof of %d hashes, want none", m, n, len(p))
				}
			}
			oldRoot := checkpoint.Root(leaves[:m])
			if err := checkpoint.VerifyConsistency(uint64(m), uint64(n), oldRoot, newRoot, p); err != nil {
				t.Fatalf("%d→%d: honest proof rejected: %v", m, n, err)
			}
			if m == 0 {
				continue // the empty tree is consistent with every tree
			}
			forked := checkpoint.Root(other[:m])
			if err := checkpoint.VerifyConsistency(uint64(m), uint64(n), forked, newRoot, p); !errors.Is(err, checkpoint.ErrInconsistent) {
				t.Fatalf("%d→%d: a head of another tree: %v, want ErrInconsistent", m, n, err)
			}
			for i := range p {
				bad := append([]format.Digest(nil), p...)
				bad[i][0] ^= 1
				if err := checkpoint.VerifyConsistency(uint64(m), uint64(n), oldRoot, newRoot, bad); !errors.Is(err, checkpoint.ErrInconsistent) {
					t.Fatalf("%d→%d: proof hash %d flipped: %v, want ErrInconsistent", m, n, i, err)
				}
			}
		}
	}
}

// Malformed proofs and sizes are errors, but not evidence of a fork.
func TestConsistencyMalformed(t *testing.T) {
	leaves := digests(8, 4)
	root5, root8 := checkpoint.Root(leaves[:5]), checkpoint.Root(leaves)
	p, err := checkpoint.ConsistencyProof(leaves, 5)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		old, new uint64
		proof    []format.Digest
	}{
		"old larger than new": {8, 5, p},
		"proof too short":     {5, 8, p[:len(p)-1]},
		"proof too long":      {5, 8, append(append([]format.Digest(nil), p...), p[0])},
		"proof from size 0":   {0, 8, p},
		"empty proof":         {5, 8, nil},
	} {
		err := checkpoint.VerifyConsistency(c.old, c.new, root5, root8, c.proof)
		if err == nil || errors.Is(err, checkpoint.ErrInconsistent) {
			t.Errorf("%s: %v, want an error other than ErrInconsistent", name, err)
		}
	}
	if _, err := checkpoint.ConsistencyProof(leaves, 9); err == nil {
		t.Error("a proof from a size larger than the tree was made")
	}
	// Equal sizes, different roots: a fork.
	if err := checkpoint.VerifyConsistency(8, 8, root8, checkpoint.Root(digests(8, 5)), nil); !errors.Is(err, checkpoint.ErrInconsistent) {
		t.Errorf("same size, different roots: %v, want ErrInconsistent", err)
	}
}
