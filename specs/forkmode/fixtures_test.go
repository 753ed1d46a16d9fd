package forkmode_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/specs/afrspec"
	"github.com/agentflightrecorder/afr/tracesim"
)

// fixture is one committed tracesim replay vector (fixtures/tracesim/cases).
type fixture struct {
	name   string
	Desc   string      `json:"desc"`
	TxHash common.Hash `json:"tx_hash"`
	Expect struct {
		FidelityOK bool           `json:"fidelity_ok"`
		Status     string         `json:"status"`
		GasUsed    uint64         `json:"gas_used"`
		Target     common.Address `json:"target"`
		Value      string         `json:"value"`
		Tool       string         `json:"tool"`
		Args       map[string]any `json:"args"`
	} `json:"expect"`
}

// recorded is the intent an agent would have recorded for the transaction.
func (f *fixture) recorded(chainID uint64) format.Intent {
	v, _ := new(big.Int).SetString(f.Expect.Value, 10)
	in := format.Intent{Tool: f.Expect.Tool, ChainID: chainID, Target: f.Expect.Target.Bytes(), Args: f.Expect.Args}
	if v.Sign() > 0 {
		in.Value = v.Bytes()
	}
	return in
}

// root is the repository root, relative to this package's directory (where
// go test and ginkgo run it).
func root() string { return filepath.Join("..", "..") }

func fixturePath(parts ...string) string {
	return filepath.Join(append([]string{root(), "fixtures", "tracesim"}, parts...)...)
}

// loadFixtures runs while the spec tree is built: one table entry per file.
func loadFixtures() []TableEntry {
	paths, err := filepath.Glob(fixturePath("cases", "*.json"))
	if err != nil || len(paths) == 0 {
		panic(fmt.Sprintf("no tracesim fixtures under %s (%v): the table would be empty", fixturePath("cases"), err))
	}
	var out []TableEntry
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			panic(err)
		}
		f := &fixture{name: strings.TrimSuffix(filepath.Base(p), ".json")}
		if err := json.Unmarshal(raw, f); err != nil {
			panic(err)
		}
		out = append(out, Entry(f.name+": "+f.Desc, f))
	}
	return out
}

var _ = Describe("Replaying the committed fork fixtures offline", Label("fork"), func() {
	var (
		rp      *tracesim.Replayer
		chainID uint64
	)
	BeforeEach(func() {
		var info struct {
			ChainID   uint64            `json:"chain_id"`
			Addresses map[string]string `json:"addresses"`
		}
		raw, err := os.ReadFile(fixturePath("addresses.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(raw, &info)).To(Succeed())
		chainID = info.ChainID
		reg := calldata.NewRegistry()
		for _, d := range []string{fixturePath("abi"), filepath.Join(root(), "node_modules/@uniswap/v2-core/build"), filepath.Join(root(), "node_modules/@uniswap/v2-periphery/build")} {
			_, err := reg.LoadDir(d)
			Expect(err).NotTo(HaveOccurred(), "loading ABIs (hint: make setup installs the Uniswap builds)")
		}
		instances := map[string]string{"TKA": "TestToken", "TKB": "TestToken", "NFT": "TestNFT", "PairAB": "UniswapV2Pair", "PairAW": "UniswapV2Pair",
			"Factory": "UniswapV2Factory", "Router": "UniswapV2Router02", "WETH": "WETH9", "PACE": "PaceSmartAccount"}
		for name, a := range info.Addresses {
			if c, ok := instances[name]; ok {
				Expect(reg.Bind(common.HexToAddress(a), c)).To(Succeed())
			}
		}
		cfg, err := evm.HardforkConfig("prague", chainID) // the fixtures' anvil block ran Prague rules
		Expect(err).NotTo(HaveOccurred())
		rp, err = tracesim.NewReplayer("", &tracesim.ReplayOptions{Registry: reg, Mode: evm.ReplayOnly, CacheDir: fixturePath("cache"),
			ChainID: chainID, ChainConfig: cfg})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rp.Close)
	})

	DescribeTable("each transaction replays with fidelity and matches the intent an agent would have recorded",
		func(ctx SpecContext, f *fixture) {
			res, err := rp.Replay(ctx, f.TxHash)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Fidelity.OK).To(Equal(f.Expect.FidelityOK), "fidelity mismatches: %v", res.Fidelity.Mismatches)
			Expect(res.Effects.Status).To(Equal(f.Expect.Status), "execution status")
			Expect(res.Receipt.GasUsed).To(Equal(f.Expect.GasUsed))
			Expect(res).To(afrspec.MatchIntent(f.recorded(chainID)))
			Expect(res.Stats.Requests).To(BeZero(), "offline: no request may leave the process")
		},
		loadFixtures(),
	)
})
