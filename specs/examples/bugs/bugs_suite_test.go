// Package bugs is a benchmark of planted bugs: five small contracts, each
// with one bug of a classic pattern beside its fixed twin (src/, compiled
// with forge from this folder's foundry.toml), and for each the same
// invariant twice: as a forge invariant test (test/Planted.t.sol,
// invariant_<Pattern>) and as an afrspec campaign (bugs_test.go). The
// campaign finds the planted bug with a shrunk sequence of calls and holds
// on the fixed twin.
//
//  1. Accounting drift (src/Drift.sol): Staking keeps each stake and a
//     total; unstakeAll clears the stake and forgets the total. Invariant:
//     the total is the sum of the stakes.
//  2. Re-entrancy (src/Reentrancy.sol): EtherBank pays before it clears the
//     balance; the campaign calls Reenterer, an attacker contract (forge's
//     handler pattern) that re-enters withdraw from its receive function.
//     Invariant: the bank holds what it owes its depositors.
//  3. Oracle manipulation (src/Oracle.sol): SpotMarket's loan desk prices
//     collateral from the reserves, which one swap moves; DelayedMarket's
//     price moves at most once an hour. The campaign calls Trader, the
//     market's trader. Invariant: every loan is covered twice by its
//     collateral at the fair price.
//  4. Rounding (src/Rounding.sol): RoundDownVault rounds the shares a
//     withdrawal burns down, in the user's favour; RoundUpVault rounds them
//     up. The campaign calls Depositor. Invariant: the assets per share
//     never fall.
//  5. Access control (src/Access.sol): Treasury's setPayee has no
//     onlyOwner. Invariant: the payee is unchanged (no sender is the
//     owner).
//
// `forge test` here runs the fixed twins (FixedDriftTest, …), which hold;
// the planted ones fail, as planted, and run under the planted profile
// (foundry.toml). BenchmarkPlanted (planted_bench_test.go) times each bug's
// finding by both, with the shrunk lengths, and the invariant calls per
// second on the fixed twins; docs/PERFORMANCE.md has the figures. The
// campaigns are labelled fuzz, as the lending example's; the access-control
// pair also anvil, so that make test-specs runs a spec of the suite on anvil.
package bugs

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

func TestBugs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Planted bugs (campaigns beside forge's invariant tests)")
}

// The suite's World and the campaigns BeforeSuite built, by the pattern's
// forge name.
var (
	w         *afrspec.World
	campaigns map[string]twins
)

var _ = BeforeSuite(func(ctx SpecContext) {
	w = afrspec.StartWorld(world.Config{})
	var err error
	campaigns, err = setup(ctx, w.World)
	Expect(err).NotTo(HaveOccurred())
})

var _ = BeforeEach(func() { w.Isolate() })
