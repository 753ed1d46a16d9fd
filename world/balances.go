package world

// Balances, in ether and in ERC-20 tokens.

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/internal/show"
)

// HolderAddress resolves what specs name a balance holder with: an *Actor,
// a common.Address or a *common.Address.
func HolderAddress(h any) (common.Address, error) {
	switch v := h.(type) {
	case *Actor:
		if v != nil {
			return v.Address, nil
		}
	case common.Address:
		return v, nil
	case *common.Address:
		if v != nil {
			return *v, nil
		}
	default:
		return common.Address{}, fmt.Errorf("a balance holder is an *world.Actor or a common.Address, got %T", h)
	}
	return common.Address{}, fmt.Errorf("a balance holder is a nil %T", h)
}

// HolderName names a balance holder for messages.
func HolderName(reg *calldata.Registry, h any) string {
	if a, ok := h.(*Actor); ok {
		return a.String()
	}
	addr, _ := HolderAddress(h)
	return show.Address(reg, addr)
}

// TokenBalance reads token.balanceOf(holder) at block (nil: the latest) with
// eth_call.
func TokenBalance(ctx context.Context, c chain.Client, token, holder common.Address, block *big.Int) (*big.Int, error) {
	data, err := erc20ABI.Pack("balanceOf", holder)
	if err != nil {
		return nil, err
	}
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &token, Data: data}, block)
	if err != nil {
		return nil, fmt.Errorf("balanceOf(%s) on %s: %w", holder.Hex(), token.Hex(), err)
	}
	vals, err := erc20ABI.Unpack("balanceOf", out)
	if err != nil {
		return nil, fmt.Errorf("balanceOf(%s) on %s returned %d bytes, not a uint256 (is it an ERC-20 token?): %w", holder.Hex(), token.Hex(), len(out), err)
	}
	return vals[0].(*big.Int), nil
}

var erc20ABI = mustABI(erc20JSON)

// Balances returns the ether balances (wei) of holders (*Actor or
// common.Address) at the latest block.
func (w *World) Balances(ctx context.Context, holders ...any) ([]*big.Int, error) {
	return w.balances(holders, func(a common.Address) (*big.Int, error) { return w.client.BalanceAt(ctx, a, nil) })
}

// TokenBalances returns the ERC-20 balances of holders (*Actor or
// common.Address) in token at the latest block.
func (w *World) TokenBalances(ctx context.Context, token common.Address, holders ...any) ([]*big.Int, error) {
	return w.balances(holders, func(a common.Address) (*big.Int, error) { return TokenBalance(ctx, w.client, token, a, nil) })
}

func (w *World) balances(holders []any, read func(common.Address) (*big.Int, error)) ([]*big.Int, error) {
	out := make([]*big.Int, len(holders))
	for i, h := range holders {
		a, err := HolderAddress(h)
		if err != nil {
			return nil, fmt.Errorf("world: holder %d: %w", i, err)
		}
		if out[i], err = read(a); err != nil {
			return nil, fmt.Errorf("world: balance of %s: %w", HolderName(w.registry, h), err)
		}
	}
	return out, nil
}
