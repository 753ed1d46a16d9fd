package backend

import (
	"context"
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

// Anvil is an anvil process started by AFR (package chain/backend/anvil: loopback,
// free port, readiness check), stopped by Close.
type Anvil struct {
	Node *anvil.Node
	c    *ethclient.Client
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

// Close stops anvil.
func (a *Anvil) Close() error {
	a.c.Close()
	return a.Node.Stop()
}
