package afrspec

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	gtypes "github.com/onsi/gomega/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/internal/show"
	"github.com/agentflightrecorder/afr/world"
)

// ---- ChangeEtherBalances, ChangeTokenBalances ----

// BalanceOption adjusts a balance-change matcher.
type BalanceOption func(*balanceMatcher)

// IncludeFee counts the fee the sender paid (gas used × effective gas
// price) in the sender's ether balance change. By default it is left out,
// as hardhat-chai-matchers' changeEtherBalance does without
// {includeFee: true}: the sender's change is then what the transaction
// moved.
func IncludeFee() BalanceOption { return func(m *balanceMatcher) { m.includeFee = true } }

type balanceMatcher struct {
	matcher    string
	token      *common.Address // nil: ether
	holders    []any
	deltas     []any
	includeFee bool
	// for messages
	outcome string
	reg     *calldata.Registry
	got     []*big.Int
	bad     int
	fee     *big.Int
}

// ChangeEtherBalances succeeds when the transaction changed the ether
// balance of each holder (*world.Actor or common.Address) by the matching delta
// in wei (an integer, *big.Int or Gomega matcher; negative for a loss), as
// changeEtherBalances of hardhat-chai-matchers. The sender's fee is left
// out unless IncludeFee is given. The actual value is a *world.TxResult of a
// World: balances are read at the transaction's block and the one before
// (each transaction of a World is mined in a block of its own); a call
// refused in simulation changed nothing.
func ChangeEtherBalances(holders []any, deltas []any, opts ...BalanceOption) gtypes.GomegaMatcher {
	m := &balanceMatcher{matcher: "ChangeEtherBalances", holders: holders, deltas: deltas}
	for _, o := range opts {
		o(m)
	}
	return m
}

// ChangeEtherBalance is ChangeEtherBalances for one holder.
func ChangeEtherBalance(holder any, delta any, opts ...BalanceOption) gtypes.GomegaMatcher {
	m := ChangeEtherBalances([]any{holder}, []any{delta}, opts...).(*balanceMatcher)
	m.matcher = "ChangeEtherBalance"
	return m
}

// ChangeTokenBalances succeeds when the transaction changed the ERC-20
// balance (balanceOf) of each holder in token by the matching delta, as
// changeTokenBalances of hardhat-chai-matchers. The actual value is a
// *world.TxResult of a World (see ChangeEtherBalances).
func ChangeTokenBalances(token common.Address, holders []any, deltas []any) gtypes.GomegaMatcher {
	return &balanceMatcher{matcher: "ChangeTokenBalances", token: &token, holders: holders, deltas: deltas}
}

// ChangeTokenBalance is ChangeTokenBalances for one holder.
func ChangeTokenBalance(token common.Address, holder any, delta any) gtypes.GomegaMatcher {
	m := ChangeTokenBalances(token, []any{holder}, []any{delta}).(*balanceMatcher)
	m.matcher = "ChangeTokenBalance"
	return m
}

func (m *balanceMatcher) Match(actual any) (bool, error) {
	r, ok := actual.(*world.TxResult)
	if !ok || r == nil {
		return false, fmt.Errorf("%s expects the *world.TxResult of a World's transaction, got %T", m.matcher, actual)
	}
	if len(m.holders) != len(m.deltas) {
		return false, fmt.Errorf("%s: %d holder(s) but %d delta(s)", m.matcher, len(m.holders), len(m.deltas))
	}
	if m.includeFee && r.From == nil {
		return false, fmt.Errorf("%s: IncludeFee needs the sender (TxResult.From)", m.matcher)
	}
	addrs := make([]common.Address, len(m.holders))
	for i, h := range m.holders {
		a, err := world.HolderAddress(h)
		if err != nil {
			return false, fmt.Errorf("%s: holder %d: %w", m.matcher, i, err)
		}
		addrs[i] = a
	}
	m.reg, m.outcome, m.bad, m.fee = r.Registry, "", -1, nil
	m.got = make([]*big.Int, len(addrs))
	if r.Receipt == nil {
		// Refused in simulation (or never sent): nothing was mined.
		m.outcome = " (nothing was mined: the " + r.String() + ")"
		for i := range m.got {
			m.got[i] = new(big.Int)
		}
	} else if err := m.read(r, addrs); err != nil {
		return false, err
	}
	for i, want := range m.deltas {
		ok, err := argMatches(want, m.got[i])
		if err != nil {
			return false, err
		}
		if !ok {
			m.bad = i
			return false, nil
		}
	}
	return true, nil
}

// read sets m.got to the balance changes across the result's block.
func (m *balanceMatcher) read(r *world.TxResult, addrs []common.Address) error {
	if r.Client == nil {
		return fmt.Errorf("%s: the *world.TxResult has no Client to read balances with (results of World.Send and World.Submit have one)", m.matcher)
	}
	ctx := context.Background()
	rc := r.Receipt
	blk, err := r.Client.BlockByNumber(ctx, rc.BlockNumber)
	if err != nil {
		return fmt.Errorf("%s: block %d: %w", m.matcher, rc.BlockNumber, err)
	}
	if n := len(blk.Transactions()); n != 1 {
		var others []string
		for _, tx := range blk.Transactions() {
			if tx.Hash() != rc.TxHash {
				others = append(others, tx.Hash().Hex())
			}
		}
		return fmt.Errorf("%s: block %d holds %d transactions (others: %s): the balance changes cannot be attributed to transaction %s alone",
			m.matcher, rc.BlockNumber, n, strings.Join(others, ", "), rc.TxHash.Hex())
	}
	before := new(big.Int).Sub(rc.BlockNumber, big.NewInt(1))
	read := func(a common.Address, at *big.Int) (*big.Int, error) {
		if m.token != nil {
			return world.TokenBalance(ctx, r.Client, *m.token, a, at)
		}
		return r.Client.BalanceAt(ctx, a, at)
	}
	for i, a := range addrs {
		b0, err := read(a, before)
		if err != nil {
			return fmt.Errorf("%s: %w", m.matcher, err)
		}
		b1, err := read(a, rc.BlockNumber)
		if err != nil {
			return fmt.Errorf("%s: %w", m.matcher, err)
		}
		m.got[i] = new(big.Int).Sub(b1, b0)
		if m.token == nil && r.From != nil && a == r.From.Address {
			m.fee = txFee(rc)
			if !m.includeFee {
				m.got[i].Add(m.got[i], m.fee)
			}
		}
	}
	return nil
}

// txFee is what the sender paid for gas (blob gas included).
func txFee(rc *types.Receipt) *big.Int {
	fee := new(big.Int).Mul(new(big.Int).SetUint64(rc.GasUsed), rc.EffectiveGasPrice)
	if rc.BlobGasPrice != nil {
		fee.Add(fee, new(big.Int).Mul(new(big.Int).SetUint64(rc.BlobGasUsed), rc.BlobGasPrice))
	}
	return fee
}

func (m *balanceMatcher) what() string {
	if m.token != nil {
		return "balance in token " + show.Address(m.reg, *m.token)
	}
	return "ether balance"
}

func (m *balanceMatcher) FailureMessage(any) string {
	var b strings.Builder
	i := m.bad
	fmt.Fprintf(&b, "Expected the %s of %s to change by %s, but it changed by %s%s", m.what(), world.HolderName(m.reg, m.holders[i]),
		describeWant(m.deltas[i]), m.got[i], m.outcome)
	if m.fee != nil {
		if m.includeFee {
			fmt.Fprintf(&b, "\n  the sender's fee (%s wei) is included (IncludeFee)", m.fee)
		} else {
			fmt.Fprintf(&b, "\n  the sender's fee (%s wei) is left out (give IncludeFee() to count it)", m.fee)
		}
	}
	b.WriteString("\n  changes:")
	for j, h := range m.holders {
		fmt.Fprintf(&b, "\n    - %s: %s (expected %s)", world.HolderName(m.reg, h), m.got[j], describeWant(m.deltas[j]))
	}
	return b.String()
}

func (m *balanceMatcher) NegatedFailureMessage(any) string {
	parts := make([]string, len(m.holders))
	for j, h := range m.holders {
		parts[j] = fmt.Sprintf("%s by %s", world.HolderName(m.reg, h), m.got[j])
	}
	return fmt.Sprintf("Expected the %s changes not to be as given, but they are: %s", m.what(), strings.Join(parts, ", "))
}
