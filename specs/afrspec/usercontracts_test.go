package afrspec_test

//go:generate go run ../../contracts/internal/solcgen -root ../.. -out testdata/contracts.json testdata/Matched.sol

import (
	"encoding/json"
	"math/big"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/internal/show"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

// userArtifact loads a contract of testdata/Matched.sol (compiled by
// solcgen into testdata/contracts.json): contracts that are not AFR's.
func userArtifact(name string) *world.Artifact {
	GinkgoHelper()
	raw, err := os.ReadFile("testdata/contracts.json")
	Expect(err).NotTo(HaveOccurred())
	var all map[string]struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode hexutil.Bytes   `json:"bytecode"`
	}
	Expect(json.Unmarshal(raw, &all)).To(Succeed())
	c, ok := all[name]
	Expect(ok).To(BeTrue(), "contract %s in testdata/contracts.json", name)
	a, err := abi.JSON(strings.NewReader(string(c.ABI)))
	Expect(err).NotTo(HaveOccurred())
	return &world.Artifact{Name: name, ABI: a, Bin: c.Bytecode}
}

var ether = big.NewInt(1e18)

// Matchers against a World running contracts of the spec's own: a vault
// with custom errors, events, a require string and a panic, and an ERC-20
// coin. One World serves the container (its specs run in order).
var _ = Describe("Matchers on a user's own contracts", Ordered, ContinueOnFailure, func() {
	var (
		w             *afrspec.World
		vault, coin   common.Address
		vaultA, coinA *world.Artifact
	)
	BeforeAll(func(ctx SpecContext) {
		w = afrspec.StartWorld(world.Config{})
		vaultA, coinA = userArtifact("Vault"), userArtifact("Coin")
		var err error
		vault, err = w.DeployArtifact(ctx, w.Owner(), vaultA)
		Expect(err).NotTo(HaveOccurred())
		coin, err = w.DeployArtifact(ctx, w.Deployer(), coinA, w.Owner().Address, big.NewInt(1_000))
		Expect(err).NotTo(HaveOccurred())
	})

	deposit := func(ctx SpecContext, from *world.Actor, wei *big.Int) *world.TxResult {
		return w.Send(ctx, from, vault, wei, vaultA.Pack("deposit"))
	}

	Describe("RevertWith", func() {
		It("matches a custom error with its arguments, by value or matcher", func(ctx SpecContext) {
			res := w.Send(ctx, w.Attacker(), vault, nil, vaultA.Pack("sweep", w.Attacker().Address))
			Expect(res).To(afrspec.RevertWith("NotOwner", w.Attacker().Address, w.Owner().Address))
			Expect(res).To(afrspec.RevertWith("NotOwner", w.Attacker().Address.Hex(), Not(Equal(w.Attacker().Address))))
			Expect(res).To(afrspec.Revert())
			Expect(res).NotTo(afrspec.RevertWith("Empty"))
			Expect(res.String()).To(ContainSubstring("reverted with Vault.NotOwner(caller=attacker (" + w.Attacker().Address.Hex() + "), owner=owner ("))
		})
		It("names the argument that differs, with the contract and the decoded error", func(ctx SpecContext) {
			res := w.Send(ctx, w.Attacker(), vault, nil, vaultA.Pack("sweep", w.Attacker().Address))
			msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("NotOwner", w.Attacker().Address, w.Attacker().Address)) })
			Expect(headOf(msg)).To(Equal("Expected a revert with NotOwner(" + w.Attacker().String() + ", " + w.Attacker().String() + "), but it reverted with Vault.NotOwner(caller=" +
				w.Attacker().String() + ", owner=" + w.Owner().String() + "): argument 1 (owner) is " + w.Owner().String() + ", expected " + w.Attacker().String()))
		})
		It("says the call succeeded, with its gas, when a revert was expected", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(1))
			Expect(res.Succeeded()).To(BeTrue())
			msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("NotOwner")) })
			Expect(msg).To(HavePrefix("Expected a revert with NotOwner(), but the call to Vault (" + vault.Hex() + ") succeeded (gas "))
			Expect(msg).To(ContainSubstring("gas " + show.Commas(res.Receipt.GasUsed) + ";"))
			Expect(failureOf(func() { Expect(res).To(afrspec.Revert()) })).To(HavePrefix("Expected a revert with any error, but the call to Vault"))
		})
		It("names the other error raised, of the user's contract or of AFR's", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(0))
			msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("NotOwner", w.Agent().Address)) })
			Expect(headOf(msg)).To(Equal("Expected a revert with NotOwner(" + w.Agent().String() + "), but it reverted with Vault.Empty()"))
			// An AFR error expected against the user's revert: decoded, not "unknown revert data".
			msg = failureOf(func() { Expect(res).To(afrspec.RevertWith("InvalidNonce")) })
			Expect(headOf(msg)).To(Equal("Expected a revert with InvalidNonce(), but it reverted with Vault.Empty()"))
		})
		It("lists the errors known to the World for a name no contract defines", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(0))
			msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("NotOwnr")) })
			Expect(msg).To(ContainSubstring(`RevertWith: no contract known to this World has an error named "NotOwnr" (known: Error, Panic; Coin: InsufficientBalance; `))
			Expect(msg).To(ContainSubstring("; Vault: Empty, NotOwner"))
			Expect(msg).To(MatchRegexp(`PaceSmartAccount: [A-Za-z, ]*InvalidNonce`))
			msg = failureOf(func() { Expect(res).To(afrspec.RevertWith("NotOwner", 1, 2, 3)) })
			Expect(msg).To(ContainSubstring("RevertWith: error NotOwner has 2 argument(s), 3 given"))
		})
		It("matches require strings as Error(message) and names the message argument", func(ctx SpecContext) {
			res := w.Send(ctx, w.Attacker(), vault, nil, vaultA.Pack("withdraw", ether))
			Expect(res).To(afrspec.RevertWith("Error", "insufficient deposit"))
			msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("Error", "transfer failed")) })
			Expect(headOf(msg)).To(Equal(`Expected a revert with Error(transfer failed), but it reverted with Error(message="insufficient deposit"): argument 0 (message) is insufficient deposit, expected transfer failed`))
		})
		It("matches panics by code", func(ctx SpecContext) {
			res := w.Send(ctx, w.Attacker(), vault, nil, vaultA.Pack("ratio", big.NewInt(1), big.NewInt(0)))
			Expect(res).To(afrspec.RevertWithPanic(0x12))
			Expect(res).To(afrspec.RevertWith("Panic", 0x12))
			msg := failureOf(func() { Expect(res).To(afrspec.RevertWithPanic(0x11)) })
			Expect(headOf(msg)).To(Equal("Expected a revert with Panic(17), but it reverted with Panic(code=0x12: division or modulo by zero): argument 0 (code) is 0x12, expected 17"))
		})
		It("decodes the World's errors through DecodeRevert; raw bytes decode with AFR's contracts only", func(ctx SpecContext) {
			res := w.Send(ctx, w.Attacker(), vault, nil, vaultA.Pack("sweep", w.Attacker().Address))
			Expect(res.DecodeRevert().Contract).To(Equal("Vault"))
			Expect(world.DescribeRevert(res.RevertData)).To(Equal("unknown revert data 0x" + common.Bytes2Hex(res.RevertData) +
				" (no known contract has an error with selector 0x" + common.Bytes2Hex(res.RevertData[:4]) + ")"))
			_, err := afrspec.RevertWith("NotOwner").Match(res.RevertData)
			Expect(err).To(MatchError(ContainSubstring(`RevertWith: no contract known without a World (AFR's own and the standard ERC-20/721; pass the *world.TxResult of World.Send to decode the World's contracts) has an error named "NotOwner"`)))
		})
		It("decodes ABIs registered by hand", func(ctx SpecContext) {
			guard := userArtifact("Guard")
			rc, err := chain.Transact(ctx, w.Client(), w.Deployer().Key, nil, nil, guard.Bin)
			Expect(err).NotTo(HaveOccurred())
			res := w.Send(ctx, w.Attacker(), rc.ContractAddress, nil, guard.Pack("poke"))
			Expect(res).To(afrspec.Revert())
			msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("Error")) })
			Expect(headOf(msg)).To(Equal("Expected a revert with Error(), but it reverted with unknown revert data 0x" + common.Bytes2Hex(res.RevertData) +
				" (no known contract has an error with selector 0x" + common.Bytes2Hex(res.RevertData[:4]) + ")"))
			Expect(w.Registry().Add("Guard", "by hand", guard.ABI)).To(Succeed())
			Expect(w.Registry().Bind(rc.ContractAddress, "Guard")).To(Succeed())
			Expect(res).To(afrspec.RevertWith("Locked", 42))
			msg = failureOf(func() { Expect(res).To(afrspec.RevertWith("Locked", 41)) })
			Expect(headOf(msg)).To(Equal("Expected a revert with Locked(41), but it reverted with Guard.Locked(until=42): argument 0 (until) is 42, expected 41"))
		})
	})

	Describe("EmitEvent", func() {
		It("matches the user's events by position, by name, or both", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(7))
			Expect(res).To(afrspec.EmitEvent("Deposited", afrspec.Args{w.Agent().Address, 7}))
			Expect(res).To(afrspec.EmitEvent("Deposited", "amount", 7))
			Expect(res).To(afrspec.EmitEvent("Deposited", afrspec.Args{w.Agent().Address}, afrspec.Fields{"amount": afrspec.BeNumerically(">", 6)}))
			Expect(res).To(afrspec.EmitEventFrom(vault, "Deposited", afrspec.Args{w.Agent().Address, 7}))
			Expect(res.Events()).To(HaveLen(1))
			Expect(res.Events()[0].String()).To(Equal("Vault.Deposited(who=" + w.Agent().Address.Hex() + ", amount=7)"))
		})
		It("names the argument that differs and lists what was emitted", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(7))
			msg := failureOf(func() { Expect(res).To(afrspec.EmitEvent("Deposited", afrspec.Args{w.Agent().Address, 8})) })
			Expect(headOf(msg)).To(Equal("Expected an event Deposited(" + w.Agent().String() + ", 8), but the transaction emitted:\n    - Vault.Deposited(who=" +
				w.Agent().String() + ", amount=7) emitted by Vault (" + vault.Hex() + ")\n  closest Deposited: argument 1 (amount) is 7, expected 8"))
			msg = failureOf(func() { Expect(res).To(afrspec.EmitEvent("Withdrawn")) })
			Expect(msg).To(HavePrefix("Expected an event Withdrawn(), but the transaction emitted:\n    - Vault.Deposited("))
		})
		It("checks the emitter with EmitEventFrom", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(7))
			msg := failureOf(func() { Expect(res).To(afrspec.EmitEventFrom(coin, "Deposited")) })
			Expect(headOf(msg)).To(HaveSuffix("closest Deposited: emitted by Vault (" + vault.Hex() + "), not by Coin (" + coin.Hex() + ")"))
		})
		It("says it reverted when an event was expected", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(0))
			msg := failureOf(func() { Expect(res).To(afrspec.EmitEvent("Deposited")) })
			Expect(headOf(msg)).To(Equal("Expected an event Deposited(), but it reverted with Vault.Empty()"))
		})
		It("lists the events known to the World for a name no contract defines", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(7))
			msg := failureOf(func() { Expect(res).To(afrspec.EmitEvent("Deposit")) })
			Expect(msg).To(ContainSubstring(`EmitEvent: no contract known to this World has an event named "Deposit" (known: Coin: Transfer; `))
			Expect(msg).To(ContainSubstring("ERC20: Approval, Transfer; ERC721: Approval, ApprovalForAll, Transfer;"))
			Expect(msg).To(ContainSubstring("; Vault: Deposited, Withdrawn"))
			msg = failureOf(func() { Expect(res).To(afrspec.EmitEvent("Deposited", afrspec.Args{1, 2, 3})) })
			Expect(msg).To(ContainSubstring("EmitEvent: event Deposited has 2 argument(s), 3 given"))
			msg = failureOf(func() { Expect(res).To(afrspec.EmitEvent("Deposited", 7)) })
			Expect(msg).To(ContainSubstring(`EmitEvent("Deposited"): argument 0 is a int, not a field name`))
		})
	})

	Describe("ChangeEtherBalances", func() {
		It("measures what the transaction moved, the sender's fee left out by default", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), ether)
			Expect(res).To(afrspec.ChangeEtherBalances([]any{w.Agent(), vault}, []any{new(big.Int).Neg(ether), ether}))
			Expect(res).To(afrspec.ChangeEtherBalance(vault, 1e18))
			fee := new(big.Int).Mul(new(big.Int).SetUint64(res.Receipt.GasUsed), res.Receipt.EffectiveGasPrice)
			Expect(fee.Sign()).To(BeNumerically(">", 0))
			withFee := new(big.Int).Sub(new(big.Int).Neg(ether), fee)
			Expect(res).To(afrspec.ChangeEtherBalance(w.Agent(), withFee, afrspec.IncludeFee()))
			before, err := w.Balances(ctx, w.Agent())
			Expect(err).NotTo(HaveOccurred())
			Expect(deposit(ctx, w.Agent(), big.NewInt(1))).To(afrspec.ChangeEtherBalance(w.Agent(), -1))
			after, err := w.Balances(ctx, w.Agent())
			Expect(err).NotTo(HaveOccurred())
			Expect(new(big.Int).Sub(before[0], after[0]).Cmp(big.NewInt(1))).To(Equal(1), "the fee was paid, though not counted")
		})
		It("reports a delta off by one with every holder's change", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), ether)
			off := new(big.Int).Add(ether, big.NewInt(1))
			msg := failureOf(func() {
				Expect(res).To(afrspec.ChangeEtherBalances([]any{w.Agent(), vault}, []any{new(big.Int).Neg(ether), off}))
			})
			fee := new(big.Int).Mul(new(big.Int).SetUint64(res.Receipt.GasUsed), res.Receipt.EffectiveGasPrice)
			Expect(headOf(msg)).To(Equal("Expected the ether balance of Vault (" + vault.Hex() + ") to change by 1000000000000000001, but it changed by 1000000000000000000" +
				"\n  the sender's fee (" + fee.String() + " wei) is left out (give IncludeFee() to count it)" +
				"\n  changes:\n    - " + w.Agent().String() + ": -1000000000000000000 (expected -1000000000000000000)" +
				"\n    - Vault (" + vault.Hex() + "): 1000000000000000000 (expected 1000000000000000001)"))
		})
		It("counts the fee only when asked", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), ether)
			msg := failureOf(func() {
				Expect(res).To(afrspec.ChangeEtherBalance(w.Agent(), new(big.Int).Neg(ether), afrspec.IncludeFee()))
			})
			fee := new(big.Int).Mul(new(big.Int).SetUint64(res.Receipt.GasUsed), res.Receipt.EffectiveGasPrice)
			paid := new(big.Int).Neg(new(big.Int).Add(ether, fee))
			Expect(msg).To(HavePrefix("Expected the ether balance of " + w.Agent().String() + " to change by -1000000000000000000, but it changed by " + paid.String() +
				"\n  the sender's fee (" + fee.String() + " wei) is included (IncludeFee)"))
		})
		It("sees no change when the call was refused in simulation", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(0))
			Expect(res).To(afrspec.ChangeEtherBalances([]any{w.Agent(), vault}, []any{0, 0}))
			msg := failureOf(func() { Expect(res).To(afrspec.ChangeEtherBalance(vault, 1)) })
			Expect(msg).To(HavePrefix("Expected the ether balance of Vault (" + vault.Hex() + ") to change by 1, but it changed by 0 (nothing was mined: the call to Vault (" + vault.Hex() + ") reverted with Vault.Empty())"))
		})
		It("refuses mismatched holders and deltas", func(ctx SpecContext) {
			res := deposit(ctx, w.Agent(), big.NewInt(1))
			_, err := afrspec.ChangeEtherBalances([]any{w.Agent(), vault}, []any{1}).Match(res)
			Expect(err).To(MatchError("ChangeEtherBalances: 2 holder(s) but 1 delta(s)"))
			_, err = afrspec.ChangeEtherBalance("agent", 1).Match(res)
			Expect(err).To(MatchError("ChangeEtherBalance: holder 0: a balance holder is an *world.Actor or a common.Address, got string"))
		})
	})

	Describe("ChangeTokenBalances", func() {
		It("measures ERC-20 balance changes and names the token and holder when one is off", func(ctx SpecContext) {
			res := w.Send(ctx, w.Owner(), coin, nil, coinA.Pack("transfer", w.Agent().Address, big.NewInt(30)))
			Expect(res).To(afrspec.ChangeTokenBalances(coin, []any{w.Owner(), w.Agent()}, []any{-30, 30}))
			Expect(res).To(afrspec.EmitEventFrom(coin, "Transfer", afrspec.Args{w.Owner().Address, w.Agent().Address, 30}))
			msg := failureOf(func() { Expect(res).To(afrspec.ChangeTokenBalance(coin, w.Agent(), 31)) })
			Expect(headOf(msg)).To(Equal("Expected the balance in token Coin (" + coin.Hex() + ") of " + w.Agent().String() + " to change by 31, but it changed by 30" +
				"\n  changes:\n    - " + w.Agent().String() + ": 30 (expected 31)"))
			bal, err := w.TokenBalances(ctx, coin, w.Owner(), w.Agent())
			Expect(err).NotTo(HaveOccurred())
			Expect(bal[0].Int64() + bal[1].Int64()).To(Equal(int64(1_000)))
		})
		It("decodes the token's own error with its arguments", func(ctx SpecContext) {
			res := w.Send(ctx, w.Attacker(), coin, nil, coinA.Pack("transfer", w.Agent().Address, big.NewInt(1)))
			Expect(res).To(afrspec.RevertWith("InsufficientBalance", w.Attacker().Address, 0, 1))
			msg := failureOf(func() { Expect(res).To(afrspec.RevertWith("InsufficientBalance", w.Attacker().Address, 0, 2)) })
			Expect(headOf(msg)).To(HaveSuffix("but it reverted with Coin.InsufficientBalance(holder=" + w.Attacker().String() + ", balance=0, needed=1): argument 2 (needed) is 1, expected 2"))
		})
	})
})
