package evm

//go:generate go run ../contracts/internal/solcgen -root .. -evm-version cancun -out testdata/contracts.json testdata/Store.sol

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/anvil/anviltest"
)

type compiled struct {
	ABI      abi.ABI
	Bytecode []byte
	Runtime  []byte
}

var (
	contractsOnce sync.Once
	contracts     map[string]compiled
)

// contract loads a compiled test contract from testdata/contracts.json.
func contract(t testing.TB, name string) compiled {
	t.Helper()
	contractsOnce.Do(func() {
		raw, err := os.ReadFile("testdata/contracts.json")
		if err != nil {
			panic(err)
		}
		var m map[string]struct {
			ABI              json.RawMessage `json:"abi"`
			Bytecode         hexutil.Bytes   `json:"bytecode"`
			DeployedBytecode hexutil.Bytes   `json:"deployedBytecode"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			panic(err)
		}
		contracts = map[string]compiled{}
		for k, v := range m {
			a, err := abi.JSON(strings.NewReader(string(v.ABI)))
			if err != nil {
				panic(err)
			}
			contracts[k] = compiled{ABI: a, Bytecode: v.Bytecode, Runtime: v.DeployedBytecode}
		}
	})
	c, ok := contracts[name]
	if !ok {
		t.Fatalf("no contract %s in testdata", name)
	}
	return c
}

func (c compiled) pack(t testing.TB, method string, args ...any) []byte {
	t.Helper()
	b, err := c.ABI.Pack(method, args...)
	if err != nil {
		t.Fatalf("pack %s: %v", method, err)
	}
	return b
}

func (c compiled) unpackBig(t testing.TB, method string, out []byte) *big.Int {
	t.Helper()
	v, err := c.ABI.Unpack(method, out)
	if err != nil {
		t.Fatalf("unpack %s(0x%x): %v", method, out, err)
	}
	return v[0].(*big.Int)
}

// chain is a test's view of a running anvil.
type chain struct {
	t    testing.TB
	node *anvil.Node
	rpc  *rpc.Client
}

func startChain(t testing.TB, opts anvil.Options) *chain {
	t.Helper()
	n := anviltest.Start(t, opts)
	c, err := rpc.Dial(n.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &chain{t: t, node: n, rpc: c}
}

func (c *chain) call(result any, method string, args ...any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.rpc.CallContext(ctx, result, method, args...); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// send submits a transaction from an unlocked dev account; anvil mines it
// at once. It returns the receipt.
func (c *chain) send(from common.Address, to *common.Address, data []byte, value *big.Int) *types.Receipt {
	c.t.Helper()
	tx := map[string]any{"from": from, "data": hexutil.Bytes(data), "gas": hexutil.Uint64(5_000_000)}
	if to != nil {
		tx["to"] = *to
	}
	if value != nil {
		tx["value"] = (*hexutil.Big)(value)
	}
	var hash common.Hash
	c.call(&hash, "eth_sendTransaction", tx)
	var r *types.Receipt
	for i := 0; i < 500 && r == nil; i++ {
		c.call(&r, "eth_getTransactionReceipt", hash)
		if r == nil {
			time.Sleep(2 * time.Millisecond)
		}
	}
	if r == nil {
		c.t.Fatalf("no receipt for %s", hash.Hex())
	}
	return r
}

func (c *chain) blockNumber() uint64 {
	c.t.Helper()
	var n hexutil.Uint64
	c.call(&n, "eth_blockNumber")
	return uint64(n)
}

// ethCall is eth_call at block with optional override arguments (JSON).
func (c *chain) ethCall(msg ethereum.CallMsg, block uint64, extra ...any) ([]byte, error) {
	arg := map[string]any{"from": msg.From, "data": hexutil.Bytes(msg.Data)}
	if msg.To != nil {
		arg["to"] = *msg.To
	}
	if msg.Gas != 0 {
		arg["gas"] = hexutil.Uint64(msg.Gas)
	}
	var out hexutil.Bytes
	args := append([]any{arg, hexutil.Uint64(block)}, extra...)
	err := c.rpc.CallContext(context.Background(), &out, "eth_call", args...)
	return out, err
}

func mustJSON(t testing.TB, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
}

// slotOf returns the storage slot of Store.data[key] (mapping at slot 2).
func slotOf(key uint64) common.Hash {
	return mappingSlot(common.BigToHash(new(big.Int).SetUint64(key)), 2)
}

func mappingSlot(key common.Hash, slot uint64) common.Hash {
	var buf [64]byte
	copy(buf[:32], key[:])
	new(big.Int).SetUint64(slot).FillBytes(buf[32:])
	return common.BytesToHash(keccak(buf[:]))
}

func keccak(b []byte) []byte { return crypto.Keccak256(b) }
