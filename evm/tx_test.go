package evm

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// signedTxs are one transaction of every type, from key, to the contract to.
func signedTxs(t *testing.T, e *Env, key Account, to common.Address, data []byte) map[string]*types.Transaction {
	t.Helper()
	chainID := e.ChainConfig().ChainID
	signer := types.LatestSignerForChainID(chainID)
	sign := func(inner types.TxData) *types.Transaction {
		tx, err := types.SignNewTx(key.Key, signer, inner)
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	fee := big.NewInt(20)
	return map[string]*types.Transaction{
		"legacy":     sign(&types.LegacyTx{Nonce: 0, GasPrice: fee, Gas: 100_000, To: &to, Data: data}),
		"accessList": sign(&types.AccessListTx{ChainID: chainID, Nonce: 1, GasPrice: fee, Gas: 100_000, To: &to, Data: data, AccessList: types.AccessList{{Address: to}}}),
		"dynamicFee": sign(&types.DynamicFeeTx{ChainID: chainID, Nonce: 2, GasTipCap: big.NewInt(3), GasFeeCap: fee, Gas: 100_000, To: &to, Data: data}),
		"blob": sign(&types.BlobTx{ChainID: uint256.MustFromBig(chainID), Nonce: 3, GasTipCap: uint256.NewInt(3), GasFeeCap: uint256.NewInt(20),
			Gas: 100_000, To: to, Data: data, BlobFeeCap: uint256.NewInt(5), BlobHashes: []common.Hash{kzg4844.CalcBlobHashV1(crypto.NewKeccakState(), new(kzg4844.Commitment))}}),
	}
}

// Signed transactions of every type apply as a block would: sender
// recovered, the nonce checked, the receipt's fields filled.
func TestApplyRawTransaction(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	e.SetBlock(Block{Number: 9, Time: 1_700_000_100, GasLimit: DefaultGasLimit, BaseFee: big.NewInt(10), BlobBaseFee: big.NewInt(2), Hash: common.HexToHash("0xb10c")})
	key := DevAccounts(3)[2] // not funded by newLocal: fund it
	if err := e.SetBalance(key.Address, big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	txs := signedTxs(t, e, key, addr, store.pack(t, "set", big.NewInt(5), big.NewInt(55)))
	var cumulative uint64
	for i, name := range []string{"legacy", "accessList", "dynamicFee", "blob"} {
		tx := txs[name]
		raw, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		before, _ := e.Balance(key.Address)
		res, err := e.ApplyRawTransaction(ctx, raw, nil)
		if err != nil || res.Failed() {
			t.Fatalf("%s: %v %v", name, err, res)
		}
		rc := res.Receipt
		cumulative += res.GasUsed
		if rc == nil || rc.Type != tx.Type() || rc.Status != types.ReceiptStatusSuccessful || rc.TxHash != tx.Hash() ||
			rc.GasUsed != res.GasUsed || rc.CumulativeGasUsed != cumulative || rc.TransactionIndex == 0 && i > 0 ||
			rc.BlockHash != common.HexToHash("0xb10c") || len(rc.Logs) != 1 || rc.Logs[0].TxHash != tx.Hash() {
			t.Fatalf("%s: receipt %+v", name, rc)
		}
		if !rc.Bloom.Test(addr.Bytes()) {
			t.Fatalf("%s: the bloom does not hold the store's address", name)
		}
		price := big.NewInt(20)
		if name == "dynamicFee" || name == "blob" {
			price = big.NewInt(13) // base fee 10 + tip 3 < cap 20
		}
		if rc.EffectiveGasPrice.Cmp(price) != 0 {
			t.Fatalf("%s: effective gas price %v, want %v", name, rc.EffectiveGasPrice, price)
		}
		cost := new(big.Int).Mul(price, new(big.Int).SetUint64(res.GasUsed))
		if name == "blob" {
			if rc.BlobGasUsed != params.BlobTxBlobGasPerBlob || rc.BlobGasPrice.Int64() != 2 {
				t.Fatalf("blob: blob gas %d at %v", rc.BlobGasUsed, rc.BlobGasPrice)
			}
			cost.Add(cost, big.NewInt(2*params.BlobTxBlobGasPerBlob))
		}
		after, _ := e.Balance(key.Address)
		if paid := new(big.Int).Sub(before, after); paid.Cmp(cost) != 0 {
			t.Fatalf("%s: the recovered sender paid %v, want %v", name, paid, cost)
		}
	}
	// Consensus checks apply: the same transaction again has a spent nonce,
	// and a transaction signed for another chain has no sender here.
	raw, _ := txs["legacy"].MarshalBinary()
	if _, err := e.ApplyRawTransaction(ctx, raw, nil); err == nil || !strings.Contains(err.Error(), "nonce too low") {
		t.Fatalf("replayed transaction: err %v, want nonce too low", err)
	}
	other, _ := types.SignNewTx(key.Key, types.LatestSignerForChainID(big.NewInt(5)), &types.DynamicFeeTx{ChainID: big.NewInt(5), Nonce: 4, GasFeeCap: big.NewInt(20), Gas: 50_000, To: &addr})
	if _, err := e.ApplyTransaction(ctx, other, nil); err == nil || !strings.Contains(err.Error(), "chain") {
		t.Fatalf("transaction for chain 5 on chain 1337: err %v", err)
	}
	if _, err := e.ApplyRawTransaction(ctx, []byte{0x02, 0xc0}, nil); err == nil || !strings.Contains(err.Error(), "decode raw transaction") {
		t.Fatalf("malformed raw transaction: err %v", err)
	}
	nonce := uint64(9)
	if _, err := e.ApplyTransaction(ctx, other, &CallOptions{Nonce: &nonce}); err == nil {
		t.Fatal("ApplyTransaction accepted CallOptions.Nonce")
	}
}

// An EIP-7702 authorization sets the authority's code to a delegation and
// the traced prestate holds the authority; revoking it clears the code,
// which the prestate diff prints as "0x", as go-ethereum's tracer does.
func TestSetCodeTransaction(t *testing.T) {
	ctx := context.Background()
	e, addr, _ := newLocal(t)
	sender, authority := e.Accounts()[0], e.Accounts()[1]
	chainID := uint256.MustFromBig(e.ChainConfig().ChainID)
	signer := types.LatestSignerForChainID(e.ChainConfig().ChainID)
	authorize := func(target common.Address, nonce uint64) types.SetCodeAuthorization {
		a, err := types.SignSetCode(authority.Key, types.SetCodeAuthorization{ChainID: *chainID, Address: target, Nonce: nonce})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// The transactions go to a bystander: the authority is touched only
	// through the authorization list.
	bystander := common.HexToAddress("0xb157a4de7")
	send := func(auth types.SetCodeAuthorization) *Result {
		t.Helper()
		n, _ := e.Nonce(sender.Address)
		tx, err := types.SignNewTx(sender.Key, signer, &types.SetCodeTx{ChainID: chainID, Nonce: n, GasTipCap: uint256.NewInt(0), GasFeeCap: uint256.NewInt(0),
			Gas: 200_000, To: bystander, AuthList: []types.SetCodeAuthorization{auth}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.ApplyTransaction(ctx, tx, &CallOptions{Trace: FullTrace()})
		if err != nil || res.Failed() {
			t.Fatalf("set-code transaction: %v %v", err, res)
		}
		if _, ok := res.Trace.Pre[authority.Address]; !ok {
			t.Fatalf("the prestate lacks the authority %s", authority.Address.Hex())
		}
		return res
	}
	res := send(authorize(addr, 0))
	if res.GasUsed <= params.TxGas+params.TxAuthTupleGas/2 {
		t.Fatalf("set-code transaction used %d gas, want the authorization charged", res.GasUsed)
	}
	if code, _ := e.Code(authority.Address); !bytes.Equal(code, types.AddressToDelegation(addr)) {
		t.Fatalf("authority code = %x, want a delegation to %s", code, addr.Hex())
	}
	if post := res.Trace.Post[authority.Address].Code; post == nil || !bytes.Equal(*post, types.AddressToDelegation(addr)) {
		t.Fatalf("post code of the authority = %v", post)
	}
	res = send(authorize(common.Address{}, 1))
	if code, _ := e.Code(authority.Address); len(code) != 0 {
		t.Fatalf("authority code after revocation = %x", code)
	}
	post := res.Trace.Post[authority.Address].Code
	if post == nil || len(*post) != 0 {
		t.Fatalf("revocation: post code %v, want present and empty", post)
	}
	js, err := res.Trace.PrestateJSON()
	if err != nil || !bytes.Contains(js, []byte(`"code":"0x"`)) {
		t.Fatalf("prestate JSON lacks the cleared code: %s (%v)", js, err)
	}

	// The same authorization as a message (what a simulation sends) costs
	// what the transaction cost, not a plain 21,000-gas call.
	e2, _, _ := newLocal(t)
	msg := ethereum.CallMsg{From: sender.Address, To: &bystander, AuthorizationList: []types.SetCodeAuthorization{authorize(addr, 0)}}
	sim, err := e2.Transact(ctx, msg, &CallOptions{Trace: FullTrace()})
	if err != nil || sim.Failed() {
		t.Fatalf("set-code message: %v %v", err, sim)
	}
	if sim.GasUsed <= params.TxGas+params.TxAuthTupleGas/2 {
		t.Fatalf("set-code message used %d gas, want the authorization charged", sim.GasUsed)
	}
	if _, ok := sim.Trace.Pre[authority.Address]; !ok {
		t.Fatal("the message's prestate lacks the authority")
	}
}

// The tracer options mean what go-ethereum's mean.
func TestTraceConfig(t *testing.T) {
	ctx := context.Background()
	e, store, _ := newLocal(t)
	callerC := contract(t, "Caller")
	from := e.Accounts()[0].Address
	res, err := e.Deploy(ctx, from, callerC.Bytecode, nil)
	if err != nil || res.Failed() {
		t.Fatal(err, res.Err)
	}
	caller := res.ContractAddress
	msg := ethereum.CallMsg{From: from, To: &caller, Data: callerC.pack(t, "forward", store, big.NewInt(9), big.NewInt(81))}
	trace := func(cfg TraceConfig) *Trace {
		t.Helper()
		res, err := e.Call(ctx, msg, &CallOptions{Trace: &cfg})
		if err != nil || res.Failed() {
			t.Fatal(err, res)
		}
		return res.Trace
	}
	logs := func(f CallFrame) int {
		n := len(f.Logs)
		for _, c := range f.Calls {
			n += len(c.Logs)
		}
		return n
	}
	full := trace(*FullTrace())
	if len(full.Calls.Calls) == 0 || logs(full.Calls) == 0 || len(full.Post) == 0 {
		t.Fatalf("full trace: %d subcalls, %d logs, %d post accounts", len(full.Calls.Calls), logs(full.Calls), len(full.Post))
	}
	if tr := trace(TraceConfig{OnlyTopCall: true, WithLog: true}); len(tr.Calls.Calls) != 0 {
		t.Fatalf("onlyTopCall: %d subcalls", len(tr.Calls.Calls))
	}
	if tr := trace(TraceConfig{}); logs(tr.Calls) != 0 || tr.Post != nil {
		t.Fatalf("without withLog/diffMode: %d logs, post %v", logs(tr.Calls), tr.Post)
	}
	pre := trace(TraceConfig{})
	if len(pre.Pre[store].Storage) == 0 || pre.Pre[store].Code == nil {
		t.Fatalf("prestate mode: the store's storage/code are missing: %+v", pre.Pre[store])
	}
	bare := trace(TraceConfig{DisableCode: true, DisableStorage: true})
	if len(bare.Pre[store].Storage) != 0 || bare.Pre[store].Code != nil {
		t.Fatalf("disableCode/disableStorage: %+v", bare.Pre[store])
	}
	js, _ := pre.PrestateJSON()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil || m[strings.ToLower(store.Hex())] == nil {
		t.Fatalf("prestate JSON is not the account map: %s", js)
	}
	js, _ = full.PrestateJSON()
	if !bytes.HasPrefix(js, []byte(`{"post":`)) {
		t.Fatalf("diff-mode JSON: %s", js)
	}
}

// An unsigned transaction applies with CallOptions.Sender as its sender
// (an impersonated account), and is refused without it; Sender is refused
// for a message, which carries its sender.
func TestApplyTransactionSender(t *testing.T) {
	ctx := context.Background()
	e, addr, store := newLocal(t)
	from := common.HexToAddress("0x000000000000000000000000000000000000beef")
	if err := e.SetBalance(from, big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: e.ChainConfig().ChainID, Gas: 100_000, To: &addr, Data: store.pack(t, "set", big.NewInt(5), big.NewInt(55))})
	if _, err := e.ApplyTransaction(ctx, tx, nil); err == nil {
		t.Fatal("an unsigned transaction applied without a Sender")
	}
	res, err := e.ApplyTransaction(ctx, tx, &CallOptions{Sender: &from})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() || res.Receipt.TxHash != tx.Hash() {
		t.Fatalf("failed %v (%v), receipt for %s; want success for %s", res.Failed(), res.Err, res.Receipt.TxHash, tx.Hash())
	}
	if n, _ := e.Nonce(from); n != 1 {
		t.Fatalf("sender's nonce %d, want 1", n)
	}
	got, err := e.Call(ctx, ethereum.CallMsg{To: &addr, Data: store.pack(t, "data", big.NewInt(5))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := store.unpackBig(t, "data", got.ReturnData); v.Int64() != 55 {
		t.Fatalf("data(5) = %v, want 55", v)
	}
	if _, err := e.Call(ctx, ethereum.CallMsg{From: from, To: &addr}, &CallOptions{Sender: &from}); err == nil {
		t.Fatal("Sender accepted for a message")
	}
}
