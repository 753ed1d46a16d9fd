package backend_test

import (
	"context"
	"errors"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/contracts/bindings"
)

func startInProcess(t testing.TB) *backend.InProcess {
	t.Helper()
	c, err := backend.NewInProcess(backend.InProcessOptions{Keys: 1, GenesisTime: genesis})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// receiptFacts are the fields of a receipt that execution decides, and
// the block's number, time and base fee: the in-process chain must give the
// embedded chain's.
type receiptFacts struct {
	Status, GasUsed, CumulativeGasUsed uint64
	ContractAddress                    common.Address
	EffectiveGasPrice                  string
	Logs                               []logFacts
	Block, Time                        uint64
	BaseFee                            string
}

type logFacts struct {
	Address common.Address
	Topics  []common.Hash
	Data    []byte
	Index   uint
}

func facts(t *testing.T, c chain.Client, rc *types.Receipt) receiptFacts {
	t.Helper()
	h, err := c.HeaderByNumber(context.Background(), rc.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if h.Hash() != rc.BlockHash {
		t.Fatalf("receipt's block hash %s, header's %s", rc.BlockHash, h.Hash())
	}
	f := receiptFacts{Status: rc.Status, GasUsed: rc.GasUsed, CumulativeGasUsed: rc.CumulativeGasUsed, ContractAddress: rc.ContractAddress,
		EffectiveGasPrice: rc.EffectiveGasPrice.String(), Block: rc.BlockNumber.Uint64(), Time: h.Time, BaseFee: h.BaseFee.String()}
	for _, l := range rc.Logs {
		if l.BlockHash != rc.BlockHash || l.TxHash != rc.TxHash || l.BlockNumber != f.Block {
			t.Fatalf("log %d names block %s / tx %s, receipt %s / %s", l.Index, l.BlockHash, l.TxHash, rc.BlockHash, rc.TxHash)
		}
		f.Logs = append(f.Logs, logFacts{l.Address, l.Topics, l.Data, l.Index})
	}
	return f
}

// script deploys EpochAnchor, anchors two epochs (one call refused in
// simulation), transfers ether, and returns what each step gave.
func script(t *testing.T, b backend.Backend) (out []any) {
	t.Helper()
	ctx := context.Background()
	c, key := b.Client(), b.Keys()[0]
	g, err := c.BlockByNumber(ctx, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, g.Hash())
	d, err := chain.Deploy(ctx, c, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c.TransactionReceipt(ctx, func() common.Hash {
		blk, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(d.Block))
		if err != nil {
			t.Fatal(err)
		}
		return blk.Transactions()[0].Hash()
	}())
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, facts(t, c, rc))
	ea := bindings.NewEpochAnchor()
	var logID, root [32]byte
	logID[0], root[0] = 1, 2
	for epoch := range uint64(2) {
		data := ea.PackAnchor(logID, epoch, root, [32]byte{})
		gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: chain.Address(key), To: &d.EpochAnchor, Data: data})
		out = append(out, gas, err == nil)
		if epoch == 1 {
			// prevRoot does not chain: a revert with a custom error.
			_, err := c.CallContract(ctx, ethereum.CallMsg{From: chain.Address(key), To: &d.EpochAnchor, Data: data}, nil)
			rd, ok := chain.Reverted(err)
			out = append(out, rd, ok, err.Error())
			data = ea.PackAnchor(logID, epoch, root, root)
		}
		rc, err := chain.Transact(ctx, c, key, &d.EpochAnchor, nil, data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, facts(t, c, rc))
		logs, err := c.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: rc.BlockNumber, ToBlock: rc.BlockNumber, Addresses: []common.Address{d.EpochAnchor}})
		if err != nil || len(logs) != len(rc.Logs) {
			t.Fatalf("FilterLogs of block %d: %d logs, %v; the receipt has %d", rc.BlockNumber, len(logs), err, len(rc.Logs))
		}
	}
	head, err := c.CallContract(ctx, ethereum.CallMsg{To: &d.EpochAnchor, Data: ea.PackHead(chain.Address(key), logID)}, big.NewInt(int64(d.Block+1)))
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, head)
	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	rc, err = chain.Transact(ctx, c, key, &to, big.NewInt(7), nil)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, facts(t, c, rc))
	for _, n := range []*big.Int{new(big.Int).Sub(rc.BlockNumber, common.Big1), rc.BlockNumber} {
		bal, err := c.BalanceAt(ctx, to, n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bal.String())
	}
	return out
}

// TestInProcessMatchesEmbedded runs the same transactions on both local
// chains: the genesis, and each receipt's status, gas, logs, block number,
// time and base fee, gas estimates, revert errors and historical reads
// agree.
func TestInProcessMatchesEmbedded(t *testing.T) {
	emb := fixedTime["embedded"](t)
	want := script(t, emb)
	got := script(t, startInProcess(t))
	if len(got) != len(want) {
		t.Fatalf("%d facts on inproc, %d on embedded", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("fact %d:\ninproc   %+v\nembedded %+v", i, got[i], want[i])
		}
	}
}

func TestInProcessRefuses(t *testing.T) {
	ctx := context.Background()
	c := startInProcess(t)
	cl, key := c.Client(), c.Keys()[0]
	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	tx, err := chain.SignTx(ctx, cl, key, &to, big.NewInt(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	head, _ := cl.BlockNumber(ctx)
	if err := cl.SendTransaction(ctx, tx); err == nil || !errors.Is(err, core.ErrNonceTooLow) {
		t.Fatalf("sending a mined transaction again: %v, want nonce too low", err)
	}
	if n, _ := cl.BlockNumber(ctx); n != head {
		t.Fatalf("a refused transaction moved the head from %d to %d", head, n)
	}
}

// BenchmarkInProcessSnapshotRevert times the chain's part of isolating a
// spec: Snapshot, and Revert after one transaction was mined since (the
// transaction itself is outside the timer). go test -run '^$' -bench
// InProcess ./chain/backend
func BenchmarkInProcessSnapshotRevert(b *testing.B) {
	ctx := context.Background()
	c := startInProcess(b)
	cl, key := c.Client(), c.Keys()[0]
	if _, err := chain.Deploy(ctx, cl, key, nil); err != nil {
		b.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	b.ResetTimer()
	for range b.N {
		id, err := c.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := chain.Transact(ctx, cl, key, &to, big.NewInt(1), nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := c.Revert(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInProcessTransact times one transaction through chain.Transact
// (estimate, sign, send, sealed in its block, receipt): an ether transfer.
func BenchmarkInProcessTransact(b *testing.B) {
	ctx := context.Background()
	c := startInProcess(b)
	cl, key := c.Client(), c.Keys()[0]
	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	for range b.N {
		if _, err := chain.Transact(ctx, cl, key, &to, big.NewInt(1), nil); err != nil {
			b.Fatal(err)
		}
	}
}
