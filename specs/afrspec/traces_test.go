package afrspec_test

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

// Traces on failure, reverts named after the contract that raised them,
// mined reverts, actor names and numeric matchers, on a lending pool whose
// error is declared in a base contract that another pool shares.
var _ = Describe("Traces and decoding by the contract that reverted", Ordered, func() {
	var (
		w                        *afrspec.World
		coin, fixed, borrower    common.Address
		coinA, fixedA, borrowerA *world.Artifact
	)
	BeforeAll(func(ctx SpecContext) {
		w = afrspec.StartWorld(world.Config{})
		coinA, fixedA, borrowerA = userArtifact("Coin"), userArtifact("FixedLendingPool"), userArtifact("Borrower")
		var err error
		coin, err = w.DeployArtifact(ctx, w.Deployer(), coinA, w.Owner().Address, big.NewInt(1_000))
		Expect(err).NotTo(HaveOccurred())
		// LendingPool is registered first: its TransferFailed is the one a
		// lookup by selector alone finds.
		_, err = w.DeployArtifact(ctx, w.Deployer(), userArtifact("LendingPool"))
		Expect(err).NotTo(HaveOccurred())
		fixed, err = w.DeployArtifact(ctx, w.Deployer(), fixedA, big.NewInt(10))
		Expect(err).NotTo(HaveOccurred())
		borrower, err = w.DeployArtifact(ctx, w.Deployer(), borrowerA)
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Send(ctx, w.Owner(), coin, nil, coinA.Pack("transfer", fixed, big.NewInt(500))).Succeeded()).To(BeTrue())
	})
	BeforeEach(func() { w.Isolate() })

	run := func(amount int64) []byte { return borrowerA.Pack("run", fixed, coin, big.NewInt(amount)) }

	It("names a revert after the contract that raised it, not another declaring the same error", func(ctx SpecContext) {
		res := w.Send(ctx, w.Attacker(), borrower, nil, run(100))
		Expect(res).To(afrspec.RevertWith("TransferFailed", coin, 100))
		Expect(res.DecodeRevert().Contract).To(Equal("FixedLendingPool"))
		Expect(res.String()).To(ContainSubstring("reverted with FixedLendingPool.TransferFailed(token=Coin (" + coin.Hex() + "), amount=100)"))
	})

	It("prints the decoded call tree of a refused call when a matcher fails", func(ctx SpecContext) {
		res := w.Send(ctx, w.Attacker(), borrower, nil, run(100))
		msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("InsufficientBalance")) })
		Expect(msg).To(HavePrefix("Expected a revert with InsufficientBalance(), but it reverted with FixedLendingPool.TransferFailed(token=Coin (" + coin.Hex() + "), amount=100)\nTrace:\n"))
		for _, line := range []string{
			"] Borrower (" + borrower.Hex() + ")::run(pool=FixedLendingPool (" + fixed.Hex() + "), coin=Coin (" + coin.Hex() + "), amount=100)",
			"  ├─ [",
			"] FixedLendingPool (" + fixed.Hex() + ")::borrow(coin=Coin (" + coin.Hex() + "), amount=100)",
			"  │  └─ ← [Revert] FixedLendingPool.TransferFailed(token=Coin (" + coin.Hex() + "), amount=100)",
			"  └─ ← [Revert] FixedLendingPool.TransferFailed(token=Coin (" + coin.Hex() + "), amount=100)",
		} {
			Expect(msg).To(ContainSubstring(line))
		}
		Expect(msg).To(HaveSuffix("\n  └─ ← [Revert] FixedLendingPool.TransferFailed(token=Coin (" + coin.Hex() + "), amount=100)"))
	})

	It("prints events, return values and nested calls of a mined transaction", func(ctx SpecContext) {
		res := w.Send(ctx, w.Attacker(), borrower, nil, run(5))
		Expect(res.Succeeded()).To(BeTrue())
		msg := failureOf(func() { Expect(res).To(afrspec.EmitEvent("Transfer", "value", 999)) })
		for _, line := range []string{
			"Trace:\n  [",
			"├─ emit Borrowed(who=Borrower (" + borrower.Hex() + "), amount=5)",
			"] Coin (" + coin.Hex() + ")::transfer(to=Borrower (" + borrower.Hex() + "), value=5)",
			"├─ emit Transfer(from=FixedLendingPool (" + fixed.Hex() + "), to=Borrower (" + borrower.Hex() + "), value=5)",
			"└─ ← [Return] true",
			"└─ ← [Return] 5",
		} {
			Expect(msg).To(ContainSubstring(line))
		}
	})

	It("mines a reverting transaction on request, so its receipt and gas can be asserted", func(ctx SpecContext) {
		res := w.Send(ctx, w.Attacker(), borrower, nil, run(100), world.MineReverting(200_000))
		Expect(res.Receipt).NotTo(BeNil())
		Expect(res.Receipt.Status).To(Equal(types.ReceiptStatusFailed))
		Expect(res.Receipt.GasUsed).To(BeNumerically(">", 21_000))
		Expect(res).To(afrspec.UseGasAtMost(200_000))
		Expect(res).To(afrspec.RevertWith("TransferFailed", coin, 100))
		Expect(res.DecodeRevert().Contract).To(Equal("FixedLendingPool"))
		t, err := res.Trace(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.RevertedBy).To(Equal(fixed))
		Expect(t.String()).To(ContainSubstring("FixedLendingPool (" + fixed.Hex() + ")::borrow("))
	})

	It("names actors in mismatch messages", func(ctx SpecContext) {
		res := w.Send(ctx, w.Attacker(), borrower, nil, run(5))
		msg := failureOf(func() {
			Expect(res).To(afrspec.EmitEvent("Transfer", afrspec.Args{fixed, w.Attacker().Address}))
		})
		Expect(msg).To(ContainSubstring("closest Transfer: argument 1 (to) is Borrower (" + borrower.Hex() + "), expected attacker (" + w.Attacker().Address.Hex() + ")"))
	})

	It("compares decoded integers by value, with Equal(*big.Int) and BeNumerically", func(ctx SpecContext) {
		res := w.Send(ctx, w.Attacker(), coin, nil, coinA.Pack("transfer", w.Owner().Address, big.NewInt(0)))
		Expect(res).To(afrspec.EmitEvent("Transfer", "value", Equal(big.NewInt(0))))
		Expect(res).To(afrspec.EmitEvent("Transfer", "value", afrspec.BeNumerically("==", 0)))
		Expect(res).NotTo(afrspec.EmitEvent("Transfer", "value", Not(Equal(big.NewInt(0)))))
		seven := w.Send(ctx, w.Owner(), coin, nil, coinA.Pack("transfer", w.Attacker().Address, big.NewInt(7)))
		Expect(seven).To(afrspec.EmitEvent("Transfer", "value", afrspec.BeNumerically(">", 6)))
		Expect(afrspec.BeNumerically("<", new(big.Int).Lsh(common.Big1, 200)).Match(new(big.Int).Lsh(common.Big1, 199))).To(BeTrue())
	})

	It("binds contracts that already exist to the artifact of the code at them, in one call", func(ctx SpecContext) {
		// A second pool deployed without DeployArtifact, with another cap
		// (its immutable): the World does not know its address.
		rc, err := chain.Transact(ctx, w.Client(), w.Deployer().Key, nil, nil, append(append([]byte{}, fixedA.Bin...), common.LeftPadBytes(big.NewInt(777).Bytes(), 32)...))
		Expect(err).NotTo(HaveOccurred())
		other := rc.ContractAddress
		_, bound := w.Registry().BoundTo(other)
		Expect(bound).To(BeFalse())

		// A forge out/ directory holding the pool, its deployed bytecode and
		// the immutable's position, as forge writes it.
		out := GinkgoT().TempDir()
		writeForgeArtifact(out, fixedA, ctx, w, fixed, big.NewInt(10))
		got, err := w.LoadArtifacts(ctx, out, other)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(map[common.Address]string{other: "FixedLendingPool"}))

		res := w.Send(ctx, w.Attacker(), other, nil, fixedA.Pack("borrow", coin, big.NewInt(1_000)))
		Expect(res.String()).To(ContainSubstring("call to FixedLendingPool (" + other.Hex() + ") reverted with FixedLendingPool.TransferFailed("))

		guard, err := chain.Transact(ctx, w.Client(), w.Deployer().Key, nil, nil, userArtifact("Guard").Bin)
		Expect(err).NotTo(HaveOccurred())
		_, err = w.LoadArtifacts(ctx, out, guard.ContractAddress)
		var unmatched *world.UnmatchedCodeError
		Expect(err).To(BeAssignableToTypeOf(unmatched))
	})
})

// writeForgeArtifact writes a forge artifact of a to dir/<Name>.sol/<Name>.json
// with the deployed bytecode of the instance at addr, whose one uint256
// immutable is imm: the immutable's bytes are zeroed and listed under
// immutableReferences, as solc leaves them.
func writeForgeArtifact(dir string, a *world.Artifact, ctx SpecContext, w *afrspec.World, addr common.Address, imm *big.Int) {
	GinkgoHelper()
	code, err := w.Client().CodeAt(ctx, addr, nil)
	Expect(err).NotTo(HaveOccurred())
	word := common.LeftPadBytes(imm.Bytes(), 32)
	type ref struct {
		Start  int `json:"start"`
		Length int `json:"length"`
	}
	var refs []ref
	runtime := append([]byte{}, code...)
	for i := 0; i+32 <= len(runtime); i++ {
		// PUSH32 imm: the form solc gives an immutable read.
		if runtime[i] == 0x7f && i+33 <= len(runtime) && string(runtime[i+1:i+33]) == string(word) {
			refs = append(refs, ref{Start: i + 1, Length: 32})
			copy(runtime[i+1:i+33], make([]byte, 32))
		}
	}
	Expect(refs).NotTo(BeEmpty(), "the immutable's PUSH32 in the deployed code")
	abiJSON, err := json.Marshal(abiEntries(a))
	Expect(err).NotTo(HaveOccurred())
	art := map[string]any{
		"abi":              json.RawMessage(abiJSON),
		"bytecode":         map[string]any{"object": hexutil.Encode(a.Bin), "linkReferences": map[string]any{}},
		"deployedBytecode": map[string]any{"object": hexutil.Encode(runtime), "immutableReferences": map[string]any{"7": refs}},
	}
	raw, err := json.Marshal(art)
	Expect(err).NotTo(HaveOccurred())
	p := filepath.Join(dir, a.Name+".sol", a.Name+".json")
	Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
	Expect(os.WriteFile(p, raw, 0o644)).To(Succeed())
	Expect(os.MkdirAll(filepath.Join(dir, "build-info"), 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "build-info", "x.json"), []byte(`{"id":"x"}`), 0o644)).To(Succeed())
}

// abiEntries is the ABI JSON of a from testdata/contracts.json.
func abiEntries(a *world.Artifact) json.RawMessage {
	GinkgoHelper()
	raw, err := os.ReadFile("testdata/contracts.json")
	Expect(err).NotTo(HaveOccurred())
	var all map[string]struct {
		ABI json.RawMessage `json:"abi"`
	}
	Expect(json.Unmarshal(raw, &all)).To(Succeed())
	Expect(strings.TrimSpace(string(all[a.Name].ABI))).NotTo(BeEmpty())
	return all[a.Name].ABI
}
