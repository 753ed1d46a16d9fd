package evm

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// initcode returns creation code that deploys runtime unchanged.
func initcode(runtime []byte) []byte {
	n := byte(len(runtime))
	// PUSH1 n DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN
	return append([]byte{0x60, n, 0x80, 0x60, 11, 0x60, 0, 0x39, 0x60, 0, 0xf3}, runtime...)
}

// randomness is runtime code returning DIFFICULTY (PREVRANDAO since the
// merge) as a 32-byte word; it uses no opcode newer than Frontier.
var randomness = []byte{0x44, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3}

// mainnetEras are blocks of every era of mainnet, with the difficulty a
// proof-of-work block of the time had (zero since the merge).
var mainnetEras = []struct {
	name       string
	number     uint64
	time       uint64
	difficulty int64
	baseFee    int64
}{
	{"frontier", 100_000, 1_438_270_000, 1_000_000, 0},
	{"homestead", 1_200_000, 1_458_000_000, 2_000_000, 0},
	{"byzantium", 4_400_000, 1_508_200_000, 3_000_000, 0},
	{"istanbul", 9_100_000, 1_576_000_000, 4_000_000, 0},
	{"london", 13_000_000, 1_629_000_000, 5_000_000, 40_000_000_000},
	{"paris", 15_600_000, 1_664_000_000, 0, 10_000_000_000},
	{"shanghai", 17_100_000, 1_682_000_000, 0, 20_000_000_000},
	{"cancun", 19_500_000, 1_711_000_000, 0, 20_000_000_000},
	{"prague", 22_500_000, 1_747_000_000, 0, 1_000_000_000},
}

// Every era of mainnet deploys, transacts and calls under its own rules: a
// legacy transaction before Cancun carries no blob fields (before the fix
// every one failed with "transaction type not supported: blob tx"), and
// DIFFICULTY reads the block's difficulty before the merge and PREVRANDAO
// after it.
func TestMainnetErasExecute(t *testing.T) {
	ctx := context.Background()
	mix := common.HexToHash("0x6d6978")
	for _, era := range mainnetEras {
		t.Run(era.name, func(t *testing.T) {
			b := Block{Number: era.number, Time: era.time, GasLimit: 15_000_000, PrevRandao: mix}
			if era.difficulty != 0 {
				b.Difficulty = big.NewInt(era.difficulty)
			}
			if era.baseFee != 0 {
				b.BaseFee = big.NewInt(era.baseFee)
			}
			e, err := New(Config{ChainConfig: params.MainnetChainConfig, Block: &b, FundedAccounts: 1})
			if err != nil {
				t.Fatal(err)
			}
			from := e.Accounts()[0].Address
			price := big.NewInt(era.baseFee + 1)
			res, err := e.Transact(ctx, ethereum.CallMsg{From: from, Data: initcode(randomness), GasPrice: price}, nil)
			if err != nil || res.Failed() {
				t.Fatalf("deploy: %v %v", err, res)
			}
			addr := res.ContractAddress
			if res, err = e.Transact(ctx, ethereum.CallMsg{From: from, To: &addr, GasPrice: price}, nil); err != nil || res.Failed() {
				t.Fatalf("transaction: %v %v", err, res)
			}
			res, err = e.Call(ctx, ethereum.CallMsg{From: from, To: &addr}, nil)
			if err != nil || res.Failed() {
				t.Fatalf("call: %v %v", err, res)
			}
			want := mix
			if era.difficulty != 0 {
				want = common.BigToHash(big.NewInt(era.difficulty))
			}
			if got := common.BytesToHash(res.ReturnData); got != want {
				t.Fatalf("DIFFICULTY/PREVRANDAO = %s, want %s", got.Hex(), want.Hex())
			}
		})
	}
}

// A creation that fails still has the address a receipt records.
func TestFailedCreationHasAddress(t *testing.T) {
	ctx := context.Background()
	e, err := New(Config{FundedAccounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	from := e.Accounts()[0].Address
	// PUSH1 0 PUSH1 0 REVERT
	res, err := e.Transact(ctx, ethereum.CallMsg{From: from, Data: []byte{0x60, 0, 0x60, 0, 0xfd}}, nil)
	if err != nil || !res.Failed() {
		t.Fatalf("reverting creation: %v %+v", err, res)
	}
	if want := crypto.CreateAddress(from, 0); res.ContractAddress != want {
		t.Fatalf("ContractAddress = %s, want %s", res.ContractAddress.Hex(), want.Hex())
	}
}

// Under Frontier rules a creation whose code deposit runs out of gas
// succeeds with no code and keeps its logs; from Homestead on it fails.
func TestFrontierCodeStoreOutOfGas(t *testing.T) {
	ctx := context.Background()
	// Initcode: LOG0 of nothing, then return 64 bytes of zero code (12,800
	// gas of code deposit).
	code := []byte{0x60, 0, 0x60, 0, 0xa0, 0x60, 64, 0x60, 0, 0xf3}
	run := func(number uint64, gas uint64) *Result {
		t.Helper()
		b := Block{Number: number, Time: 1_450_000_000, GasLimit: 3_000_000, Difficulty: big.NewInt(1_000_000)}
		e, err := New(Config{ChainConfig: params.MainnetChainConfig, Block: &b, FundedAccounts: 1})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Transact(ctx, ethereum.CallMsg{From: e.Accounts()[0].Address, Data: code, Gas: gas, GasPrice: big.NewInt(1)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.ContractAddress != crypto.CreateAddress(e.Accounts()[0].Address, 0) {
			t.Fatalf("ContractAddress = %s", res.ContractAddress.Hex())
		}
		return res
	}
	full := run(100_000, 1_000_000)
	if full.Failed() || len(full.Logs) != 1 {
		t.Fatalf("with enough gas: %+v", full)
	}
	short := full.GasUsed - 64*params.CreateDataGas + 100 // execution fits, the deposit does not
	frontier := run(100_000, short)
	if frontier.Failed() || len(frontier.Logs) != 1 || frontier.GasUsed != full.GasUsed-64*params.CreateDataGas {
		t.Fatalf("Frontier: want success without code deposit, with the log; got err %v, %d logs, gas %d", frontier.Err, len(frontier.Logs), frontier.GasUsed)
	}
	homestead := run(1_200_000, short+32_000) // Homestead charges 32,000 more for a creation
	if !homestead.Failed() || len(homestead.Logs) != 0 {
		t.Fatalf("Homestead: want a failed creation without logs; got err %v, %d logs", homestead.Err, len(homestead.Logs))
	}
	// The EVM's own error text, as receipts and call traces show it (as a
	// revert's "execution reverted" is), with no package prefix.
	if got := homestead.Err.Error(); got != "contract creation code storage out of gas" {
		t.Fatalf("Homestead: error text %q", got)
	}
}

// A chain whose rules do not include the merge (a development chain on
// London) can make blocks of zero difficulty: they are proof-of-work
// blocks, where DIFFICULTY reads zero, not the mixHash, and the gas rules
// are London's.
func TestZeroDifficultyBeforeTheMerge(t *testing.T) {
	ctx := context.Background()
	london, err := HardforkConfig("london", 31337)
	if err != nil {
		t.Fatal(err)
	}
	b := Block{Number: 3, Time: 1_700_000_000, GasLimit: 30_000_000, PrevRandao: common.HexToHash("0x6d6978")}
	e, err := New(Config{ChainConfig: london, Block: &b, FundedAccounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	from := e.Accounts()[0].Address
	res, err := e.Transact(ctx, ethereum.CallMsg{From: from, Data: initcode(randomness)}, nil)
	if err != nil || res.Failed() {
		t.Fatalf("deploy: %v %v", err, res)
	}
	addr := res.ContractAddress
	if res, err = e.Call(ctx, ethereum.CallMsg{From: from, To: &addr}, nil); err != nil || common.BytesToHash(res.ReturnData) != (common.Hash{}) {
		t.Fatalf("DIFFICULTY on a zero-difficulty London block = %x (%v), want 0", res.ReturnData, err)
	}
}

// In fork mode BLOCKHASH answers the real header hashes of the forked
// chain: the pinned block's parent from its header, older ones fetched.
func TestForkBlockHashIsReal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts anvil (-short)")
	}
	c := startChain(t, anvil.Options{})
	c.call(nil, "anvil_mine", hexutil.Uint64(6))
	var head struct {
		Number hexutil.Uint64 `json:"number"`
	}
	c.call(&head, "eth_getBlockByNumber", "latest", false)
	fork, err := OpenFork(context.Background(), ForkConfig{URL: c.node.URL(), Block: fmt.Sprint(uint64(head.Number))})
	if err != nil {
		t.Fatal(err)
	}
	defer fork.Close()
	e, err := New(Config{Fork: fork})
	if err != nil {
		t.Fatal(err)
	}
	// PUSH1 k NUMBER SUB BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN:
	// the hash of block NUMBER-k.
	probe := common.HexToAddress("0xb10c4a54")
	for _, k := range []uint64{1, 3} {
		code := hexutil.Bytes{0x60, byte(k), 0x43, 0x03, 0x40, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3}
		res, err := e.Call(context.Background(), ethereum.CallMsg{To: &probe}, &CallOptions{State: StateOverride{probe: {Code: &code}}})
		if err != nil || res.Failed() {
			t.Fatal(err, res)
		}
		var blk struct {
			Hash common.Hash `json:"hash"`
		}
		c.call(&blk, "eth_getBlockByNumber", hexutil.Uint64(uint64(head.Number)-k), false)
		if got := common.BytesToHash(res.ReturnData); got != blk.Hash || got == (common.Hash{}) {
			t.Fatalf("BLOCKHASH(NUMBER-%d) = %s, the chain says %s", k, got.Hex(), blk.Hash.Hex())
		}
	}
}
