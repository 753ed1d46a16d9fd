package evm

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/vm"
)

// watchEVMs records every EVM the Env executes with until the test ends.
func watchEVMs(t *testing.T) *[]*vm.EVM {
	t.Helper()
	var seen []*vm.EVM
	execHook = func(evm *vm.EVM) { seen = append(seen, evm) }
	t.Cleanup(func() { execHook = nil })
	return &seen
}

// TestUntracedPathAttachesNoHooks: calls and transactions that do not ask
// for a trace run with no tracing hooks at all (no vm.Config.Tracer, the
// plain StateDB rather than a hooked one, no extra EIPs), which keeps
// go-ethereum's interpreter on its fast loop. The traced path is checked too,
// so that the hook under test is known to see the EVMs.
func TestUntracedPathAttachesNoHooks(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	from := e.Accounts()[0].Address
	seen := watchEVMs(t)

	get := ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "get", big.NewInt(1))}
	set := ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "set", big.NewInt(1), big.NewInt(2))}
	var bo BlockOverrides
	mustJSON(t, `{"number":"0x10"}`, &bo)
	var so StateOverride
	mustJSON(t, `{"`+addr.Hex()+`":{"stateDiff":{"`+slotOf(1).Hex()+`":"`+common.BigToHash(big.NewInt(5)).Hex()+`"}}}`, &so)
	untraced := []struct {
		name string
		run  func() (*Result, error)
	}{
		{"call", func() (*Result, error) { return e.Call(ctx, get, nil) }},
		{"call again", func() (*Result, error) { return e.Call(ctx, get, &CallOptions{}) }},
		{"call with gas price", func() (*Result, error) {
			m := get
			m.GasPrice = big.NewInt(1)
			return e.Call(ctx, m, nil)
		}},
		{"call with block overrides", func() (*Result, error) { return e.Call(ctx, get, &CallOptions{Block: &bo}) }},
		{"call with state overrides", func() (*Result, error) { return e.Call(ctx, get, &CallOptions{State: so}) }},
		{"transact", func() (*Result, error) { return e.Transact(ctx, set, nil) }},
		{"deploy", func() (*Result, error) { return e.Deploy(ctx, from, store.Bytecode, nil) }},
	}
	for _, c := range untraced {
		*seen = nil
		res, err := c.run()
		if err != nil || res.Failed() || res.Trace != nil {
			t.Fatalf("%s: %v %+v", c.name, err, res)
		}
		if len(*seen) != 1 {
			t.Fatalf("%s: executed with %d EVMs, want 1", c.name, len(*seen))
		}
		evm := (*seen)[0]
		if evm.Config.Tracer != nil {
			t.Errorf("%s: tracing hooks attached to an untraced execution", c.name)
		}
		if _, plain := evm.StateDB.(*state.StateDB); !plain {
			t.Errorf("%s: StateDB is %T, want the unhooked *state.StateDB", c.name, evm.StateDB)
		}
		if len(evm.Config.ExtraEips) != 0 {
			t.Errorf("%s: extra EIPs %v switch off the fast interpreter loop", c.name, evm.Config.ExtraEips)
		}
	}

	*seen = nil
	if res, err := e.Call(ctx, get, &CallOptions{Trace: FullTrace()}); err != nil || res.Trace == nil {
		t.Fatalf("traced call: %v", err)
	}
	if len(*seen) != 1 || (*seen)[0].Config.Tracer == nil {
		t.Fatal("the traced call ran without tracing hooks")
	}
	if _, plain := (*seen)[0].StateDB.(*state.StateDB); plain {
		t.Fatal("the traced call ran on an unhooked StateDB")
	}
}

// TestCallLeavesNoTrace: a call that writes storage, emits a log and pays
// for gas changes nothing in the Env, and its result is its own.
func TestCallLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	from := e.Accounts()[0].Address
	balance, _ := e.Balance(from)
	nonce, _ := e.Nonce(from)
	e.SetBlock(Block{Number: 5, Time: 1_700_000_000, GasLimit: DefaultGasLimit, BaseFee: big.NewInt(7)})

	call := func(key, value int64, trace bool) *Result {
		t.Helper()
		msg := ethereum.CallMsg{From: from, To: &addr, GasPrice: big.NewInt(100), Data: store.pack(t, "set", big.NewInt(key), big.NewInt(value))}
		opts := &CallOptions{}
		if trace {
			opts.Trace = FullTrace()
		}
		res, err := e.Call(ctx, msg, opts)
		if err != nil || res.Failed() || len(res.Logs) != 1 || (res.Trace != nil) != trace {
			t.Fatalf("set(%d, %d): %v %+v", key, value, err, res)
		}
		return res
	}
	r1 := call(1, 11, false)
	r2 := call(2, 22, false)
	rt := call(3, 33, true)
	if post := rt.Trace.Post[addr].Storage[slotOf(3)]; post != common.BigToHash(big.NewInt(33)) {
		t.Fatalf("traced call: post-state of the written slot = %x, want 33", post)
	}
	for _, k := range []uint64{1, 2, 3} {
		if v, _ := e.Storage(addr, slotOf(k)); v != (common.Hash{}) {
			t.Fatalf("slot %d written by a call = %x, want zero", k, v)
		}
	}
	if v, _ := e.Storage(addr, common.Hash{}); v != (common.Hash{}) {
		t.Fatalf("counter after calls = %x, want zero", v)
	}
	if b, _ := e.Balance(from); b.Cmp(balance) != 0 {
		t.Fatalf("sender balance after calls = %v, want %v (gas is not paid by calls)", b, balance)
	}
	if n, _ := e.Nonce(from); n != nonce {
		t.Fatalf("sender nonce after calls = %d, want %d", n, nonce)
	}
	l1, l2, l3 := r1.Logs[0], r2.Logs[0], rt.Logs[0]
	if l1.Topics[1] != common.BigToHash(big.NewInt(1)) || l2.Topics[1] != common.BigToHash(big.NewInt(2)) || l3.Topics[1] != common.BigToHash(big.NewInt(3)) {
		t.Fatalf("log keys %x, %x, %x; want 1, 2, 3 (a later call changed an earlier result)", l1.Topics[1], l2.Topics[1], l3.Topics[1])
	}
	if l1.TxHash == (common.Hash{}) || l1.TxHash == l2.TxHash || l2.TxHash == l3.TxHash || l1.BlockNumber != 5 {
		t.Fatalf("log tx hashes %s, %s at block %d; want distinct non-zero hashes at block 5", l1.TxHash, l2.TxHash, l1.BlockNumber)
	}
	// The same call as a transaction sees none of the calls' effects.
	res, err := e.Transact(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "set", big.NewInt(1), big.NewInt(11))}, nil)
	if err != nil || res.Failed() || res.GasUsed != r1.GasUsed {
		t.Fatalf("transaction: %v, gas %d; want the first call's %d", err, res.GasUsed, r1.GasUsed)
	}
}

// TestReusedEVMFollowsEnv: the EVM kept between calls follows changes of the
// block context (also a fee changed in place), Revert, and a cancelled call.
func TestReusedEVMFollowsEnv(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	from := e.Accounts()[0].Address
	env := func(gasPrice int64) []any {
		t.Helper()
		msg := ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "env")}
		if gasPrice > 0 {
			msg.GasPrice = big.NewInt(gasPrice)
		}
		res, err := e.Call(ctx, msg, nil)
		if err != nil || res.Failed() {
			t.Fatalf("env(): %v %+v", err, res)
		}
		out, err := store.ABI.Unpack("env", res.ReturnData)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	baseFee := big.NewInt(9)
	e.SetBlock(Block{Number: 77, Time: 1_800_000_000, GasLimit: DefaultGasLimit, BaseFee: baseFee})
	if got := env(0); toString(got[0]) != "77" || toString(got[2]) != "0" {
		t.Fatalf("env() = %v, want number 77, basefee 0", got)
	}
	if got := env(100); toString(got[2]) != "9" {
		t.Fatalf("env() with a gas price: basefee %v, want 9", got[2])
	}
	baseFee.SetInt64(11)
	if got := env(100); toString(got[2]) != "11" {
		t.Fatalf("env() after the base fee changed in place: basefee %v, want 11", got[2])
	}
	b := e.Block()
	b.Number, b.Coinbase = 78, common.HexToAddress("0xc0ffee")
	e.SetBlock(b)
	if got := env(0); toString(got[0]) != "78" || toString(got[3]) != b.Coinbase.Hex() {
		t.Fatalf("env() = %v, want number 78, coinbase %s", got, b.Coinbase.Hex())
	}

	get := func() int64 {
		t.Helper()
		res, err := e.Call(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "get", big.NewInt(1))}, nil)
		if err != nil || res.Failed() {
			t.Fatalf("get: %v %+v", err, res)
		}
		return store.unpackBig(t, "get", res.ReturnData).Int64()
	}
	snap := e.Snapshot()
	if res, err := e.Transact(ctx, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "set", big.NewInt(1), big.NewInt(5))}, nil); err != nil || res.Failed() {
		t.Fatal(err)
	}
	if get() != 5 {
		t.Fatal("call does not see the transaction")
	}
	if err := e.Revert(snap); err != nil {
		t.Fatal(err)
	}
	if v := get(); v != 0 {
		t.Fatalf("get after Revert = %d, want 0", v)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Call(cancelled, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "sum", big.NewInt(3))}, nil); err == nil {
		t.Fatal("call with a cancelled context succeeded")
	}
	if v := get(); v != 0 {
		t.Fatalf("get after a cancelled call = %d, want 0", v)
	}
	live, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, err := e.Call(live, ethereum.CallMsg{From: from, To: &addr, Data: store.pack(t, "get", big.NewInt(1))}, nil); err != nil {
		t.Fatalf("call with a live context: %v", err)
	}
}
