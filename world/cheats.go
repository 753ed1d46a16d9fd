package world

// Cheatcodes, with forge's names: state set without transactions, sends as
// an address without its key, time and block number moved on demand.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
)

// ErrCheatUnsupported is returned (wrapped in a *CheatError) by a cheatcode
// the World's backend cannot perform.
var ErrCheatUnsupported = errors.New("cheatcode not available on this backend")

// CheatError is a cheatcode refused by the World's backend: a go-ethereum
// node (the embedded backend) can neither set state without a transaction
// nor send as an address without its key.
type CheatError struct {
	Cheat   string       // the World method, e.g. "Prank"
	Backend backend.Kind // the World's backend
	Can     []backend.Kind
}

func (e *CheatError) Error() string {
	can := make([]string, len(e.Can))
	for i, k := range e.Can {
		can[i] = string(k)
	}
	return fmt.Sprintf("world: %s: cheatcode not available on the %s backend (a go-ethereum node sets no state without a transaction and sends nothing without a key): use %s", e.Cheat, e.Backend, strings.Join(can, ", "))
}

func (e *CheatError) Unwrap() error { return ErrCheatUnsupported }

// cheats returns the backend's Cheats, or a *CheatError naming cheat.
func (w *World) cheats(cheat string) (backend.Cheats, error) {
	if c, ok := w.chain.(backend.Cheats); ok {
		return c, nil
	}
	return nil, &CheatError{Cheat: cheat, Backend: w.kind, Can: []backend.Kind{backend.KindInProcess, backend.KindAnvil, backend.KindFork}}
}

// miner returns the backend's Miner, or a *CheatError naming cheat.
func (w *World) miner(cheat string) (backend.Miner, error) {
	if m, ok := w.chain.(backend.Miner); ok {
		return m, nil
	}
	return nil, &CheatError{Cheat: cheat, Backend: w.kind, Can: []backend.Kind{backend.KindInProcess, backend.KindEmbedded, backend.KindAnvil, backend.KindFork}}
}

// Deal sets the ether balance of holder (an *Actor or a common.Address) to
// wei, any amount (forge's vm.deal). Fund, by contrast, sends ether from
// the backend's funded key.
func (w *World) Deal(ctx context.Context, holder any, wei *big.Int) error {
	c, err := w.cheats("Deal")
	if err != nil {
		return err
	}
	a, err := HolderAddress(holder)
	if err != nil {
		return fmt.Errorf("world: Deal: %w", err)
	}
	if err := c.SetBalance(ctx, a, wei); err != nil {
		return fmt.Errorf("world: Deal %s: %w", HolderName(w.registry, holder), err)
	}
	return nil
}

// Store sets slot of addr's storage to value (forge's vm.store).
func (w *World) Store(ctx context.Context, addr common.Address, slot, value common.Hash) error {
	c, err := w.cheats("Store")
	if err != nil {
		return err
	}
	if err := c.SetStorage(ctx, addr, slot, value); err != nil {
		return fmt.Errorf("world: Store: %w", err)
	}
	return nil
}

// Load reads slot of addr's storage at the latest block (forge's vm.load),
// on every backend (eth_getStorageAt).
func (w *World) Load(ctx context.Context, addr common.Address, slot common.Hash) (common.Hash, error) {
	v, err := w.client.StorageAt(ctx, addr, slot, nil)
	if err != nil {
		return common.Hash{}, fmt.Errorf("world: Load: %w", err)
	}
	return common.BytesToHash(v), nil
}

// Etch sets the code at addr (forge's vm.etch): runtime bytecode, not
// creation code; its storage is kept.
func (w *World) Etch(ctx context.Context, addr common.Address, code []byte) error {
	c, err := w.cheats("Etch")
	if err != nil {
		return err
	}
	if err := c.SetCode(ctx, addr, code); err != nil {
		return fmt.Errorf("world: Etch: %w", err)
	}
	return nil
}

// Warp mines an empty block stamped t (Unix seconds; forge's vm.warp): the
// contracts see block.timestamp t in calls from now on, and t+1, t+2, … in
// the transactions after (one block each, one second apart). A chain's
// time only moves forward: a t not after the latest block's time is an
// error wrapping backend.ErrTimeBackwards (go back with Snapshot and
// Revert). Clock follows in half-lifetime steps.
func (w *World) Warp(ctx context.Context, t uint64) error {
	m, err := w.miner("Warp")
	if err != nil {
		return err
	}
	if err := m.MineAt(ctx, t); err != nil {
		return fmt.Errorf("world: Warp: %w", err)
	}
	return nil
}

// Roll mines empty blocks until the latest block is number n (forge's
// vm.roll): calls see block.number n from now on, the next transaction
// n+1. Each block is one second after its parent, so time moves with it. A
// chain's number only moves forward: n not above the latest block's is an
// error.
func (w *World) Roll(ctx context.Context, n uint64) error {
	m, err := w.miner("Roll")
	if err != nil {
		return err
	}
	head, err := w.client.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("world: Roll: %w", err)
	}
	if n <= head {
		return fmt.Errorf("world: Roll: block %d is not after the latest block %d (a chain's number only moves forward: go back with Snapshot and Revert)", n, head)
	}
	if err := m.Mine(ctx, n-head); err != nil {
		return fmt.Errorf("world: Roll: %w", err)
	}
	return nil
}

// Prank makes the next Send go from addr, whatever actor it names, without
// addr's key (forge's vm.prank; anvil's impersonation): msg.sender and
// tx.origin are addr. The transaction is simulated first and mined like
// any other, and addr pays its gas like any sender (Deal it ether first if
// it has none); a mined pranked transaction is traced on the in-process
// chain (which knows its sender) but not replayed, so on the other backends
// neither traced nor recorded as evidence (ErrPrankedReplay), while one
// refused in simulation is. Only Send is pranked: Fund, deployments and the PACE
// flows sign with their actors' keys.
func (w *World) Prank(addr common.Address) error {
	if _, err := w.cheats("Prank"); err != nil {
		return err
	}
	w.prank = &prank{from: addr, once: true}
	return nil
}

// StartPrank makes every Send go from addr until StopPrank (forge's
// vm.startPrank).
func (w *World) StartPrank(addr common.Address) error {
	if _, err := w.cheats("StartPrank"); err != nil {
		return err
	}
	w.prank = &prank{from: addr}
	return nil
}

// StopPrank ends StartPrank, or a Prank not used yet (forge's
// vm.stopPrank).
func (w *World) StopPrank() { w.prank = nil }

// ErrPrankedReplay is returned by RecordTx, and by TxResult.Trace except on
// the in-process chain, for a mined transaction sent under a prank: its effects come from a replay
// (tracesim), which accepts only transactions whose signature recovers
// their sender (docs/SPEC.md, "Replay cache"), and a pranked transaction
// has no signature. A pranked call refused in simulation traces and
// records as any other.
var ErrPrankedReplay = errors.New("world: a mined pranked transaction has no signature, and a replay accepts only transactions whose signature recovers their sender")

// prank is the address the next Sends go from (Prank, StartPrank).
type prank struct {
	from common.Address
	once bool
}

// pranked returns the sender of the next Send under a prank (and ends a
// one-time prank), or nil.
func (w *World) pranked() *Actor {
	p := w.prank
	if p == nil {
		return nil
	}
	if p.once {
		w.prank = nil
	}
	name := p.from.Hex()
	if n, ok := w.registry.Label(p.from); ok {
		name = n
	}
	return &Actor{Name: name, Address: p.from}
}

// sendAs sends a transaction from an address without its key (Cheats.SendAs)
// with the World's fees, a gas limit (0: the World's rounded estimate) and
// waits for its receipt. A transaction estimated here that reverted on
// chain is an error, as chain.Transact makes it.
func (w *World) sendAs(ctx context.Context, from common.Address, to common.Address, value *big.Int, data []byte, gas uint64) (*types.Receipt, error) {
	c, err := w.cheats("Prank")
	if err != nil {
		return nil, err
	}
	nonce, err := w.client.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, err
	}
	estimated := gas == 0
	if estimated {
		if gas, err = w.client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data}); err != nil {
			return nil, err
		}
	}
	tip, feeCap, err := chain.Fees(ctx, w.client)
	if err != nil {
		return nil, err
	}
	h, err := c.SendAs(ctx, from, &types.DynamicFeeTx{Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value, Data: data})
	if err != nil {
		return nil, fmt.Errorf("world: send as %s: %w", from, err)
	}
	rc, err := chain.WaitMined(ctx, w.client, h)
	if err != nil {
		return nil, err
	}
	if estimated && rc.Status != types.ReceiptStatusSuccessful {
		return rc, fmt.Errorf("chain: transaction %s reverted", h)
	}
	return rc, nil
}

// DealOption modifies one DealToken.
type DealOption func(*dealOptions)

type dealOptions struct{ adjustSupply bool }

// AdjustSupply makes DealToken change the token's totalSupply by as much as
// it changes the holder's balance (forge-std's deal(token, to, amount,
// true)).
func AdjustSupply() DealOption { return func(o *dealOptions) { o.adjustSupply = true } }

// ErrNoBalanceSlot is returned (wrapped) by DealToken when no storage the
// token's balanceOf (or totalSupply) reads holds the balance as a plain
// unsigned integer: a rebasing or computed balance, or one kept in another
// contract.
var ErrNoBalanceSlot = errors.New("world: DealToken: no storage slot holds the balance")

// DealToken sets holder's balance of the ERC-20 token to amount, as
// forge-std's deal does with stdStorage: it traces balanceOf(holder) to
// find the storage slots it reads, finds the one (and the bits within it,
// for a balance packed with other fields) that balanceOf returns, writes
// amount there and confirms it by calling balanceOf again. With
// AdjustSupply the totalSupply is found and changed the same way. Other
// fields packed in the same slot keep their values.
func (w *World) DealToken(ctx context.Context, token common.Address, holder any, amount *big.Int, opts ...DealOption) error {
	var o dealOptions
	for _, opt := range opts {
		opt(&o)
	}
	c, err := w.cheats("DealToken")
	if err != nil {
		return err
	}
	a, err := HolderAddress(holder)
	if err != nil {
		return fmt.Errorf("world: DealToken: %w", err)
	}
	balanceOf, err := erc20ABI.Pack("balanceOf", a)
	if err != nil {
		return err
	}
	old, err := w.setUint(ctx, c, token, balanceOf, amount)
	if err != nil {
		return fmt.Errorf("world: DealToken %s of %s: %w", HolderName(w.registry, holder), w.addressName(token), err)
	}
	if !o.adjustSupply {
		return nil
	}
	totalSupply, err := erc20ABI.Pack("totalSupply")
	if err != nil {
		return err
	}
	supply, err := w.readUint(ctx, token, totalSupply)
	if err != nil {
		return fmt.Errorf("world: DealToken: totalSupply of %s: %w", w.addressName(token), err)
	}
	supply.Add(supply.Sub(supply, old), amount)
	if _, err := w.setUint(ctx, c, token, totalSupply, supply); err != nil {
		return fmt.Errorf("world: DealToken: totalSupply of %s: %w", w.addressName(token), err)
	}
	return nil
}

func (w *World) addressName(a common.Address) string { return HolderName(w.registry, a) }

// readUint calls the view call on token and reads its uint256 result.
func (w *World) readUint(ctx context.Context, token common.Address, call []byte) (*big.Int, error) {
	out, err := w.client.CallContract(ctx, ethereum.CallMsg{To: &token, Data: call}, nil)
	if err != nil {
		return nil, err
	}
	if len(out) != 32 {
		return nil, fmt.Errorf("returned %d bytes, not a uint256 (is it an ERC-20 token?)", len(out))
	}
	return new(big.Int).SetBytes(out), nil
}

// setUint makes the view call on token return v by writing the storage it
// reads (see DealToken), and returns what it returned before.
func (w *World) setUint(ctx context.Context, c backend.Cheats, token common.Address, call []byte, v *big.Int) (*big.Int, error) {
	old, err := w.readUint(ctx, token, call)
	if err != nil {
		return nil, err
	}
	slots, err := c.StorageReads(ctx, ethereum.CallMsg{To: &token, Data: call}, token)
	if err != nil {
		return nil, fmt.Errorf("tracing the call: %w", err)
	}
	// The slot a mapping lookup reads is usually the last: try from the end.
	for _, slot := range slices.Backward(slots) {
		f, ok, err := w.findField(ctx, c, token, call, slot, old)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if v.Sign() < 0 || v.BitLen() > f.bits {
			return nil, fmt.Errorf("amount %s does not fit the %d-bit field at bit %d of slot %s", v, f.bits, f.offset, slot)
		}
		if err := c.SetStorage(ctx, token, slot, f.with(v)); err != nil {
			return nil, err
		}
		got, err := w.readUint(ctx, token, call)
		if err != nil {
			return nil, err
		}
		if got.Cmp(v) != 0 {
			_ = c.SetStorage(ctx, token, slot, f.value)
			return nil, fmt.Errorf("%w: wrote %s to slot %s, the call returns %s", ErrNoBalanceSlot, v, slot, got)
		}
		return old, nil
	}
	return nil, fmt.Errorf("%w (the call read %d slots of %s)", ErrNoBalanceSlot, len(slots), token)
}

// field is an unsigned integer stored in bits [offset, offset+bits) of a
// slot whose value is value.
type field struct {
	value        common.Hash
	offset, bits int
}

// with returns the slot's value with the field set to v (v fits).
func (f field) with(v *big.Int) common.Hash {
	mask := new(big.Int).Lsh(new(big.Int).Sub(new(big.Int).Lsh(common.Big1, uint(f.bits)), common.Big1), uint(f.offset))
	x := new(big.Int).SetBytes(f.value[:])
	x.AndNot(x, mask).Or(x, new(big.Int).Lsh(v, uint(f.offset)))
	return common.BigToHash(x)
}

// findField finds, in slot of token, the bits the call returns: it flips
// one bit at a time (at byte boundaries, where Solidity packs fields),
// from the lowest, until the result changes by a power of two, which
// places the field's lowest bit, then flips higher bits until the result
// no longer changes accordingly, which ends it. The slot is restored after
// each probe. ok is false when the slot does not hold the result.
func (w *World) findField(ctx context.Context, c backend.Cheats, token common.Address, call []byte, slot common.Hash, want *big.Int) (f field, ok bool, err error) {
	v, err := w.Load(ctx, token, slot)
	if err != nil {
		return f, false, err
	}
	f.value = v
	// delta is how much the call's result moves when bit i of the slot is
	// flipped (nil: the call failed).
	delta := func(i int) (*big.Int, error) {
		x := new(big.Int).SetBytes(v[:])
		x.SetBit(x, i, x.Bit(i)^1)
		if err := c.SetStorage(ctx, token, slot, common.BigToHash(x)); err != nil {
			return nil, err
		}
		got, rerr := w.readUint(ctx, token, call)
		if err := c.SetStorage(ctx, token, slot, v); err != nil {
			return nil, err
		}
		if rerr != nil {
			return nil, nil
		}
		return new(big.Int).Abs(got.Sub(got, want)), nil
	}
	low := -1
	for i := 0; i < 256; i += 8 {
		d, err := delta(i)
		if err != nil {
			return f, false, err
		}
		if d == nil || d.Sign() == 0 {
			continue
		}
		j := d.BitLen() - 1
		if new(big.Int).Lsh(common.Big1, uint(j)).Cmp(d) != 0 || j > i {
			return f, false, nil // not a stored integer
		}
		low = i - j
		break
	}
	if low < 0 {
		return f, false, nil
	}
	// The field holds the stored value itself: its bits below the first one
	// probed must be the result's.
	x := new(big.Int).SetBytes(v[:])
	f.offset, f.bits = low, 256-low
	for i := low + 8; i < 256; i += 8 {
		d, err := delta(i)
		if err != nil {
			return f, false, err
		}
		if d == nil || d.Cmp(new(big.Int).Lsh(common.Big1, uint(i-low))) != 0 {
			f.bits = i - low
			break
		}
	}
	stored := new(big.Int).Rsh(x, uint(f.offset))
	stored.And(stored, new(big.Int).Sub(new(big.Int).Lsh(common.Big1, uint(f.bits)), common.Big1))
	return f, stored.Cmp(want) == 0, nil
}
