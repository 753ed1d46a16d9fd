package gas_test

import (
	"context"
	"fmt"
	"math/big"
	"path/filepath"
	"sort"
	"time"

	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

// Whole-transaction gas (intrinsic and calldata included) of anchoring and
// of every PACE entry point, measured from real receipts in a deterministic
// World (keys, session, clocks, block times and so roots, PDR expiries and
// signatures repeat), compared with fixtures/gas/baseline.json. Update it on
// purpose with `make gas-baseline`.
var _ = Describe("Gas of anchoring and PACE execution", Label("anvil"), func() {
	It("matches the committed baseline exactly (make gas-baseline to move it on purpose)", func(ctx SpecContext) {
		w := afrspec.StartWorld(config)
		measured := measure(ctx, w)
		names := make([]string, 0, len(measured))
		for k := range measured {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			GinkgoWriter.Printf("%-32s %d\n", k, measured[k])
		}
		AddReportEntry("gas", measured)
		if w.Backend() == backend.KindFork {
			Skip("the baseline holds for the local backends (chain id 1337); a fork has its own chain id, so signatures and calldata gas differ")
		}
		// Relative to this package's directory, where go test and ginkgo run it.
		Expect(measured).To(afrspec.MatchGasBaseline(filepath.Join("..", "..", "fixtures", "gas", "baseline.json")))
	})

	// The gas gate is only as good as its repeatability: a measurement that
	// moves by a calldata byte from run to run fails the gate at random.
	It("repeats exactly: fresh Worlds on anvil, the embedded and the in-process chain, and a reverted embedded World, measure the same gas", Label("determinism"), func(ctx SpecContext) {
		const runs = 10
		var first map[string]uint64
		for _, b := range []backend.Kind{backend.KindAnvil, backend.KindEmbedded, backend.KindInProcess} {
			for run := range runs {
				w, err := world.New(ctx, withBackend(b))
				Expect(err).NotTo(HaveOccurred())
				got := measure(ctx, &afrspec.World{World: w})
				Expect(w.Close()).To(Succeed())
				if first == nil {
					first = got
					continue
				}
				Expect(got).To(Equal(first), "run %d on %s differs from the first run on %s", run+1, b, backend.KindAnvil)
			}
		}
		// A World reverted to a snapshot measures the same every time (its
		// recorder reopens with a nonce of its own, so roots — and so a few
		// calldata bytes — differ from the fresh World's). On the embedded
		// chain only: anvil's suggested priority fee comes from a
		// fee-history cache evm_revert does not roll back, which changes
		// transaction hashes, hence outcome events and later event ids.
		w := afrspec.StartWorld(withBackend(backend.KindEmbedded))
		s, err := w.Snapshot(ctx)
		Expect(err).NotTo(HaveOccurred())
		var reverted map[string]uint64
		for i := range 3 {
			Expect(w.Revert(ctx, s)).To(Succeed())
			got := measure(ctx, w)
			if reverted == nil {
				reverted = got
				Expect(got).To(HaveLen(len(first)))
				continue
			}
			Expect(got).To(Equal(reverted), "revert %d measured differently from revert 1", i+1)
		}
	}, NodeTimeout(5*time.Minute))
})

// The in-process chain executes what the embedded chain's node executes:
// the same World, transaction for transaction, gives the same transaction
// hashes (so the same nonces, gas estimates and fees), and receipts with the
// same status, gas and logs, in blocks of the same numbers and times.
var _ = Describe("The in-process chain", Label("determinism"), func() {
	It("gives the embedded chain's transactions and receipts", func(ctx SpecContext) {
		var want []minedTx
		for _, b := range []backend.Kind{backend.KindEmbedded, backend.KindInProcess} {
			w, err := world.New(ctx, withBackend(b))
			Expect(err).NotTo(HaveOccurred())
			measure(ctx, &afrspec.World{World: w})
			got := mined(ctx, w)
			Expect(w.Close()).To(Succeed())
			if want == nil {
				want = got
				Expect(len(want)).To(BeNumerically(">", 20))
				continue
			}
			Expect(got).To(HaveLen(len(want)))
			for i := range want {
				Expect(got[i]).To(Equal(want[i]), "transaction %d on %s", i, b)
			}
		}
	}, NodeTimeout(2*time.Minute))
})

// minedTx is what a transaction did, as its receipt and block say.
type minedTx struct {
	Hash              common.Hash
	Status, GasUsed   uint64
	Block, Time       uint64
	Logs              []minedLog
	ContractAddress   common.Address
	EffectiveGasPrice string
}

type minedLog struct {
	Address common.Address
	Topics  []common.Hash
	Data    string // hex: a node's empty data decodes as [], the chain's own as nil
}

// mined lists every transaction of w's chain, in order.
func mined(ctx context.Context, w *world.World) []minedTx {
	GinkgoHelper()
	c := w.Client()
	head, err := c.BlockNumber(ctx)
	Expect(err).NotTo(HaveOccurred())
	var out []minedTx
	for n := range head + 1 {
		blk, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		Expect(err).NotTo(HaveOccurred())
		for _, tx := range blk.Transactions() {
			rc, err := c.TransactionReceipt(ctx, tx.Hash())
			Expect(err).NotTo(HaveOccurred())
			m := minedTx{Hash: tx.Hash(), Status: rc.Status, GasUsed: rc.GasUsed, Block: n, Time: blk.Time(),
				ContractAddress: rc.ContractAddress, EffectiveGasPrice: rc.EffectiveGasPrice.String()}
			for _, l := range rc.Logs {
				m.Logs = append(m.Logs, minedLog{l.Address, l.Topics, common.Bytes2Hex(l.Data)})
			}
			out = append(out, m)
		}
	}
	return out
}

var config = world.Config{EpochSize: 8, Approvers: 3, Threshold: 1}

func withBackend(b backend.Kind) world.Config {
	c := config
	c.Backend = b
	return c
}

// measure records and anchors five epochs, then executes once through every
// PACE entry point, and returns the gas of each transaction by name.
func measure(ctx context.Context, w *afrspec.World) map[string]uint64 {
	GinkgoHelper()
	measured := map[string]uint64{}
	record := func(name string, res *world.TxResult) {
		GinkgoHelper()
		Expect(res.Succeeded()).To(BeTrue(), "%s: %s (mined: %v; error: %v)", name, res, res.Receipt != nil, res.Err)
		measured[name] = res.Receipt.GasUsed
	}
	clock, err := w.Clock(ctx)
	Expect(err).NotTo(HaveOccurred())
	expiry := clock + world.PDRLifetime
	signed := func(call pdr.Call, approval bool, approvers int) pdr.SignedPDR {
		GinkgoHelper()
		n, err := w.NextNonce(ctx)
		Expect(err).NotTo(HaveOccurred())
		s, err := pdr.SignPDR(w.PolicySigner().Key, pdr.ForCall(w.Domain(), call, pdr.Terms{Nonce: n, Decision: format.DecisionAllow,
			ApprovalRequired: approval, Expiry: expiry, EventID: common.HexToHash(fmt.Sprintf("0x%064x", n+1))}))
		Expect(err).NotTo(HaveOccurred())
		for _, a := range w.Approvers()[:approvers] {
			Expect(s.Approve(a.Key)).To(Succeed())
		}
		return s
	}

	// Anchoring: the first epoch (zero → nonzero slot) and the steady state.
	for _, ev := range workload.Generate(42, 40) { // five epochs of 8
		w.MustRecord(ctx, ev)
	}
	anchored, err := w.SealAndAnchor(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(anchored).To(HaveLen(5))
	for _, a := range anchored {
		measured[fmt.Sprintf("anchor/epoch-%d", a.Epoch)] = a.GasUsed
		if a.Epoch > 0 {
			Expect(a.GasUsed).To(afrspec.UseGasAtMost(31_000), "steady-state anchor target (docs/DESIGN.md §4.6)")
		}
	}
	Expect(w.Verify(ctx)).To(afrspec.BeVerified())

	// Every PACE entry point.
	ping := w.PingCall()
	for i, name := range []string{"pace/execute-first", "pace/execute"} {
		s := signed(ping, false, 0)
		res := w.Submit(ctx, w.Agent(), &s, ping)
		record(name, res)
		if i == 1 {
			Expect(res).To(afrspec.UseGasAtMost(40_000), "policy-only target (docs/DESIGN.md §4.7)")
		}
	}
	s := signed(ping, true, 1)
	record("pace/executeWithApprovals-1", w.Submit(ctx, w.Agent(), &s, ping))

	s = signed(ping, false, 0)
	data, err := pdr.CompactCalldata(&s, ping)
	Expect(err).NotTo(HaveOccurred())
	record("pace/compact", w.Send(ctx, w.Agent(), w.Account(), nil, data))
	s = signed(ping, true, 1)
	data, err = pdr.CompactCalldata(&s, ping)
	Expect(err).NotTo(HaveOccurred())
	res := w.Send(ctx, w.Agent(), w.Account(), nil, data)
	record("pace/compact-approvals-1", res)
	Expect(res).To(afrspec.UseGasAtMost(45_000), "policy + one approver target (docs/DESIGN.md §4.7), compact encoding")

	n, err := w.NextNonce(ctx)
	Expect(err).NotTo(HaveOccurred())
	calls := []pdr.Call{ping, ping}
	b, err := pdr.SignPDR(w.PolicySigner().Key, pdr.ForBatch(w.Domain(), calls, pdr.Terms{Nonce: n, Decision: format.DecisionAllow, Expiry: expiry}))
	Expect(err).NotTo(HaveOccurred())
	batch := bindings.NewPaceSmartAccount().PackExecuteBatch([]bindings.IPaceSmartAccountCall{ping.Binding(), ping.Binding()},
		b.PDR.Terms().Binding(), b.Signature.Binding(), nil)
	record("pace/executeBatch-2", w.Send(ctx, w.Agent(), w.Account(), nil, batch))

	scope := world.Scope{Targets: []common.Address{w.Sink()}, Selectors: [][4]byte{world.Selector("ping()")}}
	chain, err := w.Delegate(ctx, w.Owner(), w.Actor("delegate"), nil, scope)
	Expect(err).NotTo(HaveOccurred())
	d, err := w.SignDelegated(ctx, w.Actor("delegate"), chain, ping, common.Hash{})
	Expect(err).NotTo(HaveOccurred())
	record("pace/executeDelegated-1link", w.Submit(ctx, w.Agent(), &d, ping))

	// The agent flow end to end, expiry from the World's clock: intent,
	// decision and outcome recorded (block numbers in the outcomes), filling
	// and sealing epochs of 8 as they go.
	for i := range 3 {
		p := w.MustPropose(ctx, "agent", w.CounterCall(int64(i+1)))
		res := w.Execute(ctx, p)
		record(fmt.Sprintf("pace/propose-execute-%d", i+1), res)
		w.MustRecordOutcome(ctx, p, res)
	}
	return measured
}
