package checkpoint_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// BenchmarkOpen: what a checkpoint adds to reading a log's anchors.
// "anchors-file" is the baseline, reading the leaves as a plain anchors
// file; "open" also verifies the note (operator and two witness
// signatures) and hashes the leaves to the root; "sign" is the operator's
// side (tree and signature); "consistency-proof" a witness request's
// proof from half the size.
func BenchmarkOpen(b *testing.B) {
	op, w1, w2 := newKey(b, 1, "example.com/operator"), newKey(b, 2, "w1.example"), newKey(b, 3, "w2.example")
	p := policy(b, op, 2, w1, w2)
	id := format.LogID("bench", format.SessionID{1})
	origin, _ := checkpoint.Origin("", id)
	for _, n := range []int{100, 10_000} {
		roots := digests(n, 1)
		leaves := make([]format.Anchor, n)
		var prev format.Digest
		for i, r := range roots {
			leaves[i] = format.Anchor{Epoch: uint64(i), Root: r, PrevRoot: prev}
			prev = r
		}
		cp, err := checkpoint.Sign(origin, roots, op.signer)
		if err != nil {
			b.Fatal(err)
		}
		cp = cosign(b, cp, witnessSigner(b, w1), witnessSigner(b, w2))
		path := filepath.Join(b.TempDir(), "checkpoint")
		if err := checkpoint.WritePublished(path, cp, leaves); err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.Run(fmt.Sprintf("epochs=%d/anchors-file", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := verifier.AnchorsFile(checkpoint.LeavesPath(path)).Anchors(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("epochs=%d/open", n), func(b *testing.B) {
			for b.Loop() {
				pub, err := checkpoint.ReadPublished(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := checkpoint.Open(pub, p, id); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("epochs=%d/sign", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := checkpoint.Sign(origin, roots, op.signer); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("epochs=%d/consistency-proof", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := checkpoint.ConsistencyProof(roots, uint64(n/2)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
