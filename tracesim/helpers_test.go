package tracesim

//go:generate go run ../contracts/internal/solcgen -root .. -out testdata/tokens.json testdata/Tokens.sol

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/anvil/anviltest"
	"github.com/agentflightrecorder/afr/evm"
)

// Paths of the third-party build artifacts the tests run (installed by
// `make setup` from package-lock.json) and of the committed fixtures.
const (
	uniCoreBuild  = "../node_modules/@uniswap/v2-core/build"
	uniPeriBuild  = "../node_modules/@uniswap/v2-periphery/build"
	paceABIDir    = "../contracts/abi"
	fixturesDir   = "../fixtures/tracesim"
	fixtureABIs   = fixturesDir + "/abi"
	fixtureCache  = fixturesDir + "/cache"
	fixtureCases  = fixturesDir + "/cases"
	fixtureAddrs  = fixturesDir + "/addresses.json"
	tokensJSON    = "testdata/tokens.json"
	anvilHardfork = "prague"
)

type artifact struct {
	Name string
	ABI  abi.ABI
	Bin  []byte
}

func (a artifact) pack(t testing.TB, method string, args ...any) []byte {
	t.Helper()
	b, err := a.ABI.Pack(method, args...)
	if err != nil {
		t.Fatalf("pack %s.%s: %v", a.Name, method, err)
	}
	return b
}

func (a artifact) deployData(t testing.TB, args ...any) []byte {
	t.Helper()
	enc, err := a.ABI.Pack("", args...)
	if err != nil {
		t.Fatalf("pack constructor of %s: %v", a.Name, err)
	}
	return append(append([]byte{}, a.Bin...), enc...)
}

// loadWaffle reads a waffle artifact (the Uniswap npm packages' build/*.json).
func loadWaffle(t testing.TB, path string) artifact {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("Uniswap artifacts not installed (hint: run make setup): %v", err)
	}
	var a struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode string          `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(a.ABI)))
	if err != nil {
		t.Fatal(err)
	}
	return artifact{Name: strings.TrimSuffix(filepath.Base(path), ".json"), ABI: parsed, Bin: common.FromHex(a.Bytecode)}
}

var (
	tokensOnce sync.Once
	tokens     map[string]artifact
	tokensErr  error
)

// loadToken reads a contract compiled by go generate into testdata/tokens.json.
func loadToken(t testing.TB, name string) artifact {
	t.Helper()
	tokensOnce.Do(func() {
		raw, err := os.ReadFile(tokensJSON)
		if err != nil {
			tokensErr = err
			return
		}
		var m map[string]struct {
			ABI      json.RawMessage `json:"abi"`
			Bytecode hexutil.Bytes   `json:"bytecode"`
		}
		if tokensErr = json.Unmarshal(raw, &m); tokensErr != nil {
			return
		}
		tokens = map[string]artifact{}
		for k, v := range m {
			a, err := abi.JSON(strings.NewReader(string(v.ABI)))
			if err != nil {
				tokensErr = err
				return
			}
			tokens[k] = artifact{Name: k, ABI: a, Bin: v.Bytecode}
		}
	})
	if tokensErr != nil {
		t.Fatal(tokensErr)
	}
	a, ok := tokens[name]
	if !ok {
		t.Fatalf("no %s in %s", name, tokensJSON)
	}
	return a
}

func loadPACE(t testing.TB) artifact {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(paceABIDir, "PaceSmartAccount.abi.json"))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(filepath.Join(paceABIDir, "PaceSmartAccount.bin"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := abi.JSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return artifact{Name: "PaceSmartAccount", ABI: a, Bin: common.FromHex(strings.TrimSpace(string(bin)))}
}

// testRegistry loads every ABI the tests decode with: the Uniswap builds,
// the PACE account, the fixture ABIs (test tokens, collisions, Multicall3),
// and binds the given addresses.
func testRegistry(t testing.TB, addrs map[string]common.Address, dirs ...string) *calldata.Registry {
	t.Helper()
	r := calldata.NewRegistry()
	if len(dirs) == 0 {
		// The live test decodes with the current PACE ABI; the committed
		// fixtures with the snapshot taken when they were recorded
		// (first registration of a name wins).
		dirs = []string{paceABIDir, fixtureABIs, uniCoreBuild, uniPeriBuild}
	}
	for _, d := range dirs {
		if _, err := r.LoadDir(d); err != nil {
			t.Fatal(err)
		}
	}
	for name, a := range addrs {
		if err := r.Bind(a, contractOf(name)); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// contractOf maps a deployed instance name to its contract.
func contractOf(instance string) string {
	switch instance {
	case "TKA", "TKB":
		return "TestToken"
	case "NFT":
		return "TestNFT"
	case "PairAB", "PairAW":
		return "UniswapV2Pair"
	case "Factory":
		return "UniswapV2Factory"
	case "Router":
		return "UniswapV2Router02"
	case "WETH":
		return "WETH9"
	case "PACE":
		return "PaceSmartAccount"
	}
	return instance
}

// chain is a test's connection to a running anvil.
type chain struct {
	t    testing.TB
	node *anvil.Node
	rpc  *rpc.Client
}

func startChain(t testing.TB) *chain {
	t.Helper()
	n := anviltest.Start(t, anvil.Options{Hardfork: anvilHardfork, Accounts: 5})
	c, err := rpc.Dial(n.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &chain{t: t, node: n, rpc: c}
}

func (c *chain) call(result any, method string, args ...any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.rpc.CallContext(ctx, result, method, args...); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// submit sends a transaction from an unlocked dev account with a fixed gas
// limit (so that it is accepted even when it will revert) and returns its hash.
func (c *chain) submit(from common.Address, to *common.Address, data []byte, value *big.Int) common.Hash {
	c.t.Helper()
	return c.submitGas(from, to, data, value, 1_500_000)
}

func (c *chain) submitGas(from common.Address, to *common.Address, data []byte, value *big.Int, gas uint64) common.Hash {
	c.t.Helper()
	tx := map[string]any{"from": from, "data": hexutil.Bytes(data), "gas": hexutil.Uint64(gas)}
	if to != nil {
		tx["to"] = *to
	}
	if value != nil {
		tx["value"] = (*hexutil.Big)(value)
	}
	var h common.Hash
	c.call(&h, "eth_sendTransaction", tx)
	return h
}

func (c *chain) receipt(h common.Hash) *types.Receipt {
	c.t.Helper()
	var r *types.Receipt
	for i := 0; i < 1000 && r == nil; i++ {
		c.call(&r, "eth_getTransactionReceipt", h)
		if r == nil {
			time.Sleep(2 * time.Millisecond)
		}
	}
	if r == nil {
		c.t.Fatalf("no receipt for %s", h.Hex())
	}
	return r
}

// send submits and waits for the receipt (automine), failing on a revert.
func (c *chain) send(from common.Address, to *common.Address, data []byte, value *big.Int) *types.Receipt {
	c.t.Helper()
	// Setup transactions: Router02's creation needs about 4.5M gas, a first
	// addLiquidity (pair creation) about 2.5M.
	r := c.receipt(c.submitGas(from, to, data, value, 8_000_000))
	if r.Status != 1 {
		c.t.Fatalf("transaction %s to %v reverted", r.TxHash.Hex(), to)
	}
	return r
}

func (c *chain) deploy(from common.Address, code []byte) common.Address {
	c.t.Helper()
	return c.send(from, nil, code, nil).ContractAddress
}

func (c *chain) ethCall(to common.Address, data []byte) []byte {
	c.t.Helper()
	var out hexutil.Bytes
	c.call(&out, "eth_call", map[string]any{"to": to, "data": hexutil.Bytes(data)}, "latest")
	return out
}

func ptr(a common.Address) *common.Address { return &a }

func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// pragueConfig is the fork rules of an anvil started with --hardfork prague.
func pragueConfig(chainID uint64) *params.ChainConfig {
	c, err := evm.HardforkConfig("prague", chainID)
	if err != nil {
		panic(err) // "prague" is a known name
	}
	return c
}

// countingServer is a loopback JSON-RPC stand-in that answers nothing and
// counts every request it gets.
func countingServer(t testing.TB) (string, func() int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "offline test: no requests expected", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, n.Load
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
