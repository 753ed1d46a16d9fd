package format

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/transparency-dev/merkle/compact"
)

// The cached-HMAC derivation must be exactly HKDF-Expand (RFC 5869) as
// crypto/hkdf computes it, since SPEC.md defines event keys that way.
func TestEventKeyMatchesHKDF(t *testing.T) {
	var ek [KeySize]byte
	for i := range ek {
		ek[i] = byte(i * 7)
	}
	d := NewEventKeyDeriver(1, ek)
	for _, seq := range []uint64{0, 1, 99, 100, 1 << 40, ^uint64(0)} {
		info := binary.BigEndian.AppendUint64([]byte(labelEventKey), seq)
		want, err := hkdf.Expand(sha256.New, ek[:], string(info), EventKeySize)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Derive(seq); string(got[:]) != string(want) {
			t.Fatalf("seq %d: derived %x, HKDF-Expand gives %x", seq, got, want)
		}
	}
}

// The allocation-free node and leaf hashes must be exactly RFC 6962's, as
// transparency-dev/merkle computes them.
func TestHashChildren(t *testing.T) {
	l, r := []byte("left-left-left-left-left-left-32"), []byte("right-right-right-right-right-32")
	if got, want := hashChildren(l, r), Hasher.HashChildren(l, r); string(got) != string(want) {
		t.Fatalf("hashChildren %x, rfc6962 %x", got, want)
	}
	d := Digest{1, 2, 3}
	if got, want := LeafHash(d), Hasher.HashLeaf(d[:]); string(got[:]) != string(want) {
		t.Fatalf("LeafHash %x, rfc6962 %x", got, want)
	}
}

func TestHMACMatchesStdlib(t *testing.T) {
	key := make([]byte, KeySize)
	for i := range key {
		key[i] = byte(200 + i)
	}
	for _, msg := range [][]byte{nil, []byte("x"), make([]byte, 55), make([]byte, 64), make([]byte, 954), make([]byte, 955), make([]byte, 5000)} {
		m := hmac.New(sha256.New, key)
		m.Write([]byte("prefix"))
		m.Write(msg)
		if got, want := hmacSHA256(key, []byte("prefix"), msg), m.Sum(nil); string(got[:]) != string(want) {
			t.Fatalf("%d-byte message: %x, crypto/hmac %x", len(msg), got, want)
		}
	}
}

// The allocation-free Tree must give the roots transparency-dev/merkle's
// compact range gives, at every size, across the carries of its counter.
func TestTreeMatchesCompactRange(t *testing.T) {
	rf := &compact.RangeFactory{Hash: Hasher.HashChildren}
	ref := rf.NewEmptyRange(0)
	tree := NewTree()
	for i := 0; i <= 1100; i++ {
		want := Digest(Hasher.EmptyRoot())
		if i > 0 {
			root, err := ref.GetRootHash(nil)
			if err != nil {
				t.Fatal(err)
			}
			want = Digest(root)
		}
		if tree.Size() != uint64(i) || tree.Root() != want {
			t.Fatalf("size %d: root %s (size %d), compact range %s", i, tree.Root(), tree.Size(), want)
		}
		d := RecordDigest([]byte{byte(i), byte(i >> 8)})
		l := LeafHash(d)
		ref.Append(l[:], nil)
		tree.Append(d)
	}
}

// A tree hashed in chunks of 2^k leaves (each chunk's root appended as a
// leaf of another tree) and a tail of fewer than 2^k gives, with RootOver,
// the root of the whole tree: at every size, for chunks of 1, 4 and 16.
func TestRootOverChunks(t *testing.T) {
	leaves := make([]Digest, 300)
	for i := range leaves {
		leaves[i] = LeafHash(RecordDigest([]byte{byte(i), byte(i >> 8), 7}))
	}
	for _, chunk := range []int{1, 4, 16} {
		for size := 0; size <= len(leaves); size++ {
			var chunks, tail Tree
			for i := 0; i+chunk <= size-size%chunk; i += chunk {
				chunks.AppendLeaf(MerkleRootOfLeaves(leaves[i : i+chunk]))
			}
			for _, l := range leaves[size-size%chunk : size] {
				tail.AppendLeaf(l)
			}
			if got, want := RootOver(&chunks, &tail), MerkleRootOfLeaves(leaves[:size]); got != want {
				t.Fatalf("chunks of %d, %d leaves: %s, want %s", chunk, size, got, want)
			}
		}
	}
}

// Version 2 event keys are the first 64 bytes of the AES-256-CTR keystream
// under K_t from the counter block u64be(seq) ‖ u64be(0): the blocks
// AES(K_t, u64be(seq) ‖ u64be(i)) for i = 0..3, as docs/SPEC.md defines
// them, computed here with crypto/cipher's CTR mode.
func TestEventKeyV2IsAESCTR(t *testing.T) {
	var ek [KeySize]byte
	for i := range ek {
		ek[i] = byte(i * 11)
	}
	block, err := aes.NewCipher(ek[:])
	if err != nil {
		t.Fatal(err)
	}
	d := NewEventKeyDeriver(2, ek)
	for _, seq := range []uint64{0, 1, 99, 100, 1 << 40, ^uint64(0)} {
		var iv [aes.BlockSize]byte
		binary.BigEndian.PutUint64(iv[:8], seq)
		var want EventKey
		cipher.NewCTR(block, iv[:]).XORKeyStream(want[:], want[:])
		if got := d.Derive(seq); got != want {
			t.Fatalf("seq %d: derived %x, AES-256-CTR gives %x", seq, got, want)
		}
		if got := DeriveEventKey(2, ek, seq); got != want {
			t.Fatalf("seq %d: DeriveEventKey %x, want %x", seq, got, want)
		}
	}
}
