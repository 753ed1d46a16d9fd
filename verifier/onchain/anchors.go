// Package onchain reads what a verification needs from an EVM chain: the
// epoch roots an operator anchored for one log on EpochAnchor — per log
// (ChainAnchors), in its aggregate batches (ChainBatches, a
// verifier.BatchSource), or both at once (LogAnchors, the source afr verify
// uses) — and the executions of a PaceSmartAccount, each of which must
// match an intent the log recorded (Executions, a verifier.Completeness).
// ForDeployment builds both for one log of a deployment, as afr verify,
// query and report use them. Package verifier itself reads no chain: it
// stays a set of pure checks over the formats, small enough for an auditor
// to read, and this package is where the chain comes in.
//
// # Security
//
// The node is not trusted to be complete or honest: everything it returns
// is checked against the contract (events against the contract's head,
// logs against the query), and a node that hides, invents or misfilters
// events is an error (*chain.NodeError), never a finding against the
// operator.
package onchain

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
)

// ChainReader is what the chain checks read: events, calls and
// transactions. go-ethereum's ethclient and simulated clients implement it.
type ChainReader interface {
	ethereum.BlockNumberReader
	ethereum.LogFilterer
	ethereum.ContractCaller
	ethereum.TransactionReader
	ethereum.ChainReader
	ethereum.ChainIDReader
}

// ChainAnchors is a verifier.AnchorSource reading the anchors one operator
// committed for one log with EpochAnchor.anchor: its Anchored events
// (operator and log id indexed), cross-checked with the contract's current
// head of (operator, log id), so a node that hides the latest events is
// noticed. Anchors committed in the operator's aggregate batches are read
// by ChainBatches; LogAnchors combines both.
type ChainAnchors struct {
	Client   ChainReader
	Contract common.Address
	Operator common.Address
	// LogID is the log (format.LogID of its recorder and session; see
	// recorder.Log.LogID and verifier.Bundle.LogID). It is never zero:
	// log id zero is the operator's batch chain (ChainBatches).
	LogID format.Digest
	// FromBlock is where the event search starts (the deployment block).
	FromBlock uint64
}

// Anchors implements verifier.AnchorSource. Source is "chain tx 0x… block N".
//
// Events and head are read at one block (the latest when the call starts),
// so an anchor mined meanwhile cannot make them disagree. Everything the
// node returns is checked: each event must come from the contract and name
// the operator and the log, and the events must form the contract's chain — epochs 0..n
// without gaps, each prev_root the previous root, the last matching the
// head. A node that omits, invents or misfilters events is a
// *chain.NodeError, never a finding against the operator.
func (c ChainAnchors) Anchors(ctx context.Context) ([]format.Anchor, error) {
	ca, err := c.CheckAnchors(ctx)
	if err != nil {
		return nil, err
	}
	return ca.Anchors, nil
}

// CheckAnchors implements verifier.AnchorChecker. One key can anchor an
// epoch of a log both per log and in its aggregate batches, which this
// source does not read: when the operator's batch chain is not empty, a
// second root in a batch cannot be excluded, and the result is partial
// with a batch_withheld finding (LogAnchors reads both).
func (c ChainAnchors) CheckAnchors(ctx context.Context) (*verifier.CheckedAnchors, error) {
	if c.LogID.IsZero() {
		return nil, errors.New("chain anchors: no log id (log id zero is the batch chain: read it with ChainBatches)")
	}
	at, err := c.Client.BlockNumber(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain anchors: block number: %w", err)
	}
	chained, err := readChain(ctx, c.Client, c.Contract, c.Operator, c.LogID, c.FromBlock, at)
	if err != nil {
		return nil, err
	}
	ca := &verifier.CheckedAnchors{Anchors: make([]format.Anchor, len(chained))}
	for i, a := range chained {
		ca.Anchors[i] = a.Anchor
	}
	ea := bindings.NewEpochAnchor()
	res, err := c.Client.CallContract(ctx, ethereum.CallMsg{To: &c.Contract, Data: ea.PackHead(c.Operator, [32]byte{})}, blockNumber(at))
	if err != nil {
		return nil, fmt.Errorf("chain anchors: head of the batch chain: %w", err)
	}
	head, err := ea.UnpackHead(res)
	if err != nil {
		return nil, fmt.Errorf("chain anchors: head of the batch chain: %w", err)
	}
	if head.Anchored {
		ca.Partial = true
		ca.Findings = append(ca.Findings, verifier.Finding{Kind: verifier.KindBatchWithheld,
			Detail: fmt.Sprintf("operator %s also anchors in aggregate batches (%d so far), which this reader of per-log anchors does not read: a second root for an epoch of this log in a batch cannot be excluded (read both with onchain.LogAnchors, as afr verify does)", c.Operator, head.Epoch+1)})
	}
	return ca, nil
}

// chained is an anchor read from the chain, with its transaction.
type chained struct {
	format.Anchor
	tx common.Hash
}

func blockNumber(n uint64) *big.Int { return new(big.Int).SetUint64(n) }

// readChain reads the anchors of (operator, log id) at block at: the
// Anchored events, checked to form the contract's chain, whose last must be
// the contract's head at that block.
func readChain(ctx context.Context, client ChainReader, contract, operator common.Address, logID format.Digest, from, at uint64) ([]chained, error) {
	ea := bindings.NewEpochAnchor()
	block := blockNumber(at)
	id := [32]byte(logID)
	evs, err := chain.FilterAnchored(ctx, client, chain.AnchoredQuery{Contract: contract, Operator: &operator, LogID: &id, FromBlock: from, ToBlock: block})
	if err != nil {
		return nil, fmt.Errorf("chain anchors: %w", err)
	}
	out := make([]chained, 0, len(evs))
	for _, ev := range evs {
		a := chained{format.Anchor{Epoch: ev.Epoch, Root: format.Digest(ev.Root), PrevRoot: format.Digest(ev.PrevRoot),
			Source: fmt.Sprintf("chain tx %s block %d", ev.Raw.TxHash, ev.Raw.BlockNumber)}, ev.Raw.TxHash}
		// EpochAnchor accepts epoch t only on top of t−1: its events are a
		// chain, and anything else is the node's doing.
		if want := uint64(len(out)); a.Epoch != want {
			return nil, fmt.Errorf("chain anchors: %w", &chain.NodeError{
				Problem: fmt.Sprintf("the node's events of %s jump from epoch %d to %d: its event history is incomplete", logName(logID), int64(want)-1, a.Epoch),
				Hint:    "use an archive node or an earlier --from-block"})
		}
		if n := len(out); n > 0 && out[n-1].Root != a.PrevRoot {
			return nil, fmt.Errorf("chain anchors: %w", &chain.NodeError{
				Problem: fmt.Sprintf("the node's event for epoch %d of %s does not link to epoch %d: its event history is inconsistent", a.Epoch, logName(logID), n-1),
				Hint:    "use another node"})
		}
		out = append(out, a)
	}
	res, err := client.CallContract(ctx, ethereum.CallMsg{To: &contract, Data: ea.PackHead(operator, id)}, block)
	if err != nil {
		return nil, fmt.Errorf("chain anchors: head(operator, log id): %w (hint: is %s EpochAnchor version 2, with log ids?)", err, contract)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("chain anchors: no EpochAnchor at %s", contract)
	}
	head, err := ea.UnpackHead(res)
	if err != nil {
		return nil, fmt.Errorf("chain anchors: head: %w", err)
	}
	n := len(out)
	switch {
	case !head.Anchored && n == 0:
	case head.Anchored != (n > 0) || head.Epoch != out[n-1].Epoch || head.Commitment != bindings.AnchorCommitment(out[n-1].Epoch, out[n-1].Root):
		found := "no events"
		if n > 0 {
			found = fmt.Sprintf("events up to epoch %d", out[n-1].Epoch)
		}
		return nil, fmt.Errorf("chain anchors: %w", &chain.NodeError{
			Problem: fmt.Sprintf("the contract's head for operator %s, %s at block %d (anchored %v, epoch %d) does not match its %s: the node's event history is incomplete",
				operator, logName(logID), at, head.Anchored, head.Epoch, found),
			Hint: "use an archive node or an earlier --from-block"})
	}
	return out, nil
}

// logName names a log id in messages: "log 0x…", or "the batch chain".
func logName(id format.Digest) string {
	if id.IsZero() {
		return "the batch chain (log id 0)"
	}
	return "log " + id.String()
}
