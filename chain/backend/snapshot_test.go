package backend_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
)

const genesis = 3_000_000_000

// fixedTime starts each local backend with a fixed genesis time and
// one-second blocks.
var fixedTime = map[string]func(t *testing.T) backend.Backend{
	"inproc": func(t *testing.T) backend.Backend { return startInProcess(t) },
	"embedded": func(t *testing.T) backend.Backend {
		e, err := embedded.New(backend.EmbeddedOptions{Keys: 1, BlockPeriod: -1, GenesisTime: genesis})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		return e
	},
	"anvil": func(t *testing.T) backend.Backend {
		a, err := backend.StartAnvil(context.Background(), anvil.Options{Accounts: 1, Timestamp: genesis, BlockTimestampInterval: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = a.Close() })
		return a
	},
}

func TestSnapshotRevert(t *testing.T) {
	for name, start := range fixedTime {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := start(t)
			c, key := b.Client(), b.Keys()[0]
			to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
			send := func() {
				t.Helper()
				if _, err := chain.Transact(ctx, c, key, &to, big.NewInt(1), nil); err != nil {
					t.Fatal(err)
				}
			}
			head := func() (uint64, uint64) {
				t.Helper()
				h, err := c.HeaderByNumber(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				return h.Number.Uint64(), h.Time
			}
			balance := func() int64 {
				t.Helper()
				v, err := c.BalanceAt(ctx, to, nil)
				if err != nil {
					t.Fatal(err)
				}
				return v.Int64()
			}
			send()
			n0, t0 := head()
			if t0 != genesis+n0 {
				t.Fatalf("block %d at %d, want genesis + %d = %d", n0, t0, n0, genesis+n0)
			}
			id, err := b.(backend.Snapshotter).Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 3 {
				send()
				time.Sleep(1100 * time.Millisecond * time.Duration(round%2)) // wall-clock time passes; block time must not
				send()
				if got := balance(); got != 3 {
					t.Fatalf("round %d: balance %d after two more transfers, want 3", round, got)
				}
				if err := b.(backend.Snapshotter).Revert(ctx, id); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if n, tm := head(); n != n0 || tm != t0 {
					t.Fatalf("round %d: head after revert is block %d at %d, want block %d at %d", round, n, tm, n0, t0)
				}
				if got := balance(); got != 1 {
					t.Fatalf("round %d: balance %d after revert, want 1", round, got)
				}
			}
			send()
			if n, tm := head(); n != n0+1 || tm != t0+1 {
				t.Fatalf("the block after a revert is block %d at %d, want block %d at %d", n, tm, n0+1, t0+1)
			}
			if err := b.(backend.Snapshotter).Revert(ctx, backend.SnapshotID("nonsense")); err == nil {
				t.Fatal("Revert to an unknown snapshot succeeded")
			}
		})
	}
}

func TestAnvilCloseNeverStarted(t *testing.T) {
	a, err := backend.StartAnvil(context.Background(), anvil.Options{Binary: t.TempDir() + "/missing-anvil"})
	if err == nil {
		t.Fatal("StartAnvil with a missing binary succeeded")
	}
	var b backend.Backend = a // a typed nil, as a caller storing the result would hold
	if err := b.Close(); err != nil {
		t.Fatalf("Close after a failed start: %v", err)
	}
}
