package world

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"

	"github.com/agentflightrecorder/afr/chain"
)

// Fee and gas-limit choices differ between nodes: anvil and go-ethereum
// suggest different priority fees and reach different base fees, and
// go-ethereum's gas estimate stops within 1.5% of the exact figure while
// anvil's searches to the unit. A transaction signed with either would have
// another hash on each backend, and with it every outcome event recorded
// after it and every event id derived from those — which a PDR carries in
// calldata, so even gas receipts would differ by backend. The World's
// client therefore pins them (chain.FeeChooser): a fixed priority fee and
// fee cap, and gas limits rounded up to a multiple of gasLimitStep (a test
// chain's blocks have room; the gas a transaction uses does not depend on
// its limit as long as the limit suffices).
const (
	worldTip     = 1_000_000_000   // 1 gwei
	worldFeeCap  = 100_000_000_000 // 100 gwei: far above a local chain's base fee
	gasLimitStep = 100_000
)

// pinnedFees is a chain.Client with the World's fixed fees and rounded gas
// limits; every other call goes to the node.
type pinnedFees struct{ chain.Client }

// ChooseFees implements chain.FeeChooser.
func (p pinnedFees) ChooseFees(ctx context.Context) (tip, feeCap *big.Int, err error) {
	h, err := p.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	if h.BaseFee != nil && h.BaseFee.Cmp(big.NewInt(worldFeeCap-worldTip)) > 0 {
		return nil, nil, fmt.Errorf("world: the base fee %s wei exceeds the World's fee cap of %d wei", h.BaseFee, worldFeeCap)
	}
	return big.NewInt(worldTip), big.NewInt(worldFeeCap), nil
}

// EstimateGas rounds the node's estimate up to a multiple of gasLimitStep.
func (p pinnedFees) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	gas, err := p.Client.EstimateGas(ctx, msg)
	if err != nil {
		return 0, err
	}
	return (gas/gasLimitStep + 1) * gasLimitStep, nil
}
