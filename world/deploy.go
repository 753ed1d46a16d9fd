package world

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/artifacts"
	"github.com/agentflightrecorder/afr/pdr"
)

// deploy deploys EpochAnchor, the PaceSmartAccount (owner, policy signer,
// approvers and threshold of the World) and the shipped specs' targets,
// and funds the account.
func (w *World) deploy(ctx context.Context) error {
	var approvers []common.Address
	for _, a := range w.approvers {
		approvers = append(approvers, a.Address)
	}
	d, err := chain.Deploy(ctx, w.client, w.deployer.Key, &chain.PaceConfig{Owner: w.owner.Address,
		PolicySigner: w.policySig.Address, Approvers: approvers, Threshold: w.cfg.Threshold})
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	d.RPC = w.chain.URL()
	w.deployment, w.epochAnchor, w.account = *d, d.EpochAnchor, *d.Pace
	w.domain = pdr.Domain{ChainID: w.chainID, Account: w.account}
	_ = w.registry.Bind(w.account, "PaceSmartAccount")
	_ = w.registry.Bind(w.epochAnchor, "EpochAnchor")
	for _, t := range []struct {
		name string
		addr *common.Address
	}{{"Counter", &w.counter}, {"Sink", &w.sink}} {
		a, err := TargetArtifact(t.name)
		if err != nil {
			return err
		}
		if *t.addr, err = w.DeployArtifact(ctx, w.deployer, a); err != nil {
			return err
		}
	}
	// Fund the account so calls with value can succeed.
	if _, err := chain.Transact(ctx, w.client, w.deployer.Key, &w.account, big.NewInt(5e18), nil); err != nil {
		return fmt.Errorf("world: funding the account: %w", err)
	}
	return nil
}

// DeployArtifact deploys a with constructor args from an actor and
// registers its ABI (bound to the new address) in the World's registry.
func (w *World) DeployArtifact(ctx context.Context, from *Actor, a *Artifact, args ...any) (common.Address, error) {
	input, err := a.ABI.Pack("", args...)
	if err != nil {
		return common.Address{}, fmt.Errorf("world: constructor of %s: %w", a.Name, err)
	}
	rc, err := chain.Transact(ctx, w.client, from.Key, nil, nil, append(append([]byte{}, a.Bin...), input...))
	if err != nil {
		return common.Address{}, fmt.Errorf("world: deploying %s: %w", a.Name, err)
	}
	if _, ok := w.registry.Contract(a.Name); !ok {
		if err := w.registry.Add(a.Name, "afrspec", a.ABI); err != nil {
			return common.Address{}, err
		}
	}
	_ = w.registry.Bind(rc.ContractAddress, a.Name)
	// Its deployed code identifies other instances (created by a factory,
	// say): their calls, events and reverts decode with its ABI too.
	code, err := w.client.CodeAt(ctx, rc.ContractAddress, nil)
	if err != nil {
		return common.Address{}, fmt.Errorf("world: code of %s: %w", a.Name, err)
	}
	w.knowCode(&artifacts.Artifact{Name: a.Name, Runtime: a.runtimeOr(code), Immutables: a.Immutables})
	return rc.ContractAddress, nil
}
