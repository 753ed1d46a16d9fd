// Package backend runs the chains AFR talks to: a chain executed directly
// by package evm (InProcess, the default), go-ethereum's in-process node
// (package chain/backend/embedded, linked only into programs that import
// it), an anvil process AFR starts and stops (StartAnvil, with package
// anvil), an anvil forking another chain, or any JSON-RPC endpoint (Dial).
// Start starts a chain by its Kind, the one name the tools and tests give a
// backend.
// Each is a Backend whose Client is a chain.Client, so nothing above this
// package knows which one it talks to; the helpers that use a client
// (fees, signing, waiting, logs, deployment) are in package chain.
//
// The embedded chain lives in the process that created it: it is gone when
// the process exits. Separate afr invocations share a chain only through
// JSON-RPC: "afr chain" serves an embedded chain (or runs anvil) on a
// loopback port until interrupted.
package backend

import (
	"context"
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/agentflightrecorder/afr/chain"
)

// Backend is a running chain with funded keys.
type Backend interface {
	// Name is "embedded", "anvil" or "rpc".
	Name() string
	Client() chain.Client
	// URL is the JSON-RPC endpoint, or "" for a chain that is not served
	// over HTTP (an embedded chain without EmbeddedOptions.HTTP, an
	// in-process chain before InProcess.ServeRPC).
	URL() string
	// Keys are funded keys (dev accounts); none for a plain RPC endpoint.
	Keys() []*ecdsa.PrivateKey
	Close() error
}

// SnapshotID names a saved chain state (Snapshotter).
type SnapshotID string

// Snapshotter is a Backend whose state can be saved and restored, so that
// tests share one deployment and undo what each did: InProcess, Anvil and
// the embedded chain.
type Snapshotter interface {
	// Snapshot saves the chain as it is now (state, blocks, block time).
	Snapshot(ctx context.Context) (SnapshotID, error)
	// Revert restores the chain saved as id: the blocks mined since leave
	// the chain (their transactions and logs with them), pending
	// transactions are dropped, and the next block follows the restored
	// head in number and time. id stays valid for further Reverts; the
	// snapshots taken after it do not.
	Revert(ctx context.Context, id SnapshotID) error
}

// Dial connects to the target's JSON-RPC endpoint and checks that it
// serves the target's chain: an endpoint serving another chain is a
// *chain.ChainIDError naming both chain ids. Keys come from key files.
func Dial(ctx context.Context, t chain.Target, keys ...*ecdsa.PrivateKey) (Backend, error) {
	c, err := ethclient.DialContext(ctx, t.RPC)
	if err != nil {
		return nil, fmt.Errorf("chain: dial %s: %w", t.RPC, err)
	}
	if err := t.Check(ctx, c); err != nil {
		c.Close()
		return nil, err
	}
	return &rpcBackend{c: c, url: t.RPC, keys: keys}, nil
}

type rpcBackend struct {
	c    *ethclient.Client
	url  string
	keys []*ecdsa.PrivateKey
}

func (b *rpcBackend) Name() string              { return "rpc" }
func (b *rpcBackend) Client() chain.Client      { return b.c }
func (b *rpcBackend) URL() string               { return b.url }
func (b *rpcBackend) Keys() []*ecdsa.PrivateKey { return b.keys }
func (b *rpcBackend) Close() error              { b.c.Close(); return nil }
