package backend_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
)

// cheaters are the fixed-time backends with Cheats.
var cheaters = []string{"inproc", "anvil"}

// A balance set by a cheat is kept by a snapshot taken after it and undone
// by a revert to a snapshot taken before it, on both backends with Cheats
// (the in-process chain names the uncommitted state in its snapshot id).
func TestCheatsSnapshotRevert(t *testing.T) {
	for _, name := range cheaters {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := fixedTime[name](t)
			cheats := b.(backend.Cheats)
			snap := b.(backend.Snapshotter)
			a := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
			balance := func() int64 {
				t.Helper()
				v, err := b.Client().BalanceAt(ctx, a, nil)
				if err != nil {
					t.Fatal(err)
				}
				return v.Int64()
			}
			before, err := snap.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := cheats.SetBalance(ctx, a, big.NewInt(7)); err != nil {
				t.Fatal(err)
			}
			after, err := snap.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := cheats.SetBalance(ctx, a, big.NewInt(9)); err != nil {
				t.Fatal(err)
			}
			if err := snap.Revert(ctx, after); err != nil {
				t.Fatal(err)
			}
			if got := balance(); got != 7 {
				t.Fatalf("after reverting to the snapshot taken after the cheat: balance %d, want 7", got)
			}
			if err := snap.Revert(ctx, before); err != nil {
				t.Fatal(err)
			}
			if got := balance(); got != 0 {
				t.Fatalf("after reverting to the snapshot taken before the cheat: balance %d, want 0", got)
			}
		})
	}
}

// SendAs mines an unsigned transaction from a keyless address: its value
// moves, its nonce advances, and it is found by hash with its receipt.
func TestSendAs(t *testing.T) {
	for _, name := range cheaters {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := fixedTime[name](t)
			c := b.Client()
			from := common.HexToAddress("0x000000000000000000000000000000000000beef")
			to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
			if err := b.(backend.Cheats).SetBalance(ctx, from, big.NewInt(1e18)); err != nil {
				t.Fatal(err)
			}
			h, err := b.(backend.Cheats).SendAs(ctx, from, &types.DynamicFeeTx{Gas: 21_000, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11), To: &to, Value: big.NewInt(5)})
			if err != nil {
				t.Fatal(err)
			}
			rc, err := chain.WaitMined(ctx, c, h)
			if err != nil {
				t.Fatal(err)
			}
			if rc.Status != types.ReceiptStatusSuccessful || rc.GasUsed != 21_000 {
				t.Fatalf("receipt status %d, gas %d; want 1, 21000", rc.Status, rc.GasUsed)
			}
			if v, _ := c.BalanceAt(ctx, to, nil); v.Int64() != 5 {
				t.Fatalf("recipient's balance %v, want 5", v)
			}
			if n, _ := c.NonceAt(ctx, from, nil); n != 1 {
				t.Fatalf("sender's nonce %d, want 1", n)
			}
			if _, _, err := c.TransactionByHash(ctx, h); err != nil {
				t.Fatalf("transaction by hash: %v", err)
			}
		})
	}
}

// MineAt stamps the next block with the time asked and refuses a time that
// is not after the head's, on every backend with a Miner; Mine adds blocks.
func TestMineAt(t *testing.T) {
	for name, start := range fixedTime {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := start(t)
			m := b.(backend.Miner)
			h0, err := b.Client().HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.MineAt(ctx, h0.Time+1000); err != nil {
				t.Fatal(err)
			}
			h1, err := b.Client().HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if h1.Number.Uint64() != h0.Number.Uint64()+1 || h1.Time != h0.Time+1000 {
				t.Fatalf("head %d at %d, want %d at %d", h1.Number, h1.Time, h0.Number.Uint64()+1, h0.Time+1000)
			}
			if err := m.MineAt(ctx, h1.Time); !errors.Is(err, backend.ErrTimeBackwards) {
				t.Fatalf("MineAt(head's time) = %v, want ErrTimeBackwards", err)
			}
			if err := m.Mine(ctx, 3); err != nil {
				t.Fatal(err)
			}
			h2, err := b.Client().HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if h2.Number.Uint64() != h1.Number.Uint64()+3 || h2.Time != h1.Time+3 {
				t.Fatalf("after Mine(3): head %d at %d, want %d at %d", h2.Number, h2.Time, h1.Number.Uint64()+3, h1.Time+3)
			}
		})
	}
}

// Revert parses the snapshot ids it is given: any other string is refused
// without changing the chain, and never panics.
func FuzzInProcessRevertID(f *testing.F) {
	ctx := context.Background()
	c := startInProcess(f)
	clean, err := c.Snapshot(ctx)
	if err != nil {
		f.Fatal(err)
	}
	if err := c.SetBalance(ctx, common.HexToAddress("0x0a11ce"), big.NewInt(7)); err != nil {
		f.Fatal(err)
	}
	dirty, err := c.Snapshot(ctx)
	if err != nil {
		f.Fatal(err)
	}
	valid := map[backend.SnapshotID]bool{clean: true, dirty: true}
	for id := range valid {
		f.Add(string(id))
		f.Add(string(id) + "-")
		f.Add(string(id)[:len(id)-1])
	}
	f.Add("inproc-1-")
	f.Fuzz(func(t *testing.T, id string) {
		err := c.Revert(ctx, backend.SnapshotID(id))
		if valid[backend.SnapshotID(id)] != (err == nil) {
			t.Fatalf("Revert(%q) = %v", id, err)
		}
	})
}
