package account_test

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

// expectDenialLogged checks, from the log alone, that the outcome event rc
// records a refused attempt with the custom error name, linked to the
// intent it refused; and that the whole log still verifies against the
// anchors on chain.
func expectDenialLogged(ctx context.Context, p *world.Proposal, rc recorder.Receipt, name string) {
	GinkgoHelper()
	Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
	ev, ok := w.MustIndex().Event(rc.Seq)
	Expect(ok).To(BeTrue(), "the outcome event %d is in the log", rc.Seq)
	Expect(ev.Envelope.Kind).To(Equal(format.KindChainTx))
	Expect(ev.Payload).NotTo(BeNil(), "the outcome payload opens with the log's keys")
	Expect(ev.Payload.Execution).To(HaveField("Status", format.StatusReverted))
	Expect(ev.Payload.Execution.Error).To(HavePrefix(name+"("), "the recorded error names the revert")
	Expect(ev.Payload.Context.Parents).To(ContainElement(p.IntentEvent.Seq), "the denial is linked to the intent it refused")
}

// lazy resolves arguments that need the World, which does not exist yet
// when the spec tree (and its table entries) is built.
type lazy func() any

func resolve(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if f, ok := a.(lazy); ok {
			a = f()
		}
		out[i] = a
	}
	return out
}

func attacker() any { return w.Attacker().Address }

func eth(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

var _ = Describe("PaceSmartAccount under attack", Label("anvil"), func() {
	var ctx context.Context
	BeforeEach(func() { ctx = context.Background() })

	It("executes an allowed call and emits the PDR hash and the recorder event id", func() {
		p := w.MustPropose(ctx, "agent", w.PingCall())
		Expect(p.Evaluation.Allowed()).To(BeTrue())
		res := w.Execute(ctx, p)
		Expect(res).To(afrspec.EmitEvent("Executed", "pdrHash", p.PDR.PDR.Digest(), "eventId", p.EventID(), "target", w.Sink(), "success", true))
		Expect(res).To(afrspec.UseGasAtMost(42_000), "policy-only PACE execution of a trivial call (docs/DESIGN.md §4.7: target 40,000)")
		w.MustRecordOutcome(ctx, p, res)
		Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
	})

	When("the PDR itself is attacked", func() {
		DescribeTable("the account refuses it, the recorder logs the refusal, the log verifies",
			func(mutate func(p *world.Proposal) (pdr.SignedPDR, pdr.Call), name string, args ...any) {
				p := w.MustPropose(ctx, "agent", w.CounterCall(7))
				s, call := mutate(p)
				res := w.Submit(ctx, w.Agent(), &s, call)
				Expect(res).To(afrspec.RevertWith(name, resolve(args)...))
				rc := w.MustRecordOutcome(ctx, p, res)
				expectDenialLogged(ctx, p, rc, name)
			},
			Entry("forged: signed by the attacker, not the policy signer",
				func(p *world.Proposal) (pdr.SignedPDR, pdr.Call) {
					s, err := pdr.SignPDR(w.Attacker().Key, p.PDR.PDR)
					Expect(err).NotTo(HaveOccurred())
					return s, p.Call
				}, "UnauthorizedPolicySigner", lazy(attacker)),
			Entry("cross-chain: signed by the policy signer for another chain id",
				func(p *world.Proposal) (pdr.SignedPDR, pdr.Call) {
					other := pdr.Domain{ChainID: w.ChainID() + 1, Account: w.Account()}
					s, err := pdr.SignPDR(w.PolicySigner().Key, pdr.ForCall(other, p.Call, p.PDR.PDR.Terms()))
					Expect(err).NotTo(HaveOccurred())
					return s, p.Call
				}, "UnauthorizedPolicySigner"),
			Entry("cross-account: signed for another PaceSmartAccount",
				func(p *world.Proposal) (pdr.SignedPDR, pdr.Call) {
					other := pdr.Domain{ChainID: w.ChainID(), Account: common.HexToAddress("0x000000000000000000000000000000000000dEaD")}
					s, err := pdr.SignPDR(w.PolicySigner().Key, pdr.ForCall(other, p.Call, p.PDR.PDR.Terms()))
					Expect(err).NotTo(HaveOccurred())
					return s, p.Call
				}, "UnauthorizedPolicySigner"),
			Entry("expired: valid signature, expiry in the past",
				func(p *world.Proposal) (pdr.SignedPDR, pdr.Call) {
					t := p.PDR.PDR.Terms()
					t.Expiry = 1
					s, err := pdr.SignPDR(w.PolicySigner().Key, pdr.ForCall(w.Domain(), p.Call, t))
					Expect(err).NotTo(HaveOccurred())
					return s, p.Call
				}, "PDRExpired", 1),
			Entry("future nonce: signed for a nonce not yet reached",
				func(p *world.Proposal) (pdr.SignedPDR, pdr.Call) {
					t := p.PDR.PDR.Terms()
					t.Nonce += 5
					s, err := pdr.SignPDR(w.PolicySigner().Key, pdr.ForCall(w.Domain(), p.Call, t))
					Expect(err).NotTo(HaveOccurred())
					return s, p.Call
				}, "InvalidNonce"),
			Entry("calldata swap: the signed PDR submitted with other calldata",
				func(p *world.Proposal) (pdr.SignedPDR, pdr.Call) {
					return p.PDR, w.CounterCall(1_000_000)
				}, "UnauthorizedPolicySigner", Not(Equal(common.Address{}))),
			Entry("target swap: the signed PDR submitted for the attacker's address",
				func(p *world.Proposal) (pdr.SignedPDR, pdr.Call) {
					c := p.Call
					c.Target = w.Attacker().Address
					return p.PDR, c
				}, "UnauthorizedPolicySigner"),
			Entry("value swap: the signed PDR submitted with value attached",
				func(p *world.Proposal) (pdr.SignedPDR, pdr.Call) {
					c := p.Call
					c.Value = eth(1)
					return p.PDR, c
				}, "UnauthorizedPolicySigner"),
		)
	})

	It("refuses a replayed PDR with InvalidNonce after the first execution", func() {
		p := w.MustPropose(ctx, "agent", w.CounterCall(2))
		first := w.Execute(ctx, p)
		Expect(first).To(afrspec.EmitEvent("Executed", "eventId", p.EventID()))
		w.MustRecordOutcome(ctx, p, first)
		n := p.PDR.PDR.Nonce
		replay := w.Execute(ctx, p)
		Expect(replay).To(afrspec.RevertWith("InvalidNonce", n+1, n))
		rc := w.MustRecordOutcome(ctx, p, replay)
		expectDenialLogged(ctx, p, rc, "InvalidNonce")
	})

	It("refuses a PDR the policy denied (value over the rule's cap) with DecisionNotAllow", func() {
		c := w.CounterCall(3)
		c.Value = eth(2)
		p := w.MustPropose(ctx, "agent", c)
		Expect(p.Evaluation.Allowed()).To(BeFalse())
		res := w.Execute(ctx, p)
		Expect(res).To(afrspec.RevertWith("DecisionNotAllow", 0))
		rc := w.MustRecordOutcome(ctx, p, res)
		expectDenialLogged(ctx, p, rc, "DecisionNotAllow")
	})

	When("a PDR needs human approval (threshold 2 of 3)", func() {
		It("executes with two approvals, each recorded with its signature", func() {
			p := w.MustPropose(ctx, "agent", w.CounterCall(5_000))
			Expect(p.Evaluation.ApprovalRequired).To(BeTrue())
			Expect(p.PDR.Approvals).To(HaveLen(2))
			res := w.Execute(ctx, p)
			Expect(res).To(afrspec.EmitEvent("Executed", "eventId", p.EventID(), "success", true))
			w.MustRecordOutcome(ctx, p, res)
			Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
			// Each approval of this proposal is in the log, linked to its
			// intent, with a signature that recovers to its approver over the
			// PDR digest.
			ix := w.MustIndex()
			var mine int
			for _, ev := range ix.Find(verifier.Query{Kind: format.KindApproval}) {
				a, ctxp := ev.Payload.Approval, ev.Payload.Context
				if ctxp == nil || len(ctxp.Parents) != 1 || ctxp.Parents[0] != p.IntentEvent.Seq {
					continue
				}
				mine++
				var sig pdr.Signature // compact (r, vs), as the account takes it
				Expect(a.Signature).To(HaveLen(len(sig)), "approval signature of %s", a.Approver)
				copy(sig[:], a.Signature)
				signer, err := sig.Recover(p.PDR.PDR.Digest())
				Expect(err).NotTo(HaveOccurred())
				Expect(signer.Hex()).To(Equal(a.Approver), "the recorded signature is the approver's, over this PDR")
			}
			Expect(mine).To(Equal(2), "two approvals recorded for this proposal")
		})

		DescribeTable("approver threshold games are refused and logged",
			func(game func(p *world.Proposal) pdr.SignedPDR, name string, args ...any) {
				p := w.MustPropose(ctx, "agent", w.CounterCall(9_000))
				Expect(p.PDR.Approvals).To(HaveLen(2))
				s := game(p)
				res := w.Submit(ctx, w.Agent(), &s, p.Call)
				Expect(res).To(afrspec.RevertWith(name, resolve(args)...))
				rc := w.MustRecordOutcome(ctx, p, res)
				expectDenialLogged(ctx, p, rc, name)
			},
			Entry("one approval short", func(p *world.Proposal) pdr.SignedPDR {
				s := p.PDR
				s.Approvals = s.Approvals[:1]
				return s
			}, "TooFewApprovals", 1, 2),
			Entry("the same approver twice", func(p *world.Proposal) pdr.SignedPDR {
				s := p.PDR
				s.Approvals = []pdr.Signature{s.Approvals[0], s.Approvals[0]}
				return s
			}, "DuplicateApprover"),
			Entry("approvals out of order", func(p *world.Proposal) pdr.SignedPDR {
				s := p.PDR
				s.Approvals = []pdr.Signature{s.Approvals[1], s.Approvals[0]}
				return s
			}, "ApproversNotSorted"),
			Entry("the attacker signs as a second approver", func(p *world.Proposal) pdr.SignedPDR {
				s := p.PDR
				s.Approvals = s.Approvals[:1]
				Expect(s.Approve(w.Attacker().Key)).To(Succeed())
				return s
			}, "NotApprover", lazy(attacker)),
			Entry("the approval flag stripped from the terms", func(p *world.Proposal) pdr.SignedPDR {
				s := p.PDR
				s.PDR.ApprovalRequired = false
				s.Approvals = nil
				return s
			}, "UnauthorizedPolicySigner"),
		)
	})

	When("authority is delegated (owner → planner → executor)", func() {
		var planner, executor *world.Actor
		var scope world.Scope
		BeforeEach(func() {
			planner, executor = w.Actor("planner"), w.Actor("executor")
			scope = world.Scope{Targets: []common.Address{w.Counter()}, Selectors: [][4]byte{world.Selector("bump(uint256)")}}
		})

		delegated := func(chain []pdr.SignedDelegation, call pdr.Call) (*world.Proposal, *world.TxResult) {
			p := w.MustPropose(ctx, "executor", call)
			s, err := w.SignDelegated(ctx, executor, chain, call, p.EventID())
			Expect(err).NotTo(HaveOccurred())
			return p, w.Submit(ctx, w.Agent(), &s, call)
		}

		It("executes a call within every link's scope and puts the chain on chain", func() {
			chain, err := w.Delegate(ctx, w.Owner(), planner, nil, scope)
			Expect(err).NotTo(HaveOccurred())
			chain, err = w.Delegate(ctx, planner, executor, chain, scope)
			Expect(err).NotTo(HaveOccurred())
			p, res := delegated(chain, w.CounterCall(4))
			Expect(res).To(afrspec.EmitEvent("DelegationUsed", "delegate", executor.Address))
			Expect(res).To(afrspec.EmitEvent("Executed", "eventId", p.EventID(), "success", true))
			w.MustRecordOutcome(ctx, p, res)
			Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
		})

		It("refuses a policy PDR replayed under a delegation to the policy signer's own key (issue 25)", func() {
			chain, err := w.Delegate(ctx, w.Owner(), w.PolicySigner(), nil, scope)
			Expect(err).NotTo(HaveOccurred())
			// Recorded executions bring both nonce spaces to one value, so that the replayed
			// PDR's nonce is the delegated space's next one.
			for {
				policy, err := w.NextNonce(ctx)
				Expect(err).NotTo(HaveOccurred())
				delegated, err := w.NextDelegatedNonce(ctx)
				Expect(err).NotTo(HaveOccurred())
				if policy == delegated {
					break
				}
				call := w.CounterCall(1)
				p := w.MustPropose(ctx, "agent", call)
				var res *world.TxResult
				if policy < delegated {
					res = w.Execute(ctx, p)
				} else {
					s, err := w.SignDelegated(ctx, w.PolicySigner(), chain, call, p.EventID())
					Expect(err).NotTo(HaveOccurred())
					res = w.Submit(ctx, w.Agent(), &s, call)
				}
				Expect(res).To(afrspec.EmitEvent("Executed", "eventId", p.EventID(), "success", true))
				w.MustRecordOutcome(ctx, p, res)
			}
			p := w.MustPropose(ctx, "agent", w.CounterCall(3))
			executed := w.Execute(ctx, p)
			Expect(executed).To(afrspec.EmitEvent("Executed", "pdrHash", p.PDR.Digest(), "success", true))
			w.MustRecordOutcome(ctx, p, executed)
			replay := p.PDR
			replay.Delegations = chain
			recovered, err := replay.Signature.Recover(replay.Digest())
			Expect(err).NotTo(HaveOccurred())
			res := w.Submit(ctx, w.Attacker(), &replay, p.Call)
			Expect(res).To(afrspec.RevertWith("UnauthorizedDelegate", w.PolicySigner().Address, recovered))
			rc := w.MustRecordOutcome(ctx, p, res)
			expectDenialLogged(ctx, p, rc, "UnauthorizedDelegate")
		})

		DescribeTable("scope escalation by a sub-delegation is refused at the narrowest link",
			func(wider func() world.Scope, call func() pdr.Call, name string) {
				chain, err := w.Delegate(ctx, w.Owner(), planner, nil, scope)
				Expect(err).NotTo(HaveOccurred())
				chain, err = w.Delegate(ctx, planner, executor, chain, wider())
				Expect(err).NotTo(HaveOccurred())
				p, res := delegated(chain, call())
				link0 := chain[0].Delegation.Digest(w.Domain())
				Expect(res).To(afrspec.RevertWith(name, link0))
				rc := w.MustRecordOutcome(ctx, p, res)
				expectDenialLogged(ctx, p, rc, name)
			},
			Entry("another target", func() world.Scope {
				return world.Scope{Targets: []common.Address{w.Counter(), w.Sink()}, Selectors: [][4]byte{world.Selector("bump(uint256)"), world.Selector("ping()")}}
			},
				func() pdr.Call { return w.PingCall() }, "TargetNotDelegated"),
			Entry("another selector", func() world.Scope {
				return world.Scope{Targets: []common.Address{w.Counter()}, Selectors: [][4]byte{world.Selector("bump(uint256)"), world.Selector("fail(uint256)")}}
			},
				func() pdr.Call {
					c := w.CounterCall(1)
					sel := world.Selector("fail(uint256)")
					copy(c.Data, sel[:])
					return c
				}, "SelectorNotDelegated"),
			Entry("value above the parent's cap", func() world.Scope {
				return world.Scope{Targets: []common.Address{w.Counter()}, Selectors: [][4]byte{world.Selector("bump(uint256)")}, MaxValuePerCall: eth(1), MaxValueTotal: eth(1)}
			},
				func() pdr.Call {
					c := w.CounterCall(1)
					c.Value = big.NewInt(1)
					return c
				}, "ValueOverCallCap"),
		)

		It("refuses an expired delegation", func() {
			now, err := w.Now(ctx)
			Expect(err).NotTo(HaveOccurred())
			expired := scope
			expired.Expiry = now - 1
			chain, err := w.Delegate(ctx, w.Owner(), executor, nil, expired)
			Expect(err).NotTo(HaveOccurred())
			p, res := delegated(chain, w.CounterCall(1))
			Expect(res).To(afrspec.RevertWith("DelegationExpired", chain[0].Delegation.Digest(w.Domain()), now-1))
			rc := w.MustRecordOutcome(ctx, p, res)
			expectDenialLogged(ctx, p, rc, "DelegationExpired")
		})

		It("refuses a call that would exceed the delegation's total value cap", func() {
			capped := scope
			capped.MaxValuePerCall, capped.MaxValueTotal = eth(1), big.NewInt(1)
			chain, err := w.Delegate(ctx, w.Owner(), executor, nil, capped)
			Expect(err).NotTo(HaveOccurred())
			c := w.CounterCall(1)
			c.Value = big.NewInt(2)
			p, res := delegated(chain, c)
			Expect(res).To(afrspec.RevertWith("ValueOverTotalCap", chain[0].Delegation.Digest(w.Domain()), 2, 1))
			rc := w.MustRecordOutcome(ctx, p, res)
			expectDenialLogged(ctx, p, rc, "ValueOverTotalCap")
		})

		It("refuses a root delegation not signed by the owner", func() {
			chain, err := w.Delegate(ctx, w.Attacker(), executor, nil, scope)
			Expect(err).NotTo(HaveOccurred())
			p, res := delegated(chain, w.CounterCall(1))
			Expect(res).To(afrspec.RevertWith("DelegatorMismatch", 0, w.Owner().Address, w.Attacker().Address))
			rc := w.MustRecordOutcome(ctx, p, res)
			expectDenialLogged(ctx, p, rc, "DelegatorMismatch")
		})

		It("refuses a revoked delegation, and everything below it", func() {
			chain, err := w.Delegate(ctx, w.Owner(), planner, nil, scope)
			Expect(err).NotTo(HaveOccurred())
			chain, err = w.Delegate(ctx, planner, executor, chain, scope)
			Expect(err).NotTo(HaveOccurred())
			rev := w.Revoke(ctx, chain[0])
			Expect(rev).To(afrspec.EmitEvent("DelegationRevoked", "delegationHash", chain[0].Delegation.Digest(w.Domain())))
			p, res := delegated(chain, w.CounterCall(1))
			Expect(res).To(afrspec.RevertWith("RevokedDelegation", chain[0].Delegation.Digest(w.Domain())))
			rc := w.MustRecordOutcome(ctx, p, res)
			expectDenialLogged(ctx, p, rc, "RevokedDelegation")
		})
	})

	It("blocks re-entry through a malicious target with a second valid PDR", func() {
		evil, err := world.TargetArtifact("Reenterer")
		Expect(err).NotTo(HaveOccurred())
		evilAddr, err := w.DeployArtifact(ctx, w.Deployer(), evil)
		Expect(err).NotTo(HaveOccurred())

		// The inner PDR: valid, for the next nonce, recorded like any other.
		n, err := w.NextNonce(ctx)
		Expect(err).NotTo(HaveOccurred())
		inner := w.MustPropose(ctx, "agent", w.CounterCall(100))
		innerTerms := inner.PDR.PDR.Terms()
		innerTerms.Nonce = n + 1
		innerPDR, err := pdr.SignPDR(w.PolicySigner().Key, pdr.ForCall(w.Domain(), inner.Call, innerTerms))
		Expect(err).NotTo(HaveOccurred())
		arm := w.Send(ctx, w.Attacker(), evilAddr, nil, evil.Pack("arm", w.Account(), w.Counter(), inner.Call.Data,
			innerTerms.Binding(), innerPDR.Signature.Binding()))
		Expect(arm.Succeeded()).To(BeTrue(), "arming: %s", arm)

		// The outer PDR: the policy signer (misconfigured for this spec)
		// allows calling the evil target.
		outerCall := pdr.Call{Target: evilAddr, Value: new(big.Int), Data: evil.Pack("attack")}
		outer := w.MustPropose(ctx, "agent", outerCall)
		outerPDR, err := pdr.SignPDR(w.PolicySigner().Key, pdr.ForCall(w.Domain(), outerCall, pdr.Terms{Nonce: n, Decision: format.DecisionAllow,
			Expiry: outer.PDR.PDR.Expiry, EventID: outer.EventID()}))
		Expect(err).NotTo(HaveOccurred())
		before := counterCount(ctx)
		res := w.Submit(ctx, w.Agent(), &outerPDR, outerCall)
		Expect(res).To(afrspec.EmitEvent("Executed", "eventId", outer.EventID(), "target", evilAddr, "success", true))
		w.MustRecordOutcome(ctx, outer, res)

		// The re-entry was refused by the guard; nothing else moved.
		Expect(call(ctx, evilAddr, evil, "reentered")).To(Equal([]any{false}))
		reason := call(ctx, evilAddr, evil, "reentryRevert")[0].([]byte)
		Expect(reason).To(afrspec.RevertWith("ReentrancyGuardReentrantCall"))
		Expect(counterCount(ctx)).To(Equal(before), "the inner call had no effect")
		Expect(w.NextNonce(ctx)).To(Equal(n+1), "only the outer nonce was consumed")

		innerRes := &world.TxResult{To: w.Account(), Reverted: true, RevertData: reason}
		rc := w.MustRecordOutcome(ctx, inner, innerRes)
		expectDenialLogged(ctx, inner, rc, "ReentrancyGuardReentrantCall")
	})
})

func call(ctx context.Context, to common.Address, a *world.Artifact, method string) []any {
	GinkgoHelper()
	out, err := w.Client().CallContract(ctx, ethereum.CallMsg{To: &to, Data: a.Pack(method)}, nil)
	Expect(err).NotTo(HaveOccurred())
	vals, err := a.ABI.Unpack(method, out)
	Expect(err).NotTo(HaveOccurred())
	return vals
}

func counterCount(ctx context.Context) *big.Int {
	GinkgoHelper()
	counter, err := world.TargetArtifact("Counter")
	Expect(err).NotTo(HaveOccurred())
	return call(ctx, w.Counter(), counter, "count")[0].(*big.Int)
}
