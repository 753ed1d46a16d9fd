package incident_test

import (
	"fmt"
	"math/big"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

// The scenario of the paper (world.RecordIncident, which `afr bench rq4`
// runs too): a support agent reads a web page carrying a prompt injection,
// delegates a "migration" to the treasury agent, and the treasury agent
// tries to move the account's funds to the attacker — first under the
// policy's (denying) PDR, then under its delegation. Around it, 240 events
// of unrelated agent work and benign actions of the same agents.
var _ = Describe("A prompt injection that propagates through a delegation", Ordered, Label("anvil"), func() {
	var (
		w   *afrspec.World
		inc *world.Incident
	)

	BeforeAll(func(ctx SpecContext) {
		w = afrspec.StartWorld(world.Config{EpochSize: 32})
		var err error
		inc, err = world.RecordIncident(ctx, w.World)
		Expect(err).NotTo(HaveOccurred())
	})

	It("went as the scenario says: the policy denied the transfer, the account refused it twice, the log verifies", func() {
		Expect(inc.Proposal.Evaluation.Allowed()).To(BeFalse(), "the policy denies paying the attacker")
		Expect(inc.Denied).To(afrspec.RevertWith("DecisionNotAllow", 0))
		Expect(inc.Delegated).To(afrspec.RevertWith("TargetNotDelegated", inc.Delegations[0].Delegation.Digest(w.Domain()), w.Attacker().Address))
		Expect(inc.Verification).To(afrspec.BeVerified())
	})

	It("left the account's funds where they were", func(ctx SpecContext) {
		bal, err := w.Client().BalanceAt(ctx, w.Account(), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(bal.Cmp(big.NewInt(5e18))).To(Equal(0))
	})

	It("reconstructs the causal chain from the log alone, with precision and recall 1.0", func(ctx SpecContext) {
		// Start where an investigator starts: the refused transfer to the
		// attacker; grep over the plain JSON log of the same events is the
		// paper's baseline.
		inv, err := inc.Investigate(w.MustIndex(), GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		Expect(inv.Start).To(Equal(inc.Attempt.Seq))
		Expect(inv.Delegations).To(HaveLen(1))
		Expect(inv.Delegations[0]).To(And(HaveField("Delegator", "support-agent"), HaveField("Delegate", "treasury-agent")))
		Expect(inv.Chain[0].Payload.Context.Inputs[0].Source).To(ContainSubstring("evil.example"), "the chain starts at the injected page")

		table := world.ScoreTable(append([]world.Score{inv.Structured}, inv.Grep...))
		AddReportEntry("RQ4 precision and recall", fmt.Sprintf("%d events, %d in the incident, %d causal links\n%s", inv.Events, len(inc.Truth), len(inv.Links), table))
		GinkgoWriter.Printf("RQ4 over %d events (%d in the incident):\n%s", inv.Events, len(inc.Truth), table)

		Expect(inv.Structured.Precision).To(Equal(1.0), table)
		Expect(inv.Structured.Recall).To(Equal(1.0), table)
		for _, s := range inv.Grep {
			Expect(s.Precision == 1 && s.Recall == 1).To(BeFalse(), "grep should not reconstruct the incident exactly:\n%s", table)
		}
	})

	It("discloses the causal chain as a bundle that verifies against the chain's anchors", func(ctx SpecContext) {
		ix := w.MustIndex()
		events, _, err := ix.CausalChain(inc.Attempt.Seq)
		Expect(err).NotTo(HaveOccurred())
		l, err := recorder.OpenLog(w.LogDir())
		Expect(err).NotTo(HaveOccurred())
		b, err := verifier.Disclose(l, verifier.Seqs(events), verifier.DiscloseOptions{Keys: w.Keys()})
		Expect(err).NotTo(HaveOccurred())
		rep, err := verifier.VerifyBundle(ctx, b, w.Anchors(), verifier.Options{Payloads: verifier.PayloadsOpen})
		Expect(err).NotTo(HaveOccurred())
		Expect(rep).To(afrspec.BeVerified())
		Expect(rep.Payloads).To(HaveLen(len(events)))
	})
})
