package firstattack

import (
	"math/big"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

var _ = Describe("An injected agent trying to drain the account", Label("anvil"), func() {
	var w *afrspec.World

	BeforeEach(func() {
		w = afrspec.StartWorld(world.Config{}) // backend from -afr.backend / AFR_BACKEND
	})

	It("is refused when it reuses an approved PDR for different calldata", func(ctx SpecContext) {
		// The agent asks for something harmless and gets a signed PDR.
		p := w.MustPropose(ctx, "agent", w.CounterCall(1))
		Expect(p.Evaluation.Allowed()).To(BeTrue())

		// Injected, it submits that PDR with calldata of its own.
		res := w.Submit(ctx, w.Agent(), &p.PDR, w.CounterCall(1_000_000))
		Expect(res).To(afrspec.RevertWith("UnauthorizedPolicySigner", Not(Equal(w.PolicySigner().Address))))

		// The refusal is evidence: recorded, sealed, anchored, verified.
		w.MustRecordOutcome(ctx, p, res)
		Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
	})

	It("is refused when it forges the policy signature to pay the attacker", func(ctx SpecContext) {
		drain := pdr.Call{Target: w.Attacker().Address, Value: big.NewInt(4e18)}
		p := w.MustPropose(ctx, "agent", drain)
		Expect(p.Evaluation.Allowed()).To(BeFalse(), "the policy denies it")

		forged, err := pdr.SignPDR(w.Attacker().Key, pdr.ForCall(w.Domain(), drain, pdr.Terms{
			Nonce: p.PDR.PDR.Nonce, Decision: format.DecisionAllow, Expiry: p.PDR.PDR.Expiry, EventID: p.EventID()}))
		Expect(err).NotTo(HaveOccurred())
		res := w.Submit(ctx, w.Attacker(), &forged, drain)
		Expect(res).To(afrspec.RevertWith("UnauthorizedPolicySigner", w.Attacker().Address))
		w.MustRecordOutcome(ctx, p, res)

		// A copy of the log with the denial edited out no longer verifies.
		Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		img, err := w.LogImage()
		Expect(err).NotTo(HaveOccurred())
		last := len(img.RecordFrames) - 1
		Expect(img.DeleteRecord(last)).To(Succeed())
		Expect(w.VerifyImage(ctx, img, nil)).To(And(afrspec.BeTamperedAt(uint64(last)), afrspec.HaveFinding(verifier.KindRecordsMissing)))
	})
})
