package evm

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

func TestTrace(t *testing.T) {
	ctx := context.Background()
	e, store, storeC := newLocal(t)
	callerC := contract(t, "Caller")
	from := e.Accounts()[0].Address
	res, err := e.Deploy(ctx, from, callerC.Bytecode, nil)
	if err != nil || res.Failed() {
		t.Fatal(err, res.Err)
	}
	caller := res.ContractAddress
	msg := ethereum.CallMsg{From: from, To: &caller, Data: callerC.pack(t, "forward", store, big.NewInt(9), big.NewInt(81))}

	plain, err := e.Call(ctx, msg, nil)
	if err != nil || plain.Trace != nil {
		t.Fatalf("untraced call: %v, trace %v", err, plain.Trace)
	}
	res, err = e.Call(ctx, msg, &CallOptions{Trace: FullTrace()})
	if err != nil || res.Failed() || res.Trace == nil {
		t.Fatalf("traced call: %v %+v", err, res)
	}
	if res.GasUsed != plain.GasUsed || string(res.ReturnData) != string(plain.ReturnData) {
		t.Fatalf("tracing changed the outcome: gas %d vs %d", res.GasUsed, plain.GasUsed)
	}
	top := res.Trace.Calls
	if top.Type != "CALL" || *top.To != caller || uint64(top.GasUsed) != res.GasUsed {
		t.Fatalf("top frame %s to %v gasUsed %d, want CALL to the caller using %d", top.Type, top.To, top.GasUsed, res.GasUsed)
	}
	if len(top.Calls) != 2 || top.Calls[0].Type != "CALL" || top.Calls[1].Type != "STATICCALL" || *top.Calls[0].To != store {
		t.Fatalf("subcalls = %+v, want CALL set and STATICCALL get on the store", top.Calls)
	}
	if l := top.Calls[0].Logs; len(l) != 1 || l[0].Topics[0] != storeC.ABI.Events["Set"].ID {
		t.Fatalf("set frame logs = %+v, want one Set", l)
	}
	if l := top.Logs; len(l) != 1 || l[0].Topics[0] != callerC.ABI.Events["Forwarded"].ID || l[0].Position != 1 {
		t.Fatalf("top frame logs = %+v, want Forwarded after the first subcall", l)
	}
	post, ok := res.Trace.Post[store]
	if !ok || post.Storage[slotOf(9)] != common.BigToHash(big.NewInt(81)) {
		t.Fatalf("post state of the store = %+v, want data[9] = 81", post)
	}
	if pre := res.Trace.Pre[store]; pre.Storage[slotOf(9)] != (common.Hash{}) {
		t.Fatalf("pre state of data[9] = %s, want 0", pre.Storage[slotOf(9)].Hex())
	}
	// The traced call changed nothing either.
	if v, _ := e.Storage(store, slotOf(9)); v != (common.Hash{}) {
		t.Fatal("traced call changed state")
	}
	// A traced transaction keeps its effects.
	res, err = e.Transact(ctx, msg, &CallOptions{Trace: FullTrace()})
	if err != nil || res.Failed() || res.Trace == nil {
		t.Fatal(err, res)
	}
	if v, _ := e.Storage(store, slotOf(9)); v.Big().Int64() != 81 {
		t.Fatal("traced transaction lost its effects")
	}
}
