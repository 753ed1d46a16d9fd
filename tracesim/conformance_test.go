package tracesim

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/internal/gethfixtures"
)

// TestConformanceReplay turns each of go-ethereum's tracer fixtures (see
// evm's TestConformance) into what a recorded replay cache holds — the
// pre-state as a fork cache at the parent block (evm.WritePrestate) and a
// block file with the transaction and its receipt — and replays it offline.
// The receipt comes from go-ethereum itself (core.ApplyTransaction on a
// go-ethereum StateDB of the fixture's alloc), not from AFR, so a replay
// whose status, gas, cumulative gas, logs or created address differ from
// go-ethereum's fails. Each subtest logs a "conformance-replay" line for the
// table in docs/CONFORMANCE.md.
func TestConformanceReplay(t *testing.T) {
	fixtures, err := gethfixtures.Load(gethfixtures.Folders...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures {
		t.Run(f.Name(), func(t *testing.T) {
			t.Parallel()
			tx, err := f.Tx()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			header := fixtureHeader(f, tx)
			receipt, root := gethReceipt(t, f, header, tx)
			if f.CallTrace() {
				var top struct {
					GasUsed *hexutil.Uint64 `json:"gasUsed"`
				}
				if err := json.Unmarshal(f.Result, &top); err != nil {
					t.Fatal(err)
				}
				if top.GasUsed == nil || uint64(*top.GasUsed) != receipt.GasUsed {
					t.Fatalf("go-ethereum's receipt used %d gas, the fixture's top frame %v", receipt.GasUsed, top.GasUsed)
				}
			}
			hash := sealHeader(header, tx, receipt, root)
			writeFixtureBlock(t, f, dir, header, tx, receipt, hash)
			err = writeFixturePrestate(f, dir)
			var res *ReplayResult
			if err == nil {
				res, err = Replay(context.Background(), "", tx.Hash(), &ReplayOptions{
					Mode: evm.ReplayOnly, CacheDir: dir, ChainConfig: f.Genesis.Config, AbsentIsEmpty: true,
				})
			}
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if !res.Fidelity.OK || res.BlockHash != hash || res.Stats.Requests != 0 || res.Receipt.GasUsed != receipt.GasUsed {
				t.Fatalf("replay: fidelity %+v, block %s (want %s), %d requests, receipt gas %d (want %d)",
					res.Fidelity, res.BlockHash.Hex(), hash.Hex(), res.Stats.Requests, res.Receipt.GasUsed, receipt.GasUsed)
			}
			t.Logf("conformance-replay\t%s\treplay fidelity OK (gas %d, %s)", f.Name(), receipt.GasUsed, gethfixtures.Count(len(receipt.Logs), "log"))
		})
	}
}

// fixtureHeader is the header of the fixture's block as far as execution
// reads it (the fixture gives no more): number, parent, time, gas limit,
// miner, difficulty, mixHash, base fee from London, excess and used blob
// gas from Cancun.
func fixtureHeader(f *gethfixtures.Fixture, tx *types.Transaction) *types.Header {
	b := f.Block()
	h := &types.Header{
		ParentHash: f.ParentHash(),
		UncleHash:  types.EmptyUncleHash,
		Coinbase:   b.Coinbase,
		Difficulty: new(big.Int),
		Number:     new(big.Int).SetUint64(b.Number),
		GasLimit:   b.GasLimit,
		Time:       b.Time,
		MixDigest:  b.PrevRandao,
		BaseFee:    b.BaseFee,
		TxHash:     types.DeriveSha(types.Transactions{tx}, trie.NewStackTrie(nil)),
	}
	if b.Difficulty != nil {
		h.Difficulty.Set(b.Difficulty)
	}
	if h.ExcessBlobGas = f.ExcessBlobGas(); h.ExcessBlobGas != nil {
		used := tx.BlobGas()
		h.BlobGasUsed = &used
	}
	return h
}

// sealHeader completes the header with the execution's results and returns
// its hash, which the receipt and its logs then carry (the block hash is not
// an input of execution).
func sealHeader(h *types.Header, tx *types.Transaction, rc *types.Receipt, root common.Hash) common.Hash {
	h.Root = root
	h.GasUsed = rc.CumulativeGasUsed
	h.ReceiptHash = types.DeriveSha(types.Receipts{rc}, trie.NewStackTrie(nil))
	h.Bloom = types.CreateBloom(rc)
	hash := h.Hash()
	rc.BlockHash = hash
	for _, l := range rc.Logs {
		l.BlockHash = hash
	}
	return hash
}

// headerChain is the chain go-ethereum's block context reads: the config,
// and no headers beyond the parent hash the header carries.
type headerChain struct{ config *params.ChainConfig }

func (c headerChain) Config() *params.ChainConfig                 { return c.config }
func (c headerChain) CurrentHeader() *types.Header                { return nil }
func (c headerChain) GetHeader(common.Hash, uint64) *types.Header { return nil }
func (c headerChain) GetHeaderByNumber(uint64) *types.Header      { return nil }
func (c headerChain) GetHeaderByHash(common.Hash) *types.Header   { return nil }
func (c headerChain) Engine() consensus.Engine                    { return nil }
func (c headerChain) String() string                              { return "fixture chain" }
func (c headerChain) blockContext(h *types.Header) vm.BlockContext {
	return core.NewEVMBlockContext(h, c, &h.Coinbase)
}

// gethReceipt executes the fixture's transaction with go-ethereum alone: a
// StateDB holding the alloc (committed and reopened, as go-ethereum's own
// fixture harness builds it), the block context of core.NewEVMBlockContext
// and core.ApplyTransaction. It returns the receipt and the post-state root.
func gethReceipt(t *testing.T, f *gethfixtures.Fixture, h *types.Header, tx *types.Transaction) (*types.Receipt, common.Hash) {
	t.Helper()
	memdb := rawdb.NewMemoryDatabase()
	sdb := state.NewDatabase(triedb.NewDatabase(memdb, nil), state.NewCodeDB(memdb))
	st, err := state.New(types.EmptyRootHash, sdb)
	if err != nil {
		t.Fatal(err)
	}
	for addr, a := range f.Genesis.Alloc {
		st.SetCode(addr, a.Code, tracing.CodeChangeGenesis)
		st.SetNonce(addr, a.Nonce, tracing.NonceChangeGenesis)
		st.SetBalance(addr, uint256.MustFromBig(a.Balance), tracing.BalanceIncreaseGenesisBalance)
		for k, v := range a.Storage {
			st.SetState(addr, k, v)
		}
	}
	root, err := st.Commit(params.Rules{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st, err = state.New(root, sdb); err != nil {
		t.Fatal(err)
	}
	chain := headerChain{f.Genesis.Config}
	vmenv := vm.NewEVM(chain.blockContext(h), st, chain.config, vm.Config{})
	st.SetTxContext(tx.Hash(), 0, 0)
	rc, _, err := core.ApplyTransaction(context.Background(), vmenv, core.NewGasPool(h.GasLimit), st, h, tx)
	if err != nil {
		t.Fatalf("go-ethereum: apply transaction: %v", err)
	}
	rc.EffectiveGasPrice = vmenv.TxContext.GasPrice.ToBig()
	return rc, st.IntermediateRoot(vmenv.GetRules())
}

// writeFixtureBlock writes the block file of the fixture's block: the block
// in the shape of eth_getBlockByNumber(n, true) and the receipt in that of
// eth_getBlockReceipts.
func writeFixtureBlock(t *testing.T, f *gethfixtures.Fixture, dir string, h *types.Header, tx *types.Transaction, rc *types.Receipt, hash common.Hash) {
	t.Helper()
	chainID := f.Genesis.Config.ChainID.Uint64()
	from, err := types.Sender(types.MakeSigner(f.Genesis.Config, h.Number, h.Time), tx)
	if err != nil {
		t.Fatal(err)
	}
	rpcTx := jsonObject(t, tx)
	rpcTx["from"] = from
	rpcTx["blockHash"] = hash
	rpcTx["blockNumber"] = (*hexutil.Big)(h.Number)
	rpcTx["transactionIndex"] = hexutil.Uint64(0)
	block := jsonObject(t, h)
	block["transactions"] = []any{rpcTx}

	receipt := jsonObject(t, rc)
	receipt["from"] = from
	receipt["to"] = tx.To()
	if tx.To() != nil {
		receipt["contractAddress"] = nil
	}
	if len(rc.PostState) > 0 {
		delete(receipt, "status") // before Byzantium: a root, no status
	} else {
		delete(receipt, "root")
	}
	bf := &blockFile{Format: blockFormat, Version: blockVersion, ChainID: chainID,
		Block: jsonRaw(t, block), Receipts: []json.RawMessage{jsonRaw(t, receipt)}}
	if err := writeBlockFile(BlockPath(dir, chainID, h.Number.Uint64()), bf); err != nil {
		t.Fatal(err)
	}
}

// writeFixturePrestate writes the fixture's alloc as the fork cache at the
// parent block, with the parent's header fields.
func writeFixturePrestate(f *gethfixtures.Fixture, dir string) error {
	cfg := f.Genesis.Config
	ph := f.ParentHeader()
	parent := evm.Block{
		Number: ph.Number.Uint64(), Time: ph.Time, GasLimit: ph.GasLimit, Coinbase: ph.Coinbase,
		Difficulty: ph.Difficulty, PrevRandao: ph.MixDigest, Hash: f.ParentHash(),
	}
	if cfg.IsLondon(ph.Number) {
		parent.BaseFee = ph.BaseFee
	}
	var excess *uint64
	if cfg.IsCancun(ph.Number, ph.Time) && cfg.BlobScheduleConfig != nil {
		excess = ph.ExcessBlobGas
	}
	chainID := cfg.ChainID.Uint64()
	p := evm.Prestate{ChainID: chainID, ChainConfig: cfg, Block: parent, ExcessBlobGas: excess,
		ParentHash: f.Genesis.ParentHash, Alloc: f.Genesis.Alloc}
	return evm.WritePrestate(evm.CachePath(filepath.Join(dir, "forks"), chainID, parent.Number), p)
}

// jsonObject is v's JSON as an object without its null fields (RPC answers
// leave absent fields out).
func jsonObject(t *testing.T, v any) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(jsonRaw(t, v), &m); err != nil {
		t.Fatal(err)
	}
	for k, x := range m {
		if x == nil {
			delete(m, k)
		}
	}
	return m
}

func jsonRaw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(fmt.Errorf("marshal %T: %w", v, err))
	}
	return b
}
