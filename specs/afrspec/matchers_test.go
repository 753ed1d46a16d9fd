package afrspec_test

import (
	"context"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
	"github.com/agentflightrecorder/afr/world"
)

// failureOf runs a deliberately broken expectation and returns the failure
// message Gomega would have reported (it fails this spec if there is none).
func failureOf(broken func()) string {
	GinkgoHelper()
	failures := InterceptGomegaFailures(broken)
	Expect(failures).To(HaveLen(1), "the broken expectation must fail exactly once")
	return failures[0]
}

// headOf is a failure message without the trace that follows it.
func headOf(msg string) string {
	head, _, _ := strings.Cut(msg, "\nTrace:\n")
	return head
}

func revertData(name string, args ...any) []byte {
	e := bindings.NewPaceSmartAccount().GetABI().Errors[name]
	packed, err := e.Inputs.Pack(args...)
	Expect(err).NotTo(HaveOccurred())
	return append(append([]byte{}, e.ID[:4]...), packed...)
}

func u64(v uint64) *uint64 { return &v }

var _ = Describe("Matchers fail with a message that names the cause", func() {
	Describe("RevertWith", func() {
		nonce := func() []byte { return revertData("InvalidNonce", uint64(1), uint64(0)) }

		It("passes on the right error and arguments (values or matchers)", func() {
			Expect(nonce()).To(afrspec.RevertWith("InvalidNonce", 1, afrspec.BeNumerically("<", 1)))
			Expect(&world.TxResult{Reverted: true, RevertData: nonce()}).To(afrspec.RevertWith("InvalidNonce"))
		})
		It("names the error actually raised when it is another one", func() {
			msg := failureOf(func() { Expect(nonce()).To(afrspec.RevertWith("PDRExpired")) })
			Expect(msg).To(Equal("Expected a revert with PDRExpired(), but it reverted with PaceSmartAccount.InvalidNonce(expected=1, got=0)"))
		})
		It("names the argument that differs", func() {
			msg := failureOf(func() { Expect(nonce()).To(afrspec.RevertWith("InvalidNonce", 2, 0)) })
			Expect(msg).To(ContainSubstring("argument 0 (expected) is 1, expected 2"))
		})
		It("says when the call did not revert at all", func() {
			rc := &types.Receipt{Status: 1, TxHash: common.HexToHash("0xabc"), BlockNumber: big.NewInt(7), GasUsed: 39_657}
			msg := failureOf(func() { Expect(&world.TxResult{Receipt: rc}).To(afrspec.RevertWith("InvalidNonce")) })
			Expect(msg).To(Equal("Expected a revert with InvalidNonce(), but the call to 0x0000000000000000000000000000000000000000 succeeded (gas 39,657; block 7, transaction 0x0000000000000000000000000000000000000000000000000000000000000abc)"))
		})
		It("names the argument count when Error or Panic is given too many arguments", func() {
			msg := failureOf(func() { Expect(nonce()).To(afrspec.RevertWith("Error", "hi", "extra")) })
			Expect(msg).To(ContainSubstring("RevertWith: error Error has 1 argument(s), 2 given"))
		})
		It("rejects an error name the contracts do not define, listing those they do", func() {
			msg := failureOf(func() { Expect(nonce()).To(afrspec.RevertWith("InvalidNonse")) })
			Expect(msg).To(And(ContainSubstring(`has an error named "InvalidNonse" (known: Error, Panic; EpochAnchor: `), ContainSubstring(" InvalidNonce,")))
		})
	})

	Describe("UseGasAtMost", func() {
		It("reports the gas used and by how much it is over", func() {
			rc := &types.Receipt{Status: 1, TxHash: common.HexToHash("0x01"), GasUsed: 46_592}
			msg := failureOf(func() { Expect(rc).To(afrspec.UseGasAtMost(31_000)) })
			Expect(msg).To(ContainSubstring("Expected at most 31,000 gas, but transaction 0x0000000000000000000000000000000000000000000000000000000000000001 used 46,592 (15,592 over, +50.30%)"))
		})
	})

	Describe("verification matchers", func() {
		tampered := &world.Verification{Spans: []world.Span{{Epoch: 0, First: 0, Count: 16}, {Epoch: 1, First: 16, Count: 16}},
			Report: &verifier.Report{Verdict: verifier.Tampered, Events: 32, Epochs: 2, Findings: []verifier.Finding{
				{Kind: verifier.KindMerkleMismatch, Class: verifier.ClassTampered, Epoch: u64(1), Detail: "records do not give the root"},
				{Kind: verifier.KindChainBreak, Class: verifier.ClassTampered, Seq: u64(20), Detail: "prev is not the previous digest"},
			}}}
		unanchored := &verifier.Report{Verdict: verifier.Incomplete, Events: 10, Findings: []verifier.Finding{
			{Kind: verifier.KindUnanchored, Class: verifier.ClassIncomplete, Epoch: u64(0), Detail: "no anchor"}}}

		It("BeVerified lists the findings and a hint", func() {
			msg := failureOf(func() { Expect(tampered).To(afrspec.BeVerified()) })
			Expect(msg).To(ContainSubstring("Expected the log to be verified, but the verifier says verdict tampered"))
			Expect(msg).To(ContainSubstring("merkle_mismatch (tampered) epoch 1"))
			Expect(msg).To(ContainSubstring("hint (merkle_mismatch): a record of this epoch changed after the epoch was sealed"))
			msg = failureOf(func() { Expect(unanchored).To(afrspec.BeVerified()) })
			Expect(msg).To(ContainSubstring("call World.SealAndAnchor"))
		})
		It("BeTamperedAt places epoch findings through the layout, and says where they point otherwise", func() {
			Expect(tampered).To(afrspec.BeTamperedAt(17))
			Expect(tampered).To(afrspec.BeTamperedAt(20))
			msg := failureOf(func() { Expect(tampered).To(afrspec.BeTamperedAt(3)) })
			Expect(msg).To(ContainSubstring("Expected a tampered finding at event 3 (epoch 0), but the findings point elsewhere"))
		})
		It("HaveFinding summarises the kinds found, and rejects unknown kinds", func() {
			msg := failureOf(func() { Expect(tampered).To(afrspec.HaveFinding(verifier.KindAnchorMismatch)) })
			Expect(msg).To(ContainSubstring("Expected a finding of kind anchor_mismatch (class tampered), but the report has merkle_mismatch ×1, chain_break ×1"))
			msg = failureOf(func() { Expect(tampered).To(afrspec.HaveFinding("merkle_mismatc")) })
			Expect(msg).To(And(ContainSubstring(`unknown finding kind "merkle_mismatc"`), ContainSubstring("merkle_mismatch")))
		})
		It("BeIncomplete says what the verdict is instead", func() {
			Expect(unanchored).To(afrspec.BeIncomplete())
			msg := failureOf(func() { Expect(tampered).To(afrspec.BeIncomplete()) })
			Expect(msg).To(ContainSubstring("Expected the log to be incomplete, but the verifier says verdict tampered"))
		})
	})

	Describe("EmitEvent", func() {
		ea := bindings.NewEpochAnchor().GetABI()
		ev := ea.Events["Anchored"]
		op := common.HexToAddress("0x1111111111111111111111111111111111111111")
		logID := common.Hash{0xab}
		data, _ := ev.Inputs.NonIndexed().Pack([32]byte{1}, [32]byte{})
		rc := &types.Receipt{Status: 1, Logs: []*types.Log{{Topics: []common.Hash{ev.ID, common.BytesToHash(op[:]), logID, common.BigToHash(big.NewInt(3))}, Data: data}}}

		It("matches decoded fields, and lists what was emitted when nothing matches", func() {
			Expect(rc).To(afrspec.EmitEvent("Anchored", "operator", op, "epoch", 3))
			Expect(rc).To(afrspec.EmitEvent("Anchored", afrspec.Fields{"epoch": afrspec.BeNumerically(">", 2)}))
			msg := failureOf(func() { Expect(rc).To(afrspec.EmitEvent("Anchored", "epoch", 4)) })
			Expect(msg).To(ContainSubstring("the transaction emitted:\n    - EpochAnchor.Anchored(operator=0x1111111111111111111111111111111111111111, logId=0xab00000000000000000000000000000000000000000000000000000000000000, epoch=3,"))
			Expect(msg).To(ContainSubstring("closest Anchored: field epoch is 3, expected 4"))
			msg = failureOf(func() { Expect(rc).To(afrspec.EmitEvent("Executed")) })
			Expect(msg).To(ContainSubstring("Expected an event Executed(), but the transaction emitted"))
		})
	})

	Describe("MatchIntent", func() {
		It("lists every field in which the execution differs from the recorded intent", func() {
			reg := onchain.DefaultRegistry()
			to := common.HexToAddress("0x2222222222222222222222222222222222222222")
			observed := calldata.IntentOf(reg, 1337, common.Address{}, &to, big.NewInt(5), []byte{0xde, 0xad, 0xbe, 0xef})
			recorded := observed.Record()
			Expect(observed).To(afrspec.MatchIntent(recorded))
			recorded.Value = big.NewInt(6).Bytes()
			msg := failureOf(func() { Expect(observed).To(afrspec.MatchIntent(recorded)) })
			Expect(msg).To(And(ContainSubstring("differs in 1 field(s)"), ContainSubstring("value: recorded 6, observed 5")))
		})
	})

	Describe("forensic scores", func() {
		It("computes precision and recall", func() {
			s := world.ScoreSeqs("q", []uint64{1, 2, 3, 3}, []uint64{2, 3, 4, 5})
			Expect(s.Retrieved).To(Equal(3))
			Expect(s.Precision).To(BeNumerically("~", 2.0/3))
			Expect(s.Recall).To(Equal(0.5))
		})
	})
})

// A deliberately broken spec on a real chain: the calldata-swap attack, but
// expecting the wrong revert. It must fail, and the message must name what
// really happened.
var _ = Describe("A broken attack spec on a real World", func() {
	It("fails with the revert the account actually raised", func(ctx SpecContext) {
		w := afrspec.StartWorld(world.Config{})
		p := w.MustPropose(ctx, "agent", w.CounterCall(1))
		res := w.Submit(ctx, w.Agent(), &p.PDR, w.CounterCall(1_000_000)) // calldata swapped after signing
		msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("InvalidNonce")) })
		Expect(msg).To(MatchRegexp(`^Expected a revert with InvalidNonce\(\), but it reverted with PaceSmartAccount.UnauthorizedPolicySigner\(recovered=0x[0-9a-fA-F]{40}\)\nTrace:\n`))
		Expect(msg).To(ContainSubstring("PaceSmartAccount (" + w.Account().Hex() + ")::execute(target=Counter (" + w.Counter().Hex() + "), value=0, "))
		Expect(msg).To(ContainSubstring("0x0000000000000000000000000000000000000001::ecrecover(0x"))

		// And a log that was not anchored yet is not verified: the message
		// says what to do.
		w.MustRecordOutcome(ctx, p, res)
		rep, err := w.Verify(context.Background())
		Expect(err).NotTo(HaveOccurred())
		msg = failureOf(func() { Expect(rep).To(afrspec.BeVerified()) })
		Expect(msg).To(Or(ContainSubstring("hint (unsealed)"), ContainSubstring("hint (unanchored)")))
		Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
	})

	It("decodes reverts of every PDR failure class the pdr package names", func() {
		for _, name := range []string{pdr.ErrInvalidNonce.Name, pdr.ErrUnauthorizedPolicySigner.Name, pdr.ErrTooFewApprovals.Name} {
			Expect(strings.HasPrefix(world.DescribeRevert(revertData(name, zeroArgs(name)...)), name+"(")).To(BeTrue(), name)
		}
		Expect(world.DescribeRevert(nil)).To(Equal("no revert data"))
		_ = format.KindChainTx
	})
})

func zeroArgs(name string) []any {
	e := bindings.NewPaceSmartAccount().GetABI().Errors[name]
	out := make([]any, len(e.Inputs))
	for i, in := range e.Inputs {
		switch in.Type.String() {
		case "address":
			out[i] = common.Address{}
		default:
			if in.Type.Size > 64 || in.Type.String() == "uint256" {
				out[i] = new(big.Int)
			} else {
				out[i] = uint64(0)
			}
		}
	}
	return out
}
