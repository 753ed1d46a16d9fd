package evm

import (
	"context"
	"errors"
	"math/big"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

var (
	preRich     = common.HexToAddress("0x1000000000000000000000000000000000000001")
	preContract = common.HexToAddress("0x1000000000000000000000000000000000000002")
	preAbsent   = common.HexToAddress("0x1000000000000000000000000000000000000003")
	// Returns the opcode's word: <op> PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
	opDifficulty = []byte{0x44, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3}
)

func samplePrestate(t *testing.T, fork string, difficulty int64) Prestate {
	t.Helper()
	chain, err := HardforkConfig(fork, 4321)
	if err != nil {
		t.Fatal(err)
	}
	p := Prestate{
		ChainID: 4321, ChainConfig: chain, ParentHash: common.HexToHash("0xfeed"),
		Block: Block{
			Number: 100, Time: 1_600_000_000, GasLimit: 8_000_000, BaseFee: big.NewInt(11),
			Coinbase: common.HexToAddress("0xc01b"), PrevRandao: common.HexToHash("0x5eed"), Hash: common.HexToHash("0xb100"),
		},
		Alloc: types.GenesisAlloc{
			preRich: {Balance: big.NewInt(5e18), Nonce: 7},
			preContract: {Code: opDifficulty, Nonce: 1,
				Storage: map[common.Hash]common.Hash{common.HexToHash("0x01"): common.HexToHash("0xabcd")}},
		},
	}
	if difficulty != 0 {
		p.Block.Difficulty = big.NewInt(difficulty)
	}
	return p
}

func openPrestate(t *testing.T, p Prestate, absentIsEmpty bool) (*Fork, *Env) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pre.json")
	if err := WritePrestate(path, p); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFork(context.Background(), ForkConfig{Mode: ReplayOnly, CachePath: path, AbsentIsEmpty: absentIsEmpty})
	if err != nil {
		t.Fatal(err)
	}
	env, err := New(Config{Fork: f})
	if err != nil {
		t.Fatal(err)
	}
	return f, env
}

// TestPrestateRoundTrip: the state, block and rules written are the ones read.
func TestPrestateRoundTrip(t *testing.T) {
	p := samplePrestate(t, "cancun", 0)
	excess := uint64(100 * params.BlobTxBlobGasPerBlob)
	p.ExcessBlobGas = &excess
	f, env := openPrestate(t, p, true)
	if !reflect.DeepEqual(env.ChainConfig(), p.ChainConfig) || f.RulesSource() != "fork cache chain_config" {
		t.Errorf("rules %v from %q", env.ChainConfig(), f.RulesSource())
	}
	wantFee := eip4844.CalcBlobFee(p.ChainConfig, &types.Header{Number: big.NewInt(100), Time: p.Block.Time, ExcessBlobGas: &excess})
	want := p.Block
	want.BlobBaseFee = wantFee
	if got := env.Block(); !reflect.DeepEqual(got, want) {
		t.Errorf("block\n%+v\nwant\n%+v", got, want)
	}
	if wantFee.Cmp(big.NewInt(1)) <= 0 {
		t.Errorf("blob base fee %v does not show the excess blob gas", wantFee)
	}
	for addr, a := range p.Alloc {
		bal, err := env.Balance(addr)
		if err != nil || bal.Cmp(orZero(a.Balance)) != 0 {
			t.Errorf("balance of %s: %v, %v", addr.Hex(), bal, err)
		}
		if n, err := env.Nonce(addr); err != nil || n != a.Nonce {
			t.Errorf("nonce of %s: %d, %v", addr.Hex(), n, err)
		}
		if code, err := env.Code(addr); err != nil || string(code) != string(a.Code) {
			t.Errorf("code of %s: %x, %v", addr.Hex(), code, err)
		}
		for k, v := range a.Storage {
			if got, err := env.Storage(addr, k); err != nil || got != v {
				t.Errorf("storage %s of %s: %s, %v", k.Hex(), addr.Hex(), got.Hex(), err)
			}
		}
	}
	if got, err := env.Storage(preContract, common.HexToHash("0x02")); err != nil || got != (common.Hash{}) {
		t.Errorf("unset slot: %s, %v", got.Hex(), err)
	}
	if bal, err := env.Balance(preAbsent); err != nil || bal.Sign() != 0 {
		t.Errorf("absent account: %v, %v", bal, err)
	}

	for name, mutate := range map[string]func(*Prestate){
		"no chain id":      func(p *Prestate) { p.ChainID = 0 },
		"no rules":         func(p *Prestate) { p.ChainConfig = nil },
		"rules of another": func(p *Prestate) { p.ChainConfig, _ = HardforkConfig("cancun", 1) },
		"no block hash":    func(p *Prestate) { p.Block.Hash = common.Hash{} },
		"blob fee given":   func(p *Prestate) { p.Block.BlobBaseFee = big.NewInt(1) },
		"negative balance": func(p *Prestate) { p.Alloc[preRich] = types.Account{Balance: big.NewInt(-1)} },
		"no blob schedule": func(p *Prestate) { p.ChainConfig.BlobScheduleConfig = nil },
	} {
		q := samplePrestate(t, "cancun", 0)
		q.ExcessBlobGas = &excess
		mutate(&q)
		if err := WritePrestate(filepath.Join(t.TempDir(), "x.json"), q); err == nil {
			t.Errorf("%s: written", name)
		}
	}
}

func orZero(b *big.Int) *big.Int {
	if b == nil {
		return new(big.Int)
	}
	return b
}

// TestAbsentIsEmpty: only a pre-state cache reads what it lacks as empty;
// block hashes it lacks are still misses.
func TestAbsentIsEmpty(t *testing.T) {
	p := samplePrestate(t, "shanghai", 0)
	_, plain := openPrestate(t, p, false)
	if _, err := plain.Balance(preAbsent); !errors.Is(err, ErrNotInCache) {
		t.Errorf("plain replay of an absent account: %v, want a MissError", err)
	}
	_, plain = openPrestate(t, p, false)
	if _, err := plain.Storage(preContract, common.HexToHash("0x02")); !errors.Is(err, ErrNotInCache) {
		t.Errorf("plain replay of an absent slot: %v, want a MissError", err)
	}
	_, env := openPrestate(t, p, true)
	if bal, err := env.Balance(preAbsent); err != nil || bal.Sign() != 0 {
		t.Errorf("absent account: %v, %v", bal, err)
	}
	if v, err := env.Storage(preContract, common.HexToHash("0x02")); err != nil || v != (common.Hash{}) {
		t.Errorf("absent slot: %s, %v", v.Hex(), err)
	}
	// BLOCKHASH(98): PUSH1 98 BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN.
	code := []byte{0x60, 98, 0x40, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3}
	_, err := env.Call(context.Background(), ethereum.CallMsg{From: preRich, Data: code}, nil)
	if !errors.Is(err, ErrNotInCache) {
		t.Errorf("BLOCKHASH of an unrecorded block: %v, want a MissError", err)
	}

	path := filepath.Join(t.TempDir(), "pre.json")
	if err := WritePrestate(path, p); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{Live, Record} {
		_, err := OpenFork(context.Background(), ForkConfig{URL: "http://127.0.0.1:1", Block: "100", Mode: mode, CachePath: path, AbsentIsEmpty: true})
		if err == nil || !strings.Contains(err.Error(), "AbsentIsEmpty") {
			t.Errorf("%s with AbsentIsEmpty: %v", mode, err)
		}
	}
}

// TestPrestateDifficultyAndRandao: opcode 0x44 reads a proof-of-work
// block's difficulty and a merged block's mixHash.
func TestPrestateDifficultyAndRandao(t *testing.T) {
	ctx := context.Background()
	msg := ethereum.CallMsg{From: preRich, To: &preContract}

	pow := samplePrestate(t, "london", 131_072)
	_, env := openPrestate(t, pow, true)
	res, err := env.Call(ctx, msg, nil)
	if err != nil || res.Err != nil {
		t.Fatalf("call: %v %v", err, res)
	}
	if got := new(big.Int).SetBytes(res.ReturnData); got.Cmp(pow.Block.Difficulty) != 0 {
		t.Errorf("DIFFICULTY read %v, want %v", got, pow.Block.Difficulty)
	}

	merged := samplePrestate(t, "shanghai", 0)
	_, env = openPrestate(t, merged, true)
	res, err = env.Call(ctx, msg, nil)
	if err != nil || res.Err != nil {
		t.Fatalf("call: %v %v", err, res)
	}
	if got := common.BytesToHash(res.ReturnData); got != merged.Block.PrevRandao {
		t.Errorf("PREVRANDAO read %s, want %s", got.Hex(), merged.Block.PrevRandao.Hex())
	}
}

// TestPrestateEmptyAccountExists: an empty account of the alloc exists in the
// pre-state cache as in a state built from the alloc, so before Spurious
// Dragon a CALL to it is not charged for creating it (go-ethereum's
// Frontier mainnet fixtures call such an account, the identity precompile's
// address; WritePrestate used to leave it out and the replay cost 25000 gas
// more per call).
func TestPrestateEmptyAccountExists(t *testing.T) {
	empty := common.HexToAddress("0x1000000000000000000000000000000000000004")
	// PUSH1 0 (out size, out offset, in size, in offset, value) PUSH20 empty PUSH2 0xffff CALL STOP
	code := append([]byte{0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x73}, empty.Bytes()...)
	code = append(code, 0x61, 0xff, 0xff, 0xf1, 0x00)
	gasUsed := func(t *testing.T, withEmpty, fromCache bool) uint64 {
		p := samplePrestate(t, "frontier", 1000)
		p.Block.BaseFee = nil
		p.Alloc[preContract] = types.Account{Code: code}
		if withEmpty {
			p.Alloc[empty] = types.Account{Balance: new(big.Int)}
		}
		var env *Env
		if fromCache {
			_, env = openPrestate(t, p, true)
		} else {
			var err error
			if env, err = New(Config{ChainConfig: p.ChainConfig, Alloc: p.Alloc, Block: &p.Block}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := env.Transact(context.Background(), ethereum.CallMsg{From: preRich, To: &preContract, Gas: 200_000}, nil)
		if err != nil || res.Failed() {
			t.Fatalf("transact: %v %v", err, res)
		}
		return res.GasUsed
	}
	existing, absent := gasUsed(t, true, true), gasUsed(t, false, true)
	if existing+params.CallNewAccountGas != absent {
		t.Errorf("pre-state cache: CALL to a listed empty account used %d gas, to an absent one %d; want a difference of %d", existing, absent, params.CallNewAccountGas)
	}
	if alloc := gasUsed(t, true, false); alloc != existing {
		t.Errorf("CALL to a listed empty account: %d gas from the pre-state cache, %d from Config.Alloc", existing, alloc)
	}
}
