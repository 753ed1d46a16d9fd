package evm

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// newLocal returns a local Env with two funded accounts and a deployed Store.
func newLocal(t testing.TB) (*Env, common.Address, compiled) {
	t.Helper()
	e, err := New(Config{FundedAccounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	store := contract(t, "Store")
	res, err := e.Deploy(context.Background(), e.Accounts()[0].Address, store.Bytecode, big.NewInt(1000))
	if err != nil || res.Failed() {
		t.Fatalf("deploy: %v %v", err, res.Err)
	}
	return e, res.ContractAddress, store
}

func TestDeployCallTransact(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	from := e.Accounts()[0].Address

	code, err := e.Code(addr)
	if err != nil || string(code) != string(store.Runtime) {
		t.Fatalf("deployed code differs from the compiled runtime code (err %v)", err)
	}
	if b, _ := e.Balance(addr); b.Int64() != 1000 {
		t.Fatalf("contract balance = %v, want 1000", b)
	}
	if n, _ := e.Nonce(from); n != 1 {
		t.Fatalf("deployer nonce = %d, want 1", n)
	}

	res, err := e.Transact(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "set", big.NewInt(7), big.NewInt(42))}, nil)
	if err != nil || res.Failed() {
		t.Fatalf("set: %v %v", err, res.Err)
	}
	if res.GasUsed < 21_000+20_000 {
		t.Fatalf("set used %d gas, want more than 41000 (two fresh SSTOREs)", res.GasUsed)
	}
	if len(res.Logs) != 1 || res.Logs[0].Address != addr || res.Logs[0].Topics[0] != store.ABI.Events["Set"].ID {
		t.Fatalf("logs = %+v, want one Set event from the store", res.Logs)
	}
	if got := new(big.Int).SetBytes(res.Logs[0].Topics[1][:]); got.Int64() != 7 {
		t.Fatalf("Set key topic = %v, want 7", got)
	}
	if v, _ := e.Storage(addr, slotOf(7)); v != common.BigToHash(big.NewInt(42)) {
		t.Fatalf("data[7] slot = %s, want 42", v.Hex())
	}

	call := ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "get", big.NewInt(7))}
	res, err = e.Call(ctx, call, nil)
	if err != nil || res.Failed() {
		t.Fatalf("get: %v %v", err, res.Err)
	}
	if got := store.unpackBig(t, "get", res.ReturnData); got.Int64() != 42 {
		t.Fatalf("get(7) = %v, want 42", got)
	}

	// Calls change nothing, not even the nonce.
	res, err = e.Call(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "set", big.NewInt(7), big.NewInt(1))}, nil)
	if err != nil || res.Failed() || len(res.Logs) != 1 {
		t.Fatalf("call set: %v %+v", err, res)
	}
	if v, _ := e.Storage(addr, slotOf(7)); v != common.BigToHash(big.NewInt(42)) {
		t.Fatalf("a call changed storage: data[7] = %s", v.Hex())
	}
	if n, _ := e.Nonce(from); n != 2 {
		t.Fatalf("nonce = %d after one deploy and one transaction, want 2", n)
	}
}

func TestRevertReasons(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	from := e.Accounts()[1].Address
	deniedID := store.ABI.Errors["Denied"].ID
	for _, tc := range []struct {
		code   int64
		reason string
	}{
		{0, "store: code is zero"},
		{1, "panic 0x12: division or modulo by zero"},
		{5, "custom error 0x" + hexutil.Encode(deniedID[:4])[2:]},
	} {
		res, err := e.Call(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "fail", big.NewInt(tc.code))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var re *RevertError
		if !errors.As(res.Err, &re) || !errors.Is(res.Err, vm.ErrExecutionReverted) {
			t.Fatalf("fail(%d): Err = %v, want a RevertError", tc.code, res.Err)
		}
		if re.Reason != tc.reason || re.To != addr {
			t.Fatalf("fail(%d): reason %q at %s, want %q at %s", tc.code, re.Reason, re.To, tc.reason, addr)
		}
		if tc.code == 5 {
			args, err := store.ABI.Errors["Denied"].Inputs.Unpack(re.Data[4:])
			if err != nil || args[0].(common.Address) != from || args[1].(*big.Int).Int64() != 5 {
				t.Fatalf("Denied args = %v (%v), want (%s, 5)", args, err, from.Hex())
			}
		}
	}
	// Out of gas is an execution error, not a revert.
	res, err := e.Call(ctx, ethereum.CallMsg{From: from, To: &addr, Gas: 30_000, Data: store.pack(t, "fill", big.NewInt(10), big.NewInt(1))}, nil)
	if err != nil || !errors.Is(res.Err, vm.ErrOutOfGas) {
		t.Fatalf("fill with 30000 gas: err %v, Err %v; want out of gas", err, res.Err)
	}
	// A message that cannot execute at all is the error result.
	poor := common.HexToAddress("0x1234")
	if _, err := e.Transact(ctx, ethereum.CallMsg{From: poor, To: &addr, Value: big.NewInt(1)}, nil); err == nil || !strings.Contains(err.Error(), "insufficient funds") {
		t.Fatalf("transfer from an empty account: err %v, want insufficient funds", err)
	}
}

func TestSnapshotRevert(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	from := e.Accounts()[0].Address
	set := func(v int64) {
		res, err := e.Transact(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "set", big.NewInt(1), big.NewInt(v))}, nil)
		if err != nil || res.Failed() {
			t.Fatalf("set: %v %v", err, res.Err)
		}
	}
	get := func() int64 {
		v, err := e.Storage(addr, slotOf(1))
		if err != nil {
			t.Fatal(err)
		}
		return v.Big().Int64()
	}
	set(10)
	s1 := e.Snapshot()
	set(20)
	s2 := e.Snapshot()
	set(30)
	if err := e.Revert(s2); err != nil || get() != 20 {
		t.Fatalf("after revert to s2: %d (%v), want 20", get(), err)
	}
	if err := e.Revert(s1); err != nil || get() != 10 {
		t.Fatalf("after revert to s1: %d (%v), want 10", get(), err)
	}
	if err := e.Revert(s2); err == nil {
		t.Fatal("revert to a snapshot discarded by an earlier revert succeeded")
	}
	set(40)
	if err := e.Revert(s1); err != nil || get() != 10 {
		t.Fatalf("second revert to s1: %d (%v), want 10", get(), err)
	}
	if n, _ := e.Nonce(from); n != 2 {
		t.Fatalf("nonce after revert = %d, want 2", n)
	}
}

func TestBlockContextAndOverrides(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	coinbase := common.HexToAddress("0xc0ffee")
	e.SetBlock(Block{Number: 77, Time: 1_800_000_000, GasLimit: 25_000_000, BaseFee: big.NewInt(9), Coinbase: coinbase, PrevRandao: common.HexToHash("0x99")})
	msg := ethereum.CallMsg{From: e.Accounts()[0].Address, To: &addr, Data: store.pack(t, "env")}
	check := func(opts *CallOptions, want []any) {
		t.Helper()
		res, err := e.Call(ctx, msg, opts)
		if err != nil || res.Failed() {
			t.Fatalf("env(): %v %v", err, res.Err)
		}
		got, err := store.ABI.Unpack("env", res.ReturnData)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if g, w := toString(got[i]), toString(want[i]); g != w {
				t.Fatalf("env()[%d] = %s, want %s", i, g, w)
			}
		}
	}
	// BASEFEE reads zero in a call without a gas price, as in eth_call.
	check(nil, []any{77, 1_800_000_000, 0, coinbase, 1337, common.HexToHash("0x99").Big()})
	var bo BlockOverrides
	mustJSON(t, `{"number":"0x10","time":"0x20","feeRecipient":"0x00000000000000000000000000000000000000aa","prevRandao":"0x0000000000000000000000000000000000000000000000000000000000000005"}`, &bo)
	check(&CallOptions{Block: &bo}, []any{16, 32, 0, common.HexToAddress("0xaa"), 1337, 5})
	if e.Block().Number != 77 {
		t.Fatal("block overrides leaked into the Env")
	}
}

func toString(v any) string {
	switch x := v.(type) {
	case int:
		return big.NewInt(int64(x)).String()
	case *big.Int:
		return x.String()
	case common.Address:
		return x.Hex()
	}
	return "?"
}

func TestStateOverridesLocal(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	from := e.Accounts()[0].Address
	for _, k := range []int64{1, 2} {
		if res, err := e.Transact(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "set", big.NewInt(k), big.NewInt(k*100))}, nil); err != nil || res.Failed() {
			t.Fatal(err, res.Err)
		}
	}
	get := func(o StateOverride, key int64) int64 {
		t.Helper()
		res, err := e.Call(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "get", big.NewInt(key))}, &CallOptions{State: o})
		if err != nil || res.Failed() {
			t.Fatalf("get: %v %v", err, res)
		}
		return store.unpackBig(t, "get", res.ReturnData).Int64()
	}
	diff := StateOverride{addr: {StateDiff: map[common.Hash]common.Hash{slotOf(1): common.BigToHash(big.NewInt(5))}}}
	if get(diff, 1) != 5 || get(diff, 2) != 200 {
		t.Fatal("stateDiff did not replace exactly the listed slot")
	}
	full := StateOverride{addr: {State: map[common.Hash]common.Hash{slotOf(1): common.BigToHash(big.NewInt(6))}}}
	if get(full, 1) != 6 || get(full, 2) != 0 {
		t.Fatal("state did not replace the whole storage")
	}
	if get(nil, 1) != 100 {
		t.Fatal("an override leaked into the Env")
	}
	both := StateOverride{addr: {State: map[common.Hash]common.Hash{}, StateDiff: map[common.Hash]common.Hash{}}}
	if _, err := e.Call(ctx, ethereum.CallMsg{From: from, To: &addr}, &CallOptions{State: both}); err == nil || !strings.Contains(err.Error(), "both 'state' and 'stateDiff'") {
		t.Fatalf("state with stateDiff: err %v", err)
	}
	// Balance, nonce and code.
	other := common.HexToAddress("0xbeef")
	var o StateOverride
	mustJSON(t, `{"0x000000000000000000000000000000000000beef":{"balance":"0x2a","nonce":"0x7","code":"`+hexutil.Encode(store.Runtime)+`"}}`, &o)
	res, err := e.Call(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "balanceOf", other)}, &CallOptions{State: o})
	if err != nil || store.unpackBig(t, "balanceOf", res.ReturnData).Int64() != 42 {
		t.Fatalf("balance override: %v %x", err, res.ReturnData)
	}
	res, err = e.Call(ctx, ethereum.CallMsg{From: from, To: &other, Data: store.pack(t, "get", big.NewInt(1))}, &CallOptions{State: o})
	if err != nil || res.Failed() || store.unpackBig(t, "get", res.ReturnData).Int64() != 0 {
		t.Fatalf("code override: %v %+v", err, res)
	}
	if err := e.ApplyOverrides(o); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.Nonce(other); n != 7 {
		t.Fatalf("nonce override = %d, want 7", n)
	}
	// Moving a precompile: identity (0x04) moved away, its old address empty.
	ident := common.BytesToAddress([]byte{4})
	moved := common.HexToAddress("0x0400")
	mv := StateOverride{ident: {MovePrecompileToAddress: &moved}}
	res, err = e.Call(ctx, ethereum.CallMsg{From: from, To: &moved, Data: []byte("echo")}, &CallOptions{State: mv})
	if err != nil || string(res.ReturnData) != "echo" {
		t.Fatalf("moved identity precompile: %v %q", err, res.ReturnData)
	}
	res, err = e.Call(ctx, ethereum.CallMsg{From: from, To: &ident, Data: []byte("echo")}, &CallOptions{State: mv})
	if err != nil || len(res.ReturnData) != 0 {
		t.Fatalf("identity still at 0x04 after the move: %v %q", err, res.ReturnData)
	}
}

func TestGenesisAlloc(t *testing.T) {
	store := contract(t, "Store")
	addr := common.HexToAddress("0x5705e")
	e, err := New(Config{ChainID: 10, Alloc: types.GenesisAlloc{
		addr: types.Account{Code: store.Runtime, Balance: big.NewInt(params.Ether), Storage: map[common.Hash]common.Hash{slotOf(3): common.BigToHash(big.NewInt(33))}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Call(context.Background(), ethereum.CallMsg{To: &addr, Data: store.pack(t, "get", big.NewInt(3))}, nil)
	if err != nil || store.unpackBig(t, "get", res.ReturnData).Int64() != 33 {
		t.Fatalf("get(3) on allocated state: %v %+v", err, res)
	}
	if e.ChainConfig().ChainID.Int64() != 10 {
		t.Fatal("chain id not applied")
	}
}
