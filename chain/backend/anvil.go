package backend

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

// Anvil is an anvil process started by AFR (package chain/backend/anvil: loopback,
// free port, readiness check), stopped by Close.
type Anvil struct {
	Node *anvil.Node
	c    *ethclient.Client

	mu    sync.Mutex
	snaps map[SnapshotID]string // our ids → anvil's current snapshot ids
	next  int
}

// StartAnvil starts anvil with opts and connects to it.
func StartAnvil(ctx context.Context, opts anvil.Options) (*Anvil, error) {
	n, err := anvil.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	c, err := ethclient.DialContext(ctx, n.URL())
	if err != nil {
		n.Stop()
		return nil, err
	}
	return &Anvil{Node: n, c: c}, nil
}

// Name implements Backend.
func (a *Anvil) Name() string { return "anvil" }

// Client implements Backend.
func (a *Anvil) Client() chain.Client { return a.c }

// URL implements Backend.
func (a *Anvil) URL() string { return a.Node.URL() }

// Keys implements Backend: anvil's funded dev keys.
func (a *Anvil) Keys() []*ecdsa.PrivateKey { return a.Node.Keys() }

// Close stops anvil. It does nothing on a nil *Anvil (one StartAnvil never
// returned), so a caller's cleanup cannot hide the error that stopped it.
func (a *Anvil) Close() error {
	if a == nil {
		return nil
	}
	a.c.Close()
	return a.Node.Stop()
}

// Snapshot implements Snapshotter with evm_snapshot.
func (a *Anvil) Snapshot(ctx context.Context) (SnapshotID, error) {
	var id string
	if err := a.Node.Call(ctx, &id, "evm_snapshot"); err != nil {
		return "", fmt.Errorf("chain: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.snaps == nil {
		a.snaps = map[SnapshotID]string{}
	}
	a.next++
	sid := SnapshotID(fmt.Sprintf("anvil-%d", a.next))
	a.snaps[sid] = id
	return sid, nil
}

// Revert implements Snapshotter with evm_revert. anvil forgets a snapshot
// once reverted to, so Revert takes it again (evm_snapshot) and id stays
// valid.
func (a *Anvil) Revert(ctx context.Context, id SnapshotID) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	aid, ok := a.snaps[id]
	if !ok {
		return fmt.Errorf("chain: no snapshot %q on this anvil (reverting to an earlier snapshot drops the later ones)", id)
	}
	var reverted bool
	if err := a.Node.Call(ctx, &reverted, "evm_revert", aid); err != nil {
		return fmt.Errorf("chain: %w", err)
	}
	if !reverted {
		return fmt.Errorf("chain: anvil refused to revert to snapshot %s", aid)
	}
	// evm_revert drops aid and every snapshot taken after it.
	for k, v := range a.snaps {
		if hexGreaterEq(v, aid) {
			delete(a.snaps, k)
		}
	}
	if err := a.Node.Call(ctx, &aid, "evm_snapshot"); err != nil {
		return fmt.Errorf("chain: %w", err)
	}
	a.snaps[id] = aid
	return nil
}

// hexGreaterEq compares anvil's snapshot ids, hex quantities that count up.
func hexGreaterEq(x, y string) bool {
	a, okA := new(big.Int).SetString(strings.TrimPrefix(x, "0x"), 16)
	b, okB := new(big.Int).SetString(strings.TrimPrefix(y, "0x"), 16)
	return okA && okB && a.Cmp(b) >= 0
}
