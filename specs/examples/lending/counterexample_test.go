package lending

import (
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

// initializeSpecFile is the spec generated from the initializer
// violation, committed as a spec of this suite.
const initializeSpecFile = "counterexample_initialize_test.go"

var update = flag.Bool("update", false, "rewrite "+initializeSpecFile+" from a fresh campaign")

// initializeSpec says how the generated spec names the suite's World,
// actors, contracts and invariant. Breaks: the bug is planted, so the spec
// asserts that the sequence still breaks "owner unchanged".
func initializeSpec() fuzz.SpecOptions {
	return fuzz.SpecOptions{
		Package:   "lending",
		World:     "w.World",
		Actors:    map[string]string{"attacker": "attacker", "alice": "alice", "bob": "bob"},
		Targets:   map[string]fuzz.SpecTarget{"pool": {Address: "pool", ABI: "poolArt.ABI"}},
		Addresses: map[common.Address]string{admin: "admin", spot: "spot", twap: "twap", coll: "coll", usd: "usd"},
		Invariant: "ownerUnchanged(ctx, pool)",
		Breaks:    true,
		Campaign:  "poolCampaign(ctx, pool, poolArt) of invariant_test.go",
		Header: []string{
			"The re-callable initializer of LendingPool, planted on purpose: this spec asserts",
			"that the sequence still breaks the invariant. counterexample_test.go generates the",
			"file again from a fresh campaign and compares it byte for byte; rewrite it with",
			"go test ./specs/examples/lending -args -update",
		},
	}
}

// initializeViolation runs the campaign of invariant_test.go on the pool
// and returns its violation. (The invariant makes its calls with the
// spec's ctx, so each spec runs its own campaign.)
func initializeViolation(ctx SpecContext) *fuzz.Violation {
	GinkgoHelper()
	v, err := fuzz.Invariants(ctx, GinkgoT(), w.World, poolCampaign(ctx, pool, poolArt))
	Expect(err).NotTo(HaveOccurred())
	Expect(v).NotTo(BeNil(), "no violation for the planted bug")
	return v
}

var _ = Describe("The initializer violation", Label("fuzz"), func() {
	It("is the committed spec "+initializeSpecFile+", generated again byte for byte", func(ctx SpecContext) {
		src, err := initializeViolation(ctx).Spec(initializeSpec())
		Expect(err).NotTo(HaveOccurred())
		if *update {
			Expect(os.WriteFile(initializeSpecFile, src, 0o644)).To(Succeed())
		}
		committed, err := os.ReadFile(initializeSpecFile)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(src)).To(Equal(string(committed)), "the generated spec changed: review it and rewrite the file with -update")
	})

	It("is recorded as a verifying log of the attack", func(ctx SpecContext) {
		v := initializeViolation(ctx)
		att, err := v.Record(ctx, w.World)
		Expect(err).NotTo(HaveOccurred())
		Expect(att.Verification).To(afrspec.BeVerified())
		Expect(att.Calls).To(HaveLen(len(v.Calls)))

		ix := w.MustIndex()
		var txs, invariants int
		for seq := range uint64(ix.Len()) {
			e, ok := ix.Event(seq)
			Expect(ok).To(BeTrue(), "event %d", seq)
			switch e.Envelope.Tool {
			case world.ToolTx:
				txs++
			case fuzz.ToolInvariant:
				invariants++
				Expect(e.Payload.Content.Text).To(ContainSubstring(`invariant "owner unchanged" broken`))
			}
		}
		Expect(txs).To(Equal(2*len(v.Calls)), "one intent and one outcome per call")
		Expect(invariants).To(Equal(1))

		// The outcome of initialize shows the owner slot (0) going from
		// admin to the attacker.
		out, ok := ix.Event(att.Calls[len(att.Calls)-1].Outcome.Seq)
		Expect(ok).To(BeTrue())
		Expect(out.Payload.Effects).To(ContainElement(HaveField("ChainState", And(
			HaveField("Address", Equal(format.Bytes(pool.Bytes()))),
			WithTransform(func(cs *format.ChainState) common.Hash { return common.BytesToHash(cs.Slot) }, Equal(common.Hash{})),
			WithTransform(func(cs *format.ChainState) common.Address { return common.BytesToAddress(cs.Before) }, Equal(admin)),
			WithTransform(func(cs *format.ChainState) common.Address { return common.BytesToAddress(cs.After) }, Equal(attacker.Address)),
		))))

		// One flipped byte of a record is found.
		img, err := w.LogImage()
		Expect(err).NotTo(HaveOccurred())
		Expect(img.FlipRecordByte(int(out.Seq))).To(Succeed())
		Expect(w.VerifyImage(ctx, img, nil)).To(afrspec.BeTamperedAt(out.Seq))

		if dir := os.Getenv("AFR_EVIDENCE_DIR"); dir != "" {
			Expect(saveEvidence(ctx, dir)).To(Succeed())
			GinkgoWriter.Printf("evidence: afr verify --log %s --anchors %s --level open\n",
				filepath.Join(dir, "log"), filepath.Join(dir, "anchors.json"))
		}
	})
})

// saveEvidence copies the World's log (with its keys) to dir/log and
// writes the anchors the World's chain holds for it to dir/anchors.json:
// what a third party verifies with afr verify once the in-process chain is
// gone.
func saveEvidence(ctx context.Context, dir string) error {
	src, dst := w.LogDir(), filepath.Join(dir, "log")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	// CopyFS makes files readable by all: the keys must stay private.
	if err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		return os.Chmod(filepath.Join(dst, rel), info.Mode().Perm())
	}); err != nil {
		return err
	}
	anchors, err := w.Anchors().Anchors(ctx)
	if err != nil {
		return err
	}
	return format.WriteAnchorsFile(filepath.Join(dir, "anchors.json"), anchors)
}
