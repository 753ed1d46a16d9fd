package forkmode_test

import (
	"context"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/tracesim"
	"github.com/agentflightrecorder/afr/world"
)

func pragueConfig(chainID uint64) *tracesim.ReplayOptions {
	cfg, err := evm.HardforkConfig("prague", chainID)
	Expect(err).NotTo(HaveOccurred())
	return &tracesim.ReplayOptions{ChainConfig: cfg, Registry: calldata.NewRegistry()}
}

// runPACE is the spec every backend must pass: an allowed call executes and
// is recorded, and the log verifies against anchors on the same chain.
func runPACE(ctx context.Context, w *afrspec.World) {
	GinkgoHelper()
	p := w.MustPropose(ctx, "agent", w.PingCall())
	res := w.Execute(ctx, p)
	Expect(res).To(afrspec.EmitEvent("Executed", "eventId", p.EventID(), "success", true))
	w.MustRecordOutcome(ctx, p, res)
	Expect(w.MustSealAndVerify(ctx)).To(afrspec.BeVerified())
}

// A local anvil plays the archive node (it serves historical state), so the
// fork backend and live replay are exercised without leaving loopback.
var _ = Describe("A World forked from an archive endpoint pinned at a block", Label("anvil"), func() {
	It("sees the archive's state at the pin, runs the spec on it, and replays an archive transaction live", func(ctx SpecContext) {
		archive, err := anvil.Start(context.Background(), anvil.Options{Accounts: 1, Hardfork: "prague"})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(archive.Stop)
		c, err := ethclient.DialContext(ctx, archive.URL())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
		rc, err := chain.Transact(ctx, c, archive.Keys()[0], &to, big.NewInt(12345), nil)
		Expect(err).NotTo(HaveOccurred())
		// A later block the fork must not see.
		_, err = chain.Transact(ctx, c, archive.Keys()[0], &to, big.NewInt(1), nil)
		Expect(err).NotTo(HaveOccurred())

		w := afrspec.StartWorld(world.Config{Backend: backend.KindFork, ForkRPC: archive.URL(), ForkBlock: rc.BlockNumber.Uint64(), ForkCache: GinkgoT().TempDir()})
		bal, err := w.Client().BalanceAt(ctx, to, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(bal.Int64()).To(Equal(int64(12345)), "the fork holds the archive's state at the pinned block")
		runPACE(ctx, w)

		res, err := tracesim.Replay(ctx, archive.URL(), rc.TxHash, pragueConfig(archive.ChainID()))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Fidelity.OK).To(BeTrue())
		Expect(res).To(afrspec.MatchIntent(format.Intent{Tool: calldata.ToolValueTransfer, ChainID: archive.ChainID(),
			Target: to.Bytes(), Value: big.NewInt(12345).Bytes()}))
	})
})

// Teams with archive access: AFR_FORK_RPC=<url> AFR_FORK_BLOCK=<n>
// [AFR_FORK_TX=<hash>] and the ginkgo command in docs/SPECS.md, "Fork mode".
var _ = Describe("Against a live archive endpoint", Label("fork", "live"), func() {
	BeforeEach(func() {
		if os.Getenv(world.EnvForkRPC) == "" || os.Getenv(world.EnvForkBlock) == "" {
			Skip("no live endpoint: set " + world.EnvForkRPC + " and " + world.EnvForkBlock + " to run these specs")
		}
	})

	It("runs the PACE spec on a fork pinned at AFR_FORK_BLOCK", func(ctx SpecContext) {
		runPACE(ctx, afrspec.StartWorld(world.Config{Backend: backend.KindFork}))
	})

	It("replays AFR_FORK_TX with fidelity", func(ctx SpecContext) {
		tx := os.Getenv("AFR_FORK_TX")
		if tx == "" {
			Skip("set AFR_FORK_TX to a transaction hash to replay it")
		}
		res, err := tracesim.Replay(ctx, os.Getenv(world.EnvForkRPC), common.HexToHash(tx), &tracesim.ReplayOptions{Registry: calldata.NewRegistry()})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Fidelity.OK).To(BeTrue(), "mismatches: %v", res.Fidelity.Mismatches)
	})
})
