// Package lending is the protocol engineer's comparison of issue 27, built
// in: an ERC-20, a constant-product AMM, a flash lender, a spot and a
// time-weighted price feed and a lending pool with three bug classes
// (oracle manipulation with flash-loaned capital, an unchecked transferFrom
// return, a re-callable initializer) beside its fix (src/, compiled with
// forge from this folder's foundry.toml), and the same 25 tests twice: as
// forge tests (test/Lending.t.sol) and as afrspec specs (lending_test.go),
// each spec named after its forge twin, with the same setup and the same
// assertions. One World serves the whole suite (BeforeSuite, then Isolate
// in every spec), on the in-process chain by default; the specs are
// labelled anvil, so make test-specs runs them on anvil too. The attack
// specs also record their attack as evidence and verify the log, which
// forge cannot. BenchmarkVsForge (vsforge_test.go) times both suites in
// one run; docs/PERFORMANCE.md has the figures. fuzz_test.go fuzzes
// deposit (label fuzz, no forge twin): it finds the unchecked transferFrom
// and shrinks it to one wei more than the depositor holds; invariant_test.go
// finds the re-callable initializer with an invariant campaign, and
// counterexample_test.go turns that violation into a committed generated
// spec (counterexample_initialize_test.go) and into a recorded attack whose
// log verifies.
package lending

import (
	"math/big"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	gtypes "github.com/onsi/gomega/types"

	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

func TestLending(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Lending pool attacks (the forge comparison)")
}

// admin owns both pools and has no key (forge: address(0xAD111)).
var admin = common.HexToAddress("0x00000000000000000000000000000000000aD111")

// The suite's World, its actors, and the contracts BeforeSuite deploys (the
// forge tests' setUp).
var (
	w                           *afrspec.World
	alice, bob, whale, attacker *world.Actor
	tokenArt, laxArt, ammArt    *world.Artifact
	lenderArt, spotArt, twapArt *world.Artifact
	poolArt, fixedArt           *world.Artifact
	attackArt, borrowerArt      *world.Artifact
	coll, usd, amm, lender      common.Address
	spot, twap, pool, fixedPool common.Address
	max256                      = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
)

var _ = BeforeSuite(func(ctx SpecContext) {
	w = afrspec.StartWorld(world.Config{})
	tokenArt, laxArt = artifact("Token.sol", "Token"), artifact("Token.sol", "LaxToken")
	ammArt, lenderArt = artifact("Amm.sol", "Amm"), artifact("FlashLender.sol", "FlashLender")
	spotArt, twapArt = artifact("PriceFeed.sol", "SpotFeed"), artifact("PriceFeed.sol", "TwapFeed")
	poolArt, fixedArt = artifact("LendingPool.sol", "LendingPool"), artifact("LendingPool.sol", "FixedLendingPool")
	attackArt, borrowerArt = artifact("Attacks.sol", "OracleAttack"), artifact("Attacks.sol", "Borrower")
	alice, bob, whale, attacker = w.Actor("alice"), w.Actor("bob"), w.Actor("whale"), w.Attacker()
	for _, a := range []*world.Actor{alice, bob, whale} {
		Expect(w.Fund(ctx, a, e18(10))).To(Succeed())
	}
	w.Label(admin, "admin")
	me := w.Deployer()

	coll = deploy(ctx, me, laxArt, "Collateral", "COL", e18(1_000_000))
	usd = deploy(ctx, me, tokenArt, "Dollar", "USD", e18(100_000_000))
	amm = deploy(ctx, me, ammArt, coll, usd)
	mustSend(ctx, me, coll, "approve", amm, e18(1_000))
	mustSend(ctx, me, usd, "approve", amm, e18(1_000_000))
	mustSend(ctx, me, amm, "addLiquidity", e18(1_000), e18(1_000_000))
	lender = deploy(ctx, me, lenderArt, usd)
	mustSend(ctx, me, usd, "transfer", lender, e18(10_000_000))
	spot = deploy(ctx, me, spotArt, amm)
	twap = deploy(ctx, me, twapArt, amm)
	mustSend(ctx, me, twap, "update")
	pool = deploy(ctx, me, poolArt, coll, usd)
	mustSend(ctx, me, pool, "initialize", admin, spot)
	mustSend(ctx, me, usd, "transfer", pool, e18(1_000_000))
	fixedPool = deploy(ctx, me, fixedArt, coll, usd)
	mustSend(ctx, me, fixedPool, "initialize", admin, twap)
	mustSend(ctx, me, usd, "transfer", fixedPool, e18(1_000_000))
	mustSend(ctx, me, coll, "transfer", alice.Address, e18(10))
	mustSend(ctx, me, coll, "transfer", attacker.Address, e18(10))
	mustSend(ctx, me, coll, "transfer", whale.Address, e18(1_000))
	mustSend(ctx, me, usd, "transfer", bob.Address, e18(10_000))
	mustSend(ctx, alice, coll, "approve", pool, max256)
	mustSend(ctx, alice, coll, "approve", fixedPool, max256)
	mustSend(ctx, alice, usd, "approve", pool, max256)
	now, err := w.Now(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(w.Warp(ctx, now+3600)).To(Succeed()) // the TWAP's window
})

var _ = BeforeEach(func() { w.Isolate() })

// artifact loads a contract forge built from src/ (run `forge build` here).
func artifact(file, name string) *world.Artifact {
	GinkgoHelper()
	a, err := world.LoadForgeArtifact(filepath.Join("out", file, name+".json"))
	Expect(err).NotTo(HaveOccurred())
	return a
}

// e18 is n whole tokens (18 decimals): forge's n * 1e18.
func e18(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// artOf is the artifact of a contract the suite deployed, by address.
func artOf(at common.Address) *world.Artifact {
	GinkgoHelper()
	for _, c := range []struct {
		at  common.Address
		art *world.Artifact
	}{{coll, laxArt}, {usd, tokenArt}, {amm, ammArt}, {lender, lenderArt}, {spot, spotArt}, {twap, twapArt}, {pool, poolArt}, {fixedPool, fixedArt}} {
		if c.at == at {
			return c.art
		}
	}
	Fail("no artifact for " + at.Hex() + ": pass the artifact to sendTo or callOn")
	return nil
}

func deploy(ctx SpecContext, from *world.Actor, a *world.Artifact, args ...any) common.Address {
	GinkgoHelper()
	at, err := w.DeployArtifact(ctx, from, a, args...)
	Expect(err).NotTo(HaveOccurred())
	return at
}

// send sends method(args) of the suite's contract at to, from an actor.
func send(ctx SpecContext, from *world.Actor, to common.Address, method string, args ...any) *world.TxResult {
	GinkgoHelper()
	return sendTo(ctx, from, artOf(to), to, method, args...)
}

// sendTo is send to a contract a spec deployed itself, with its artifact.
func sendTo(ctx SpecContext, from *world.Actor, a *world.Artifact, to common.Address, method string, args ...any) *world.TxResult {
	return w.Send(ctx, from, to, nil, a.Pack(method, args...))
}

// mustSend is send that fails the spec unless the transaction succeeds.
func mustSend(ctx SpecContext, from *world.Actor, to common.Address, method string, args ...any) {
	GinkgoHelper()
	res := send(ctx, from, to, method, args...)
	Expect(res.Succeeded()).To(BeTrue(), "%s", res)
}

// call makes a view call of the suite's contract at and returns its single
// result; callFrom makes it as an address (forge: vm.prank before a call).
func call(ctx SpecContext, at common.Address, method string, args ...any) any {
	GinkgoHelper()
	return callFrom(ctx, common.Address{}, at, method, args...)
}

func callFrom(ctx SpecContext, from, at common.Address, method string, args ...any) any {
	GinkgoHelper()
	a := artOf(at)
	out, err := w.Client().CallContract(ctx, ethereum.CallMsg{From: from, To: &at, Data: a.Pack(method, args...)}, nil)
	Expect(err).NotTo(HaveOccurred())
	vals, err := a.ABI.Unpack(method, out)
	Expect(err).NotTo(HaveOccurred())
	return vals[0]
}

// equal matches a number equal to want (an integer or *big.Int), whatever
// its Go type: forge's assertEq on a uint256.
func equal(want any) gtypes.GomegaMatcher { return afrspec.BeNumerically("==", want) }

// balance is token's balanceOf(holder).
func balance(ctx SpecContext, token common.Address, holder any) *big.Int {
	GinkgoHelper()
	b, err := w.TokenBalances(ctx, token, holder)
	Expect(err).NotTo(HaveOccurred())
	return b[0]
}

// recordAndVerify records each transaction as evidence — its intent and its
// outcome with the effects of its replay (RecordTx), each caused by the one
// before — then seals the log, anchors it and verifies it against the
// chain: what forge has no equivalent of.
func recordAndVerify(ctx SpecContext, actor string, txs ...*world.TxResult) {
	GinkgoHelper()
	var parents []uint64
	for _, res := range txs {
		ev, err := w.RecordTx(ctx, actor, res, parents...)
		Expect(err).NotTo(HaveOccurred())
		parents = []uint64{ev.Outcome.Seq}
	}
	Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
}
