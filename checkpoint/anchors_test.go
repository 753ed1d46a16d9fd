package checkpoint_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

func verify(t testing.TB, src verifier.Source, anchors verifier.AnchorSource) *verifier.Report {
	t.Helper()
	rep, err := verifier.VerifyLog(context.Background(), src, anchors, verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// An honest log verifies against its cosigned checkpoint: every epoch is
// anchored, and each anchor names the checkpoint and its witnesses.
func TestHonestLogVerifies(t *testing.T) {
	lg := makeLog(t, 120, 10, 1)
	op, w1, w2 := newKey(t, 1, "example.com/operator"), newKey(t, 2, "w1.example"), newKey(t, 3, "w2.example")
	pub := lg.sign(t, op, len(lg.leaves))
	pub.Note = cosign(t, pub.Note, witnessSigner(t, w1), witnessSigner(t, w2))
	src := checkpoint.Anchors{Checkpoints: []checkpoint.Published{pub}, Policy: policy(t, op, 2, w1, w2), LogID: lg.id}
	rep := verify(t, lg.img, src)
	if rep.Verdict != verifier.Verified || rep.AnchoredEpochs != 12 || rep.AnchoredEvents != 120 {
		t.Fatalf("verdict %s, anchored %d epochs %d events; findings %v", rep.Verdict, rep.AnchoredEpochs, rep.AnchoredEvents, rep.Findings)
	}
	as, err := src.Anchors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := "checkpoint afr.log/" + hexID(lg.id) + " size 12 signed by example.com/operator, cosigned by w1.example, w2.example"
	if len(as) != 12 || as[3].Source != want {
		t.Fatalf("%d anchors, source %q, want %q", len(as), as[3].Source, want)
	}
}

func hexID(d format.Digest) string { return strings.TrimPrefix(d.String(), "0x") }

// Every attack of verifier/tamper, at a spread of positions, is caught
// against a cosigned checkpoint of the honest log: the anchors come from
// the checkpoint alone.
func TestTamperCaughtAgainstCheckpoint(t *testing.T) {
	lg := makeLog(t, 100, 10, 2)
	other := makeLog(t, 100, 10, 3)
	op, w := newKey(t, 1, "example.com/operator"), newKey(t, 2, "w1.example")
	pub := lg.sign(t, op, len(lg.leaves))
	pub.Note = cosign(t, pub.Note, witnessSigner(t, w))
	src := checkpoint.Anchors{Checkpoints: []checkpoint.Published{pub}, Policy: policy(t, op, 1, w), LogID: lg.id}

	records := []int{0, 9, 10, 47, 98, 99}
	epochs := []int{0, 4, 9}
	for _, a := range []struct {
		name   string
		epochs bool
		apply  func(im *tamper.Image, pos int) error
	}{
		{"edit-record", false, (*tamper.Image).EditRecord},
		{"flip-record-byte", false, (*tamper.Image).FlipRecordByte},
		{"edit-payload", false, (*tamper.Image).EditPayload},
		{"delete-record", false, (*tamper.Image).DeleteRecord},
		{"insert-record", false, (*tamper.Image).InsertRecord},
		{"reorder", false, func(im *tamper.Image, i int) error { return im.SwapRecords(i, (i+1)%100) }},
		{"payload-swap", false, func(im *tamper.Image, i int) error { return im.SwapPayloads(i, (i+1)%100) }},
		{"cross-session-splice", false, func(im *tamper.Image, i int) error { return im.Splice(i, other.img) }},
		{"fork", false, (*tamper.Image).Fork},
		{"rewrite-tail", false, (*tamper.Image).RewriteTail},
		{"truncate-inside-epoch", false, func(im *tamper.Image, i int) error { return im.Truncate(i - i%10 + 5) }},
		{"replace-header", true, (*tamper.Image).ReplaceHeader},
		{"drop-epoch", true, (*tamper.Image).DropHeader},
		{"rollback", true, (*tamper.Image).Rollback},
		{"linear-fake", true, func(im *tamper.Image, t int) error { _, err := im.LinearFake(t); return err }},
	} {
		positions := records
		if a.epochs {
			positions = epochs
		}
		for _, pos := range positions {
			img := lg.img.Clone()
			if err := a.apply(img, pos); err != nil {
				t.Fatalf("%s at %d: %v", a.name, pos, err)
			}
			if rep := verify(t, img, src); rep.Verdict != verifier.Tampered {
				t.Errorf("%s at %d: verdict %s, want tampered; findings %v", a.name, pos, rep.Verdict, rep.Findings)
			}
		}
	}
	// A copy cut at an epoch boundary is older than the checkpoint:
	// incomplete, with the missing epochs named.
	img := lg.img.Clone()
	if err := img.Truncate(50); err != nil {
		t.Fatal(err)
	}
	if rep := verify(t, img, src); rep.Verdict != verifier.Incomplete || !rep.Has(verifier.KindTruncated) {
		t.Errorf("truncated at an epoch boundary: verdict %s, findings %v; want incomplete, truncated", rep.Verdict, rep.Findings)
	}
}

// A growing log: a checkpoint of its first epochs and one of all of them
// are consistent (the proof between them verifies, and witnesses get it in
// an add-checkpoint request), and the log verifies against both together.
// Epochs past the first checkpoint are unanchored by it alone.
func TestGrowingLog(t *testing.T) {
	lg := makeLog(t, 95, 10, 4) // 10 epochs: closing the log sealed the last 5 events
	op := newKey(t, 1, "example.com/operator")
	p := policy(t, op, 0)
	early, late := lg.sign(t, op, 4), lg.sign(t, op, 10)
	a, _, err := checkpoint.Open(early, p, lg.id)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := checkpoint.Open(late, p, lg.id)
	if err != nil {
		t.Fatal(err)
	}
	req, err := checkpoint.NewRequest(late.Note, checkpoint.Roots(late.Leaves), a.Size)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := checkpoint.ParseRequest(req.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if parsed.OldSize != 4 || string(parsed.Checkpoint) != string(late.Note) || len(parsed.Proof) == 0 {
		t.Fatalf("request read back as old %d, %d proof hashes", parsed.OldSize, len(parsed.Proof))
	}
	if err := checkpoint.VerifyConsistency(a.Size, b.Size, a.Root, b.Root, parsed.Proof); err != nil {
		t.Fatalf("the growing log's checkpoints are not consistent: %v", err)
	}

	rep := verify(t, lg.img, checkpoint.Anchors{Checkpoints: []checkpoint.Published{early}, Policy: p, LogID: lg.id})
	if rep.Verdict != verifier.Incomplete || rep.AnchoredEpochs != 4 || !rep.Has(verifier.KindUnanchored) {
		t.Fatalf("against the early checkpoint: verdict %s, %d epochs anchored; findings %v", rep.Verdict, rep.AnchoredEpochs, rep.Findings)
	}
	rep = verify(t, lg.img, checkpoint.Anchors{Checkpoints: []checkpoint.Published{early, late}, Policy: p, LogID: lg.id})
	if rep.Verdict != verifier.Verified || rep.AnchoredEpochs != 10 {
		t.Fatalf("against both: verdict %s, %d epochs anchored; findings %v", rep.Verdict, rep.AnchoredEpochs, rep.Findings)
	}
}

// A fork: the operator signs a checkpoint of a rewritten history after one
// of the honest history. The consistency proof from the first to the
// second fails, a witness would refuse it, and a verifier given both finds
// two roots for one epoch: tampered, not an error.
func TestForkIsTampered(t *testing.T) {
	lg := makeLog(t, 80, 10, 5)
	op := newKey(t, 1, "example.com/operator")
	p := policy(t, op, 0)
	honest := lg.sign(t, op, 5)
	forkImg := lg.img.Clone()
	if err := forkImg.Fork(23); err != nil { // rewrites epochs 2 … 7
		t.Fatal(err)
	}
	fork := &testLog{img: forkImg, leaves: leavesOf(t, forkImg), id: lg.id}
	forked := fork.sign(t, op, 8)

	a, _, err := checkpoint.Open(honest, p, lg.id)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := checkpoint.Open(forked, p, lg.id)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := checkpoint.ConsistencyProof(checkpoint.Roots(forked.Leaves), a.Size)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.VerifyConsistency(a.Size, b.Size, a.Root, b.Root, proof); !errors.Is(err, checkpoint.ErrInconsistent) {
		t.Fatalf("fork: %v, want ErrInconsistent", err)
	}
	src := checkpoint.Anchors{Checkpoints: []checkpoint.Published{honest, forked}, Policy: p, LogID: lg.id}
	for name, img := range map[string]*tamper.Image{"honest log": lg.img, "forked log": forkImg} {
		rep := verify(t, img, src)
		if rep.Verdict != verifier.Tampered || !rep.Has(verifier.KindAnchorConflict) {
			t.Errorf("%s against both checkpoints: verdict %s, findings %v; want tampered, anchor_conflict", name, rep.Verdict, rep.Findings)
		}
	}
}

// Damaged leaves, a checkpoint of another log and a failed policy are
// errors naming the checkpoint and the problem; so are missing files.
func TestAnchorsDamagedInputs(t *testing.T) {
	lg := makeLog(t, 60, 10, 6)
	other := makeLog(t, 60, 10, 7)
	op, w := newKey(t, 1, "example.com/operator"), newKey(t, 2, "w1.example")
	pub := lg.sign(t, op, 6)
	p := policy(t, op, 0)
	edit := func(f func(l []format.Anchor) []format.Anchor) checkpoint.Published {
		c := pub
		c.Leaves = f(append([]format.Anchor(nil), pub.Leaves...))
		return c
	}
	for _, c := range []struct {
		name string
		pub  checkpoint.Published
		p    *checkpoint.Policy
		want error
	}{
		{"a leaf missing", edit(func(l []format.Anchor) []format.Anchor { return l[:5] }), p, checkpoint.ErrLeaves},
		{"a leaf too many", edit(func(l []format.Anchor) []format.Anchor { return append(l, l[5]) }), p, checkpoint.ErrLeaves},
		{"a root changed", edit(func(l []format.Anchor) []format.Anchor { l[5].Root[0] ^= 1; return l }), p, checkpoint.ErrLeaves},
		{"a back-pointer changed", edit(func(l []format.Anchor) []format.Anchor { l[3].PrevRoot[0] ^= 1; return l }), p, checkpoint.ErrLeaves},
		{"leaves reordered", edit(func(l []format.Anchor) []format.Anchor { l[1], l[2] = l[2], l[1]; return l }), p, checkpoint.ErrLeaves},
		{"another log's leaves", edit(func([]format.Anchor) []format.Anchor { return other.leaves }), p, checkpoint.ErrLeaves},
		{"another log's checkpoint", other.sign(t, op, 6), p, checkpoint.ErrForeignLog},
		{"no witness", pub, policy(t, op, 1, w), checkpoint.ErrPolicy},
		{"not a checkpoint", checkpoint.Published{Name: "x", Note: []byte("{}"), Leaves: pub.Leaves}, p, checkpoint.ErrMalformed},
	} {
		_, err := checkpoint.Anchors{Checkpoints: []checkpoint.Published{c.pub}, Policy: c.p, LogID: lg.id}.Anchors(context.Background())
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "checkpoint "+c.pub.Name) {
			t.Errorf("%s: %v, want %v naming the checkpoint", c.name, err, c.want)
		}
	}
	if _, err := (checkpoint.Anchors{Policy: p, LogID: lg.id}).Anchors(context.Background()); err == nil {
		t.Error("no checkpoints: no error")
	}
	if _, err := (checkpoint.Anchors{Checkpoints: []checkpoint.Published{pub}, Policy: p}).Anchors(context.Background()); err == nil {
		t.Error("no log id: no error")
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint")
	if err := checkpoint.WritePublished(path, pub.Note, pub.Leaves); err != nil {
		t.Fatal(err)
	}
	back, err := checkpoint.ReadPublished(context.Background(), path)
	if err != nil || string(back.Note) != string(pub.Note) || len(back.Leaves) != 6 {
		t.Fatalf("read back: %v", err)
	}
	if err := os.Remove(checkpoint.LeavesPath(path)); err != nil {
		t.Fatal(err)
	}
	_, err = checkpoint.ReadPublished(context.Background(), path)
	if lm := (*checkpoint.LeavesMissingError)(nil); !errors.As(err, &lm) || lm.Checkpoint != path || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("leaves missing: %v, want a *LeavesMissingError", err)
	}
	if err := os.WriteFile(checkpoint.LeavesPath(path), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.ReadPublished(context.Background(), path); !errors.Is(err, format.ErrAnchorsFile) {
		t.Errorf("leaves garbage: %v, want ErrAnchorsFile", err)
	}
}

// Leaves refuses a log whose epoch chain is broken: an operator never
// signs a checkpoint over it.
func TestLeavesRefuseDamagedChain(t *testing.T) {
	lg := makeLog(t, 40, 10, 8)
	img := lg.img.Clone()
	if err := img.DropHeader(1); err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.Leaves(img); !errors.Is(err, checkpoint.ErrLeaves) || !errors.Is(err, checkpoint.ErrDamagedLog) {
		t.Fatalf("dropped header: %v, want ErrDamagedLog and ErrLeaves", err)
	}
}

// CheckExtends lets the operator sign a grown log, and refuses a log
// rewritten, truncated or of another log since its previous checkpoint.
func TestCheckExtends(t *testing.T) {
	lg := makeLog(t, 60, 10, 9)
	other := makeLog(t, 60, 10, 10)
	op := newKey(t, 1, "example.com/operator")
	p := &checkpoint.Policy{Operator: policy(t, op, 0).Operator}
	prev := lg.sign(t, op, 4).Note
	if err := checkpoint.CheckExtends(prev, p, lg.id, lg.leaves); err != nil {
		t.Fatalf("grown log: %v", err)
	}
	if err := checkpoint.CheckExtends(prev, p, lg.id, lg.leaves[:4]); err != nil {
		t.Fatalf("same log: %v", err)
	}
	forkImg := lg.img.Clone()
	if err := forkImg.Fork(25); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.CheckExtends(prev, p, lg.id, leavesOf(t, forkImg)); !errors.Is(err, checkpoint.ErrWouldFork) || !strings.Contains(err.Error(), "was rewritten") {
		t.Errorf("rewritten log: %v, want ErrWouldFork", err)
	}
	if err := checkpoint.CheckExtends(prev, p, lg.id, lg.leaves[:3]); !errors.Is(err, checkpoint.ErrWouldFork) {
		t.Errorf("truncated log: %v, want ErrWouldFork", err)
	}
	if err := checkpoint.CheckExtends(prev, p, other.id, other.leaves); !errors.Is(err, checkpoint.ErrForeignLog) {
		t.Errorf("another log: %v, want ErrForeignLog", err)
	}
}

// A checkpoint note over MaxNoteBytes is malformed, refused from its size
// before it is read: it was read whole first (here 1 GiB allocated), and
// Verify refused it only then.
func TestReadPublishedBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkpoint")
	if err := checkpoint.WritePublished(path, []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := checkpoint.ReadPublished(context.Background(), path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, checkpoint.ErrMalformed) || after.TotalAlloc-before.TotalAlloc > 1<<20 {
		t.Fatalf("a note of 1 GiB: %v after allocating %d bytes", err, after.TotalAlloc-before.TotalAlloc)
	}
}
