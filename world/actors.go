package world

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Actor is a named key. Actors that send transactions are funded.
type Actor struct {
	Name    string
	Key     *ecdsa.PrivateKey
	Address common.Address
}

func (a *Actor) String() string { return fmt.Sprintf("%s (%s)", a.Name, a.Address) }

// ActorKey returns the key of the actor name: keccak256("afrspec actor " ‖
// name). Public by construction: test keys only.
func ActorKey(name string) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("afrspec actor " + name)))
	if err != nil {
		panic(err) // not a valid scalar: probability ~2^-128
	}
	return k
}

// Actor returns the actor name (its key is ActorKey(name)), creating it on
// first use. It is not funded: see Fund.
func (w *World) Actor(name string) *Actor {
	if a, ok := w.actors[name]; ok {
		return a
	}
	k := ActorKey(name)
	a := &Actor{Name: name, Key: k, Address: crypto.PubkeyToAddress(k.PublicKey)}
	w.actors[name] = a
	w.Label(a.Address, name)
	return a
}

// The World's own actors. Deployer, Agent, Operator (the anchoring key),
// Owner (of the account) and Attacker are funded with 10 ETH; PolicySigner
// and the Approvers only sign.
func (w *World) Deployer() *Actor     { return w.deployer }
func (w *World) Agent() *Actor        { return w.agent }
func (w *World) Operator() *Actor     { return w.operator }
func (w *World) Owner() *Actor        { return w.owner }
func (w *World) Attacker() *Actor     { return w.attacker }
func (w *World) PolicySigner() *Actor { return w.policySig }

// Approvers are the account's approvers (Config.Approvers of them), in
// order; Propose collects the first Threshold approvals.
func (w *World) Approvers() []*Actor { return append([]*Actor(nil), w.approvers...) }

// Fund sends wei to a from the backend's funded key, on the selected fork.
func (w *World) Fund(ctx context.Context, a *Actor, wei *big.Int) error {
	return fund(ctx, w.forkChain, a, wei)
}
