package format

import "testing"

// TestBatchRootVector pins the vector docs/SPEC.md ("Aggregate batches")
// gives: batch 7 of the two entries of testEntries(2).
func TestBatchRootVector(t *testing.T) {
	got, err := BatchRoot(7, testEntries(2))
	if err != nil || got.String() != "0x070f19904aae7e52f62856ecc33cfcc5f191789b5d22ceddab922201358cba9d" {
		t.Fatalf("BatchRoot(7, …) = %s, %v: not the vector of docs/SPEC.md", got, err)
	}
}
