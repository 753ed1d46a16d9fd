package gas_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/specs/afrspec"
)

// expiry is fixed (not "now + 1h") so that calldata, and so gas, is the
// same on every run and backend.
const expiry = 4_000_000_000

// Whole-transaction gas (intrinsic and calldata included) of anchoring and
// of every PACE entry point, measured from real receipts in a deterministic
// World (keys, session, clock and so roots and PDRs repeat), compared with
// fixtures/gas/baseline.json. Update it on purpose with `make gas-baseline`.
var _ = Describe("Gas of anchoring and PACE execution", Ordered, Label("anvil"), func() {
	var (
		w        *afrspec.World
		measured = map[string]uint64{}
	)

	BeforeAll(func() {
		w = afrspec.StartWorld(afrspec.Config{EpochSize: 8, Approvers: 3, Threshold: 1})
	})

	record := func(name string, res *afrspec.TxResult) {
		GinkgoHelper()
		Expect(res.Succeeded()).To(BeTrue(), "%s: %s", name, res)
		measured[name] = res.Receipt.GasUsed
	}
	signed := func(ctx context.Context, call pdr.Call, approval bool, approvers int) pdr.SignedPDR {
		GinkgoHelper()
		n, err := w.NextNonce(ctx)
		Expect(err).NotTo(HaveOccurred())
		s, err := pdr.SignPDR(w.PolicySigner.Key, pdr.ForCall(w.Domain, call, pdr.Terms{Nonce: n, Decision: pdr.Allow,
			ApprovalRequired: approval, Expiry: expiry, EventID: common.HexToHash(fmt.Sprintf("0x%064x", n+1))}))
		Expect(err).NotTo(HaveOccurred())
		for _, a := range w.Approvers[:approvers] {
			Expect(s.Approve(a.Key)).To(Succeed())
		}
		return s
	}

	It("anchors epochs: the first (zero → nonzero slot) and the steady state", func(ctx SpecContext) {
		for _, ev := range workload.Generate(42, 40) { // five epochs of 8
			w.MustRecord(ctx, ev)
		}
		anchored, err := w.SealAndAnchor(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(anchored).To(HaveLen(5))
		for _, a := range anchored {
			measured[fmt.Sprintf("anchor/epoch-%d", a.Epoch)] = a.GasUsed
			if a.Epoch > 0 {
				Expect(a.GasUsed).To(afrspec.UseGasAtMost(31_000), "steady-state anchor target (DESIGN.md §4.6)")
			}
		}
		Expect(w.Verify(ctx)).To(afrspec.BeVerified())
	})

	It("executes through every PACE entry point", func(ctx SpecContext) {
		ping := w.PingCall()
		for i, name := range []string{"pace/execute-first", "pace/execute"} {
			s := signed(ctx, ping, false, 0)
			res := w.Submit(ctx, w.Agent, &s, ping)
			record(name, res)
			if i == 1 {
				Expect(res).To(afrspec.UseGasAtMost(40_000), "policy-only target (DESIGN.md §4.7)")
			}
		}
		s := signed(ctx, ping, true, 1)
		record("pace/executeWithApprovals-1", w.Submit(ctx, w.Agent, &s, ping))

		s = signed(ctx, ping, false, 0)
		data, err := pdr.CompactCalldata(&s, ping)
		Expect(err).NotTo(HaveOccurred())
		record("pace/compact", w.Send(ctx, w.Agent, w.Account, nil, data))
		s = signed(ctx, ping, true, 1)
		data, err = pdr.CompactCalldata(&s, ping)
		Expect(err).NotTo(HaveOccurred())
		res := w.Send(ctx, w.Agent, w.Account, nil, data)
		record("pace/compact-approvals-1", res)
		Expect(res).To(afrspec.UseGasAtMost(45_000), "policy + one approver target (DESIGN.md §4.7), compact encoding")

		n, err := w.NextNonce(ctx)
		Expect(err).NotTo(HaveOccurred())
		calls := []pdr.Call{ping, ping}
		b, err := pdr.SignPDR(w.PolicySigner.Key, pdr.ForBatch(w.Domain, calls, pdr.Terms{Nonce: n, Decision: pdr.Allow, Expiry: expiry}))
		Expect(err).NotTo(HaveOccurred())
		batch := bindings.NewPaceSmartAccount().PackExecuteBatch([]bindings.IPaceSmartAccountCall{ping.Binding(), ping.Binding()},
			b.PDR.Terms().Binding(), b.Signature.Binding(), nil)
		record("pace/executeBatch-2", w.Send(ctx, w.Agent, w.Account, nil, batch))

		scope := afrspec.Scope{Targets: []common.Address{w.Sink}, Selectors: [][4]byte{afrspec.Selector("ping()")}, Expiry: expiry}
		chain, err := w.Delegate(ctx, w.Owner, w.Actor("delegate"), nil, scope)
		Expect(err).NotTo(HaveOccurred())
		n, err = w.NextDelegatedNonce(ctx) // a delegate signs in the delegated nonce space
		Expect(err).NotTo(HaveOccurred())
		d, err := pdr.SignPDR(w.Actor("delegate").Key, pdr.ForCall(w.Domain, ping, pdr.Terms{Nonce: n, Decision: pdr.Allow, Expiry: expiry}))
		Expect(err).NotTo(HaveOccurred())
		d.Delegations = chain
		record("pace/executeDelegated-1link", w.Submit(ctx, w.Agent, &d, ping))
	})

	It("matches the committed baseline exactly (make gas-baseline to move it on purpose)", func() {
		if w.Backend == afrspec.Fork {
			Skip("the baseline holds for the local backends (chain id 1337); a fork has its own chain id, so signatures and calldata gas differ")
		}
		root, err := afrspec.ModuleRoot()
		Expect(err).NotTo(HaveOccurred())
		names := make([]string, 0, len(measured))
		for k := range measured {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			GinkgoWriter.Printf("%-32s %d\n", k, measured[k])
		}
		AddReportEntry("gas", measured)
		Expect(measured).To(afrspec.MatchGasBaseline(filepath.Join(root, "fixtures", "gas", "baseline.json")))
	})
})
