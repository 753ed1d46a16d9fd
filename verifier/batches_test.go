package verifier_test

import (
	"context"
	"crypto/sha256"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// fleet is a log of 5 epochs anchored in aggregate batches beside two
// other logs: batch b holds epoch b of each log, in the order other-1,
// this log, other-2.
type fleet struct {
	lg      *testLog
	id      format.Digest
	entries [][]format.BatchEntry // per batch, before roots are computed
}

func otherEntries(name string, n int) []format.BatchEntry {
	id := format.Digest(sha256.Sum256([]byte(name)))
	out := make([]format.BatchEntry, n)
	for t := range out {
		out[t] = format.BatchEntry{Log: id, Epoch: uint64(t), Root: format.Digest(sha256.Sum256([]byte{byte(t), 1}))}
		if t > 0 {
			out[t].PrevRoot = out[t-1].Root
		}
	}
	return out
}

func newFleet(t *testing.T) *fleet {
	lg := makeLog(t, 50, 10, 1, 3) // 5 epochs
	id := format.LogID(lg.man.Recorder, lg.man.Session)
	a, b := otherEntries("other-1", 5), otherEntries("other-2", 5)
	f := &fleet{lg: lg, id: id}
	for i, an := range lg.anchors {
		f.entries = append(f.entries, []format.BatchEntry{a[i], {Log: id, Epoch: an.Epoch, Root: an.Root, PrevRoot: an.PrevRoot}, b[i]})
	}
	return f
}

// batches anchors the (possibly edited) entries as a chain of batches.
func batches(t *testing.T, entries [][]format.BatchEntry) verifier.BatchList {
	var out verifier.BatchList
	var prev format.Digest
	for b, es := range entries {
		root, err := format.BatchRoot(uint64(b), es)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, format.Batch{Number: uint64(b), Root: root, PrevRoot: prev, Entries: slices.Clone(es)})
		prev = root
	}
	return out
}

func (f *fleet) verify(t *testing.T, bs verifier.BatchSource) *verifier.Report {
	t.Helper()
	rep, err := verifier.VerifyLog(context.Background(), f.lg.img, verifier.BatchAnchors{Batches: bs, Log: f.id}, verifier.Options{Payloads: verifier.PayloadsDigest})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func entryOf(es []format.BatchEntry, id format.Digest) int {
	return slices.IndexFunc(es, func(e format.BatchEntry) bool { return e.Log == id })
}

// Every property of per-log anchoring holds for a log anchored in
// batches: each attack on the batches gives its verdict and finding, the
// clean case verifies, and so does the same log with its epochs spread
// over batches several at a time.
func TestBatchAnchorsAttacks(t *testing.T) {
	f := newFleet(t)
	clone := func() [][]format.BatchEntry {
		out := make([][]format.BatchEntry, len(f.entries))
		for i := range f.entries {
			out[i] = slices.Clone(f.entries[i])
		}
		return out
	}
	cases := []struct {
		name    string
		make    func() verifier.BatchList
		verdict verifier.Verdict
		kind    verifier.FindingKind
	}{
		{"clean", func() verifier.BatchList { return batches(t, f.entries) }, verifier.Verified, ""},
		{"several epochs of the log in one batch", func() verifier.BatchList {
			es := clone()
			// Batch 1 carries epochs 1 and 2; batch 2 none of this log.
			i := entryOf(es[2], f.id)
			es[1] = append(es[1], es[2][i])
			es[2] = slices.Delete(es[2], i, i+1)
			return batches(t, es)
		}, verifier.Verified, ""},
		{"withheld batch contents", func() verifier.BatchList {
			bs := batches(t, f.entries)
			bs[3].Entries = nil
			return bs
		}, verifier.Incomplete, verifier.KindBatchWithheld},
		{"published contents that do not give the anchored root", func() verifier.BatchList {
			bs := batches(t, f.entries)
			bs[2].Entries[0].Epoch++
			return bs
		}, verifier.Incomplete, verifier.KindBatchWithheld},
		{"a batch missing from the chain given", func() verifier.BatchList {
			bs := batches(t, f.entries)
			return slices.Delete(bs, 2, 3)
		}, verifier.Incomplete, verifier.KindBatchWithheld},
		{"an entry in two batches", func() verifier.BatchList {
			es := clone()
			es[3] = append(es[3], es[1][entryOf(es[1], f.id)])
			return batches(t, es)
		}, verifier.Tampered, verifier.KindAnchorConflict},
		{"two entries for one epoch (a fork)", func() verifier.BatchList {
			es := clone()
			fork := es[2][entryOf(es[2], f.id)]
			fork.Root[0] ^= 1
			es[4] = append(es[4], fork)
			return batches(t, es)
		}, verifier.Tampered, verifier.KindAnchorConflict},
		{"two entries for one epoch in one batch", func() verifier.BatchList {
			es := clone()
			fork := es[2][entryOf(es[2], f.id)]
			fork.Root[0] ^= 1
			es[2] = append(es[2], fork)
			return batches(t, es)
		}, verifier.Tampered, verifier.KindAnchorConflict},
		{"a skipped epoch", func() verifier.BatchList {
			es := clone()
			i := entryOf(es[2], f.id)
			es[2] = slices.Delete(es[2], i, i+1)
			return batches(t, es)
		}, verifier.Tampered, verifier.KindAnchorConflict},
		{"a batch that reorders epochs", func() verifier.BatchList {
			es := clone()
			i, j := entryOf(es[1], f.id), entryOf(es[2], f.id)
			e2 := es[2][j]
			es[2] = slices.Delete(es[2], j, j+1)
			es[1] = slices.Insert(es[1], i, e2) // epoch 2 before epoch 1
			return batches(t, es)
		}, verifier.Tampered, verifier.KindAnchorConflict},
		{"epochs anchored out of order across batches", func() verifier.BatchList {
			es := clone()
			i, j := entryOf(es[1], f.id), entryOf(es[2], f.id)
			es[1][i], es[2][j] = es[2][j], es[1][i]
			return batches(t, es)
		}, verifier.Tampered, verifier.KindAnchorConflict},
		{"a rewritten root (rollback of epoch 4)", func() verifier.BatchList {
			es := clone()
			i := entryOf(es[4], f.id)
			es[4][i].Root[31] ^= 1
			return batches(t, es)
		}, verifier.Tampered, verifier.KindAnchorMismatch},
		{"two roots for one batch number", func() verifier.BatchList {
			bs := batches(t, f.entries)
			other := batches(t, [][]format.BatchEntry{f.entries[0], f.entries[2]})
			return append(bs, other[1]) // a second batch 1
		}, verifier.Tampered, verifier.KindAnchorConflict},
		{"a broken batch chain", func() verifier.BatchList {
			bs := batches(t, f.entries)
			bs[3].PrevRoot[0] ^= 1
			return bs
		}, verifier.Tampered, verifier.KindAnchorConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := f.verify(t, c.make())
			if rep.Verdict != c.verdict || (c.kind != "" && !rep.Has(c.kind)) {
				t.Fatalf("verdict %s, findings %v; want %s with %s", rep.Verdict, rep.Findings, c.verdict, c.kind)
			}
			if c.verdict == verifier.Verified && rep.AnchoredEvents != 50 {
				t.Fatalf("anchored events %d, want 50", rep.AnchoredEvents)
			}
		})
	}
}

// A log that is not in any batch is unanchored (incomplete), not
// tampered: the batches of another log's operator say nothing about it.
func TestBatchAnchorsOtherLog(t *testing.T) {
	f := newFleet(t)
	var es [][]format.BatchEntry
	for _, b := range f.entries {
		es = append(es, []format.BatchEntry{b[0], b[2]})
	}
	rep := f.verify(t, batches(t, es))
	if rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindUnanchored) || rep.Has(verifier.KindAnchorMismatch) {
		t.Fatalf("verdict %s, findings %v", rep.Verdict, rep.Findings)
	}
}

// Each tampering of the log itself is caught against batch anchors as
// against per-log anchors.
func TestBatchAnchorsTamperedLog(t *testing.T) {
	f := newFleet(t)
	bs := batches(t, f.entries)
	for name, edit := range map[string]func(*tamper.Image) error{
		"edited record":   func(img *tamper.Image) error { return img.EditRecord(23) },
		"replaced header": func(img *tamper.Image) error { return img.ReplaceHeader(2) },
		"deleted record":  func(img *tamper.Image) error { return img.DeleteRecord(31) },
		"rollback":        func(img *tamper.Image) error { return img.Rollback(3) },
	} {
		t.Run(name, func(t *testing.T) {
			img := f.lg.img.Clone()
			if err := edit(img); err != nil {
				t.Fatal(err)
			}
			rep, err := verifier.VerifyLog(context.Background(), img, verifier.BatchAnchors{Batches: bs, Log: f.id}, verifier.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != verifier.Tampered {
				t.Fatalf("verdict %s, findings %v", rep.Verdict, rep.Findings)
			}
		})
	}
}

// A log anchored in batches appended to a batches file verifies against
// the file (the file's own rules are format's tests).
func TestBatchesFile(t *testing.T) {
	f := newFleet(t)
	path := filepath.Join(t.TempDir(), "batches.jsonl")
	var prev format.Digest
	for b, es := range f.entries {
		root, err := format.AppendBatch(path, uint64(b), prev, es)
		if err != nil {
			t.Fatal(err)
		}
		prev = root
	}
	if rep := f.verify(t, verifier.BatchesFile(path)); rep.Verdict != verifier.Verified {
		t.Fatalf("verdict %s, findings %v", rep.Verdict, rep.Findings)
	}
}

// FuzzBatchesFile: any batches file is an error or batches the verifier
// judges without panicking.
func FuzzBatchesFile(f *testing.F) {
	es := otherEntries("x", 2)
	root, _ := format.BatchRoot(0, es[:1])
	f.Add([]byte(`{"batch":0,"root":"` + root.String() + `","prev_root":"0x0000000000000000000000000000000000000000000000000000000000000000","entries":[{"log":"` + es[0].Log.String() + `","epoch":0,"root":"` + es[0].Root.String() + `","prev_root":"` + es[0].PrevRoot.String() + `"}]}` + "\n"))
	f.Add([]byte("{}\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		bs, err := format.ParseBatches(b)
		if err != nil {
			return
		}
		for _, bt := range bs {
			if root, _ := format.BatchRoot(bt.Number, bt.Entries); root != bt.Root {
				t.Fatal("a batch whose root is not its entries' root was accepted")
			}
		}
		if _, err := (verifier.BatchAnchors{Batches: verifier.BatchList(bs), Log: es[0].Log}).CheckAnchors(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}
