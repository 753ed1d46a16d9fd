package afrspec_test

import (
	"math/big"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/tracesim"
	"github.com/agentflightrecorder/afr/world"
)

var _ = Describe("Evidence of any transaction", Label("anvil"), func() {
	var w *afrspec.World
	BeforeEach(func() { w = afrspec.StartWorld(world.Config{}) })

	It("replays a plain transaction on the World's backend and records it as intent and outcome", func(ctx SpecContext) {
		counter, err := world.TargetArtifact("Counter")
		Expect(err).NotTo(HaveOccurred())
		res := w.Send(ctx, w.Attacker(), w.Counter(), big.NewInt(7), counter.Pack("bump", big.NewInt(5)))
		Expect(res.Succeeded()).To(BeTrue(), "%s", res)

		r, err := w.Replay(ctx, res.Receipt.TxHash)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Fidelity.OK).To(BeTrue())
		Expect(r.Intent.Call).NotTo(BeNil())
		Expect(r.Intent.Call.Signature).To(Equal("bump(uint256)"))
		Expect(r.Effects.Storage).NotTo(BeEmpty(), "bump writes count, received and lastCaller")

		ev, err := w.RecordTx(ctx, "attacker", res)
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.Outcome.Seq).To(Equal(ev.Intent.Seq + 1))
		reverted := w.Send(ctx, w.Attacker(), w.Counter(), nil, counter.Pack("fail", big.NewInt(3)))
		Expect(reverted.Reverted).To(BeTrue())
		refused, err := w.RecordTx(ctx, "attacker", reverted, ev.Outcome.Seq)
		Expect(err).NotTo(HaveOccurred())
		Expect(refused.Replay).To(BeNil(), "a call refused in simulation is never mined")

		Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		ix := w.MustIndex()
		event := func(seq uint64) *format.Payload {
			GinkgoHelper()
			e, ok := ix.Event(seq)
			Expect(ok).To(BeTrue(), "event %d", seq)
			Expect(e.Payload).NotTo(BeNil(), "event %d's payload", seq)
			return e.Payload
		}
		out := struct{ Payload *format.Payload }{event(ev.Outcome.Seq)}
		Expect(out.Payload.Execution.Status).To(Equal(format.StatusOK))
		Expect(out.Payload.Execution.TxHash).To(Equal(format.Bytes(res.Receipt.TxHash.Bytes())))
		Expect(out.Payload.Effects).NotTo(BeEmpty(), "storage and balance changes from the replay")
		Expect(out.Payload.Ext).To(HaveKey(tracesim.ExtCalls))
		Expect(out.Payload.Ext).To(HaveKeyWithValue(format.ExtGasUsed, res.Receipt.GasUsed))
		Expect(out.Payload.Context.Parents).To(Equal([]uint64{ev.Intent.Seq}))
		Expect(event(ev.Intent.Seq).Intent.Tool).To(Equal("bump(uint256)"))
		Expect(event(ev.Intent.Seq).Intent.Args).To(HaveKey("by"))
		Expect(event(refused.Outcome.Seq).Execution.Status).To(Equal(format.StatusReverted))
		Expect(event(refused.Outcome.Seq).Execution.Error).To(ContainSubstring("Boom"))
	})
})
