package evm

// Benchmarks behind the "EVM" section of docs/PERFORMANCE.md (the figures
// there are the medians of the five counts of one run):
//
//	go test -run '^$' -bench . -benchtime 1s -count 5 ./evm/

import (
	"context"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

const benchSlots = 16 // slots read by the call of BenchmarkCall

// BenchmarkCall: the same eth_call-style calls in process on warm forked
// state, as eth_call to anvil over loopback HTTP, and through go-ethereum's
// simulated backend CallContract: Store.get(3) (one SLOAD) and Store.sum(16)
// (16 SLOADs of a mapping).
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	store := contract(b, "Store")
	calls := []struct {
		name string
		data []byte
	}{
		{"get", store.pack(b, "get", big.NewInt(3))},
		{"sum16", store.pack(b, "sum", big.NewInt(benchSlots))},
	}

	c := startChain(b, anvil.Options{})
	from := c.node.Accounts()[0]
	addr := c.send(from, nil, store.Bytecode, nil).ContractAddress
	c.send(from, &addr, store.pack(b, "fill", big.NewInt(benchSlots), big.NewInt(1)), nil)
	head := c.blockNumber()

	f, err := OpenFork(ctx, ForkConfig{URL: c.node.URL(), Block: hexutil.EncodeUint64(head)})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	e, _ := New(Config{Fork: f})

	key, _ := crypto.GenerateKey()
	sender := crypto.PubkeyToAddress(key.PublicKey)
	sim := simulated.NewBackend(types.GenesisAlloc{sender: {Balance: new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether))}})
	defer sim.Close()
	cl := sim.Client()
	chainID, _ := cl.ChainID(ctx)
	signer := types.LatestSignerForChainID(chainID)
	send := func(nonce uint64, to *common.Address, data []byte) {
		tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(100 * params.GWei), Gas: 3_000_000, To: to, Data: data})
		if err := cl.SendTransaction(ctx, tx); err != nil {
			b.Fatal(err)
		}
		sim.Commit()
	}
	simAddr := crypto.CreateAddress(sender, 0)
	send(0, nil, store.Bytecode)
	send(1, &simAddr, store.pack(b, "fill", big.NewInt(benchSlots), big.NewInt(1)))

	for _, call := range calls {
		msg := ethereum.CallMsg{From: from, To: &addr, Data: call.data}
		smsg := ethereum.CallMsg{From: sender, To: &simAddr, Data: call.data}
		want, err := c.ethCall(msg, head)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := e.Call(ctx, msg, nil); err != nil || string(res.ReturnData) != string(want) {
			b.Fatalf("in-process %s: %v %x, want %x", call.name, err, res.ReturnData, want)
		}
		if out, err := cl.CallContract(ctx, smsg, nil); err != nil || string(out) != string(want) {
			b.Fatalf("simulated %s: %v %x, want %x", call.name, err, out, want)
		}
		b.Run(call.name+"/inprocess", func(b *testing.B) {
			before := f.Stats().Requests
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := e.Call(ctx, msg, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if n := f.Stats().Requests - before; n != 0 {
				b.Fatalf("warm calls made %d requests", n)
			}
		})
		// Where the in-process time goes: go-ethereum's ApplyMessage on the
		// Env's kept EVM with the message built once (Env.Call minus this
		// package's own work), and the interpreter alone (EVM.Call: no
		// intrinsic gas, access-list preparation or gas accounting of the
		// transaction), each followed by the journal revert a call needs.
		b.Run(call.name+"/inprocess-geth-ApplyMessage", func(b *testing.B) {
			evm := e.reusedEVM(e.block, true)
			m, err := e.message(msg, e.block, 0, false)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				snap := e.db.Snapshot()
				res, err := core.ApplyMessage(evm.evm, m, nil)
				e.db.RevertToSnapshot(snap)
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
			}
		})
		b.Run(call.name+"/inprocess-geth-interpreter", func(b *testing.B) {
			evm := e.reusedEVM(e.block, true).evm
			zero := new(uint256.Int)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				snap := e.db.Snapshot()
				_, _, err := evm.Call(msg.From, *msg.To, msg.Data, vm.NewGasBudget(DefaultGasLimit, 0), zero)
				e.db.RevertToSnapshot(snap)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(call.name+"/anvil-eth_call", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.ethCall(msg, head); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(call.name+"/simulated-CallContract", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := cl.CallContract(ctx, smsg, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

const forkSlots = 200 // slots read by the call of BenchmarkFork

// BenchmarkFork: a call reading 200 storage slots on a fork of anvil, from
// nothing (cold), with the reads batched ahead (cold-prefetch), from the
// cache file in record mode (warm-cache), from the cache file offline
// (replay-only) and on a Fork already in memory (warm-memory). Each
// iteration opens the Fork; requests/op counts HTTP requests to anvil.
func BenchmarkFork(b *testing.B) {
	ctx := context.Background()
	store := contract(b, "Store")
	c := startChain(b, anvil.Options{})
	from := c.node.Accounts()[0]
	addr := c.send(from, nil, store.Bytecode, nil).ContractAddress
	c.send(from, &addr, store.pack(b, "fill", big.NewInt(forkSlots), big.NewInt(1)), nil)
	head := hexutil.EncodeUint64(c.blockNumber())
	msg := ethereum.CallMsg{From: from, To: &addr, Data: store.pack(b, "sum", big.NewInt(forkSlots))}
	want, err := c.ethCall(msg, c.blockNumber())
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()

	run := func(b *testing.B, cfg ForkConfig, prefetch bool) {
		var requests int64
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			f, err := OpenFork(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			if prefetch {
				slots := make([]common.Hash, forkSlots)
				for k := range slots {
					slots[k] = slotOf(uint64(k))
				}
				if err := f.Prefetch(ctx, []common.Address{from, addr, f.Block().Coinbase}, map[common.Address][]common.Hash{addr: slots}); err != nil {
					b.Fatal(err)
				}
			}
			e, err := New(Config{Fork: f})
			if err != nil {
				b.Fatal(err)
			}
			res, err := e.Call(ctx, msg, nil)
			if err != nil || string(res.ReturnData) != string(want) {
				b.Fatalf("call: %v %x", err, res.ReturnData)
			}
			requests += f.Stats().Requests
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
	}
	live := ForkConfig{URL: c.node.URL(), Block: head}
	b.Run("cold", func(b *testing.B) { run(b, live, false) })
	b.Run("cold-prefetch", func(b *testing.B) { run(b, live, true) })

	rec := ForkConfig{URL: c.node.URL(), Block: head, Mode: Record, CacheDir: dir}
	f, err := OpenFork(ctx, rec)
	if err != nil {
		b.Fatal(err)
	}
	e, _ := New(Config{Fork: f})
	if _, err := e.Call(ctx, msg, nil); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.Run("warm-cache", func(b *testing.B) { run(b, rec, false) })
	b.Run("replay-only", func(b *testing.B) {
		run(b, ForkConfig{Mode: ReplayOnly, CachePath: filepath.Join(dir, CachePath("", c.node.ChainID(), c.blockNumber()))}, false)
	})
	b.Run("warm-memory", func(b *testing.B) {
		f, err := OpenFork(ctx, live)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		e, _ := New(Config{Fork: f})
		e.Call(ctx, msg, nil)
		before := f.Stats().Requests
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			e, _ := New(Config{Fork: f})
			if _, err := e.Call(ctx, msg, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(f.Stats().Requests-before)/float64(b.N), "requests/op")
	})
}

// BenchmarkTrace: the same calls untraced and traced (call tree with logs and
// prestate diff): Store.sum(16) and Caller.forward (a CALL, a STATICCALL,
// two logs, one SSTORE).
func BenchmarkTrace(b *testing.B) {
	ctx := context.Background()
	e, store, storeC := newLocal(b)
	callerC := contract(b, "Caller")
	from := e.Accounts()[0].Address
	res, err := e.Deploy(ctx, from, callerC.Bytecode, nil)
	if err != nil || res.Failed() {
		b.Fatal(err)
	}
	caller := res.ContractAddress
	if res, err := e.Transact(ctx, ethereum.CallMsg{From: from, To: &store, Data: storeC.pack(b, "fill", big.NewInt(benchSlots), big.NewInt(1))}, nil); err != nil || res.Failed() {
		b.Fatal(err)
	}
	calls := map[string]ethereum.CallMsg{
		"sum16":   {From: from, To: &store, Data: storeC.pack(b, "sum", big.NewInt(benchSlots))},
		"forward": {From: from, To: &caller, Data: callerC.pack(b, "forward", store, big.NewInt(3), big.NewInt(4))},
	}
	for _, name := range []string{"sum16", "forward"} {
		msg := calls[name]
		for _, traced := range []bool{false, true} {
			label := name + "/untraced"
			if traced {
				label = name + "/traced"
			}
			b.Run(label, func(b *testing.B) {
				opts := &CallOptions{}
				if traced {
					opts.Trace = FullTrace()
				}
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					res, err := e.Call(ctx, msg, opts)
					if err != nil || res.Failed() || (res.Trace != nil) != traced {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
