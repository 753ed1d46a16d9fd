package account_test

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/verifier"
)

// signedFor has the World's policy signer sign an allowing PDR for call
// bound to eventID, with the account's next nonce: what a compromised agent
// holding a signed PDR can execute, whatever the log says.
func signedFor(ctx context.Context, v *afrspec.World, call pdr.Call, eventID common.Hash) pdr.SignedPDR {
	GinkgoHelper()
	t, err := v.Pace.NextTerms(ctx, eventID)
	Expect(err).NotTo(HaveOccurred())
	t.Decision = format.DecisionAllow
	s, err := pdr.SignPDR(v.PolicySigner.Key, pdr.ForCall(v.Domain, call, t))
	Expect(err).NotTo(HaveOccurred())
	return s
}

// These specs change what the account executed behind the log's back, so
// they share a World of their own (the suite's shared World must stay
// honest), reverted after each spec: each starts from the same chain and an
// empty log.
var _ = Describe("The World's verification checks the account's executions against the log", Ordered, Label("anvil"), func() {
	var v *afrspec.World
	var ctx context.Context
	BeforeAll(func() { v = afrspec.StartWorld(afrspec.Config{}) })
	BeforeEach(func() {
		ctx = context.Background()
		v.Isolate()
		p := v.MustPropose(ctx, "agent", v.PingCall())
		v.MustRecordOutcome(ctx, p, v.Execute(ctx, p))
	})

	It("matches every recorded execution with its intent", func() {
		rep := v.MustSealAndVerify(ctx)
		Expect(rep).To(afrspec.BeVerified())
		Expect(rep.Report.Executions).To(HaveField("Matched", 1))
	})

	It("reports an execution whose event id the log never recorded", func() {
		never := crypto.Keccak256Hash([]byte("an intent that was never recorded"))
		s := signedFor(ctx, v, v.PingCall(), never)
		Expect(v.Submit(ctx, v.Agent, &s, v.PingCall()).Succeeded()).To(BeTrue())
		rep := v.MustSealAndVerify(ctx)
		Expect(rep).To(afrspec.BeIncomplete())
		Expect(rep).To(afrspec.HaveFinding(verifier.KindExecAfterLog))
		Expect(rep.Report.Executions).To(HaveField("Recorded", 1))
	})

	It("reports an execution that differs from the intent recorded under its event id", func() {
		p := v.MustPropose(ctx, "agent", v.CounterCall(7))
		s := signedFor(ctx, v, v.CounterCall(8), p.EventID())
		Expect(v.Submit(ctx, v.Agent, &s, v.CounterCall(8)).Succeeded()).To(BeTrue())
		rep := v.MustSealAndVerify(ctx)
		Expect(rep).To(afrspec.HaveFinding(verifier.KindExecMismatch))
		Expect(rep.Report.Verdict).To(Equal(verifier.Tampered))
	})
})
