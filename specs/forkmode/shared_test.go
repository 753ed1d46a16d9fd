package forkmode_test

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/world"
)

// startArchive starts a local anvil of chain id that plays an archive node
// and sends wei to holder on it; it returns the node and the block of that
// transfer.
func startArchive(ctx context.Context, id uint64, holder common.Address, wei int64) (*anvil.Node, uint64) {
	GinkgoHelper()
	n, err := anvil.Start(context.Background(), anvil.Options{ChainID: id, Accounts: 1, Hardfork: "prague"})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(n.Stop)
	c, err := ethclient.DialContext(ctx, n.URL())
	Expect(err).NotTo(HaveOccurred())
	defer c.Close()
	rc, err := chain.Transact(ctx, c, n.Keys()[0], &holder, big.NewInt(wei), nil)
	Expect(err).NotTo(HaveOccurred())
	return n, rc.BlockNumber.Uint64()
}

// One fork World serves the whole container: it is forked once (the
// process start and the archive's state fetched once), and Isolate reverts
// every fork of it after each spec, the one CreateFork added included.
var _ = Describe("A fork World shared by the specs of a suite", Ordered, Label("anvil", "fork"), func() {
	holder := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	var w *afrspec.World
	var other world.ForkID

	BeforeAll(func(ctx SpecContext) {
		home, pin := startArchive(ctx, 81, holder, 12345)
		second, _ := startArchive(ctx, 82, holder, 777)
		w = afrspec.StartWorld(world.Config{Backend: backend.KindFork, ForkRPC: home.URL(), ForkBlock: pin, ForkCache: GinkgoT().TempDir()})
		var err error
		other, err = w.CreateFork(ctx, second.URL(), 0)
		Expect(err).NotTo(HaveOccurred())
	})
	BeforeEach(func() { w.Isolate() })

	balance := func(ctx context.Context) int64 {
		GinkgoHelper()
		b, err := w.Balances(ctx, holder)
		Expect(err).NotTo(HaveOccurred())
		return b[0].Int64()
	}
	// Each spec finds the pinned state on both forks, home selected, and
	// changes both: the order they run in does not matter.
	spec := func(ctx SpecContext) {
		Expect(w.ActiveFork()).To(Equal(world.HomeFork))
		Expect(balance(ctx)).To(Equal(int64(12345)))
		Expect(w.Deal(ctx, holder, big.NewInt(1))).To(Succeed())
		res := w.Send(ctx, w.Attacker(), holder, big.NewInt(1), nil)
		Expect(res.Succeeded()).To(BeTrue(), "%s", res)
		Expect(balance(ctx)).To(Equal(int64(2)))

		Expect(w.SelectFork(ctx, other)).To(Succeed())
		Expect(w.ChainID()).To(Equal(uint64(82)))
		Expect(balance(ctx)).To(Equal(int64(777)))
		Expect(w.Deal(ctx, holder, big.NewInt(3))).To(Succeed())
		Expect(balance(ctx)).To(Equal(int64(3)))
	}
	It("runs a spec on the forked state", spec)
	It("runs the next spec on the same state again, on every fork", spec)
})
