package format

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

func testEntries(n int) []BatchEntry {
	es := make([]BatchEntry, n)
	for i := range es {
		es[i] = BatchEntry{Log: Digest(sha256.Sum256([]byte{byte(i)})), Epoch: uint64(i * 3), Root: Digest(sha256.Sum256([]byte{1, byte(i)}))}
		if i > 0 {
			es[i].PrevRoot = es[i-1].Root
		}
	}
	return es
}

// TestBatchRootDefinition computes a batch root of two entries from the
// SPEC's definition with nothing but SHA-256.
func TestBatchRootDefinition(t *testing.T) {
	es := testEntries(2)
	leaf := func(e BatchEntry) []byte {
		b := append([]byte("AFR-v1-batch-entry\x00"), e.Log[:]...)
		b = binary.BigEndian.AppendUint64(b, e.Epoch)
		b = append(append(b, e.Root[:]...), e.PrevRoot[:]...)
		d := sha256.Sum256(b)
		h := sha256.Sum256(append([]byte{0}, d[:]...))
		return h[:]
	}
	node := sha256.Sum256(append(append([]byte{1}, leaf(es[0])...), leaf(es[1])...))
	pre := binary.BigEndian.AppendUint64([]byte("AFR-v1-batch\x00"), 7)
	pre = binary.BigEndian.AppendUint64(pre, 2)
	want := Digest(sha256.Sum256(append(pre, node[:]...)))
	got, err := BatchRoot(7, es)
	if err != nil || got != want {
		t.Fatalf("BatchRoot = %s, %v; want %s", got, err, want)
	}
	if other, _ := BatchRoot(8, es); other == got {
		t.Fatal("the batch number is not bound")
	}
	if _, err := BatchRoot(0, nil); err != ErrEmptyBatch {
		t.Fatalf("empty batch: %v", err)
	}
}

func TestBatchEntriesEncoding(t *testing.T) {
	es := testEntries(3)
	b := EncodeBatchEntries(es)
	got, err := DecodeBatchEntries(b)
	if err != nil || len(got) != 3 || got[2] != es[2] {
		t.Fatalf("round trip: %v %v", got, err)
	}
	for _, bad := range [][]byte{nil, b[:103], append(b, 0)} {
		if _, err := DecodeBatchEntries(bad); err == nil {
			t.Fatalf("%d bytes accepted", len(bad))
		}
	}
}

func FuzzDecodeBatchEntries(f *testing.F) {
	f.Add(EncodeBatchEntries(testEntries(2)))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := DecodeBatchEntries(b)
		if err != nil {
			return
		}
		if string(EncodeBatchEntries(es)) != string(b) {
			t.Fatal("decode/encode is not the identity")
		}
	})
}
