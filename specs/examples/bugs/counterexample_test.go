package bugs

import (
	"flag"
	"fmt"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
	"github.com/agentflightrecorder/afr/world/fuzz"
)

var update = flag.Bool("update", false, "rewrite the counterexample_<pattern>_test.go files from fresh campaigns")

// specFile is the committed spec generated from pattern p's violation.
func specFile(p pattern) string {
	return "counterexample_" + strings.ToLower(p.forge) + "_test.go"
}

// specOptions say how pattern p's generated spec names the suite's World,
// the campaign's target and its invariant (the senders are the World's
// actors alice, bob and carol, the default). Breaks: the bug is planted,
// so the spec asserts that the sequence still breaks the invariant.
func specOptions(p pattern, c fuzz.Campaign) fuzz.SpecOptions {
	campaign := fmt.Sprintf("campaigns[%q].planted", p.forge)
	t := c.Targets[0]
	return fuzz.SpecOptions{
		Package: "bugs",
		World:   "w.World",
		Targets: map[string]fuzz.SpecTarget{t.Name: {
			Address: campaign + ".Targets[0].Address",
			ABI:     campaign + ".Targets[0].ABI",
		}},
		Invariant: campaign + ".Invariants[0]",
		Breaks:    true,
		Campaign:  campaign + " (" + p.name + ") of patterns_test.go",
		Header: []string{
			"The " + p.name + " bug, planted on purpose: this spec asserts that the sequence",
			"still breaks the invariant. counterexample_test.go generates the file again from a",
			"fresh campaign and compares it byte for byte; rewrite it with",
			"go test ./specs/examples/bugs -args -update",
		},
	}
}

// checkEvidence checks what a planted bug's violation becomes: the spec
// committed as specFile(p), generated again byte for byte, and a log of
// the attack — one intent and one outcome per call, and the broken
// invariant — that verifies.
func checkEvidence(ctx SpecContext, p pattern, c fuzz.Campaign, v *fuzz.Violation) {
	GinkgoHelper()
	src, err := v.Spec(specOptions(p, c))
	Expect(err).NotTo(HaveOccurred())
	if *update {
		Expect(os.WriteFile(specFile(p), src, 0o644)).To(Succeed())
	}
	committed, err := os.ReadFile(specFile(p))
	Expect(err).NotTo(HaveOccurred())
	Expect(string(src)).To(Equal(string(committed)), "the generated spec changed: review it and rewrite %s with -update", specFile(p))

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
			Expect(e.Payload.Content.Text).To(ContainSubstring(fmt.Sprintf("invariant %q broken", v.Invariant)))
		}
	}
	Expect(txs).To(Equal(2*len(v.Calls)), "one intent and one outcome per call")
	Expect(invariants).To(Equal(1))
	last, ok := ix.Event(att.Calls[len(att.Calls)-1].Outcome.Seq)
	Expect(ok).To(BeTrue())
	Expect(last.Payload.Effects).NotTo(BeEmpty(), "the outcome of the call that broke the invariant has no effects")
}
