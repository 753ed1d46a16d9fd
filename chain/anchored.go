package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/contracts/bindings"
)

// NodeError reports answers of a node that contradict the query or the
// contract: logs of another contract or operator, events hidden, a history
// that does not link. It is the node's doing, never evidence against an
// operator; Hint says what to try.
type NodeError struct {
	Problem string
	Hint    string
}

func (e *NodeError) Error() string { return e.Problem + " (hint: " + e.Hint + ")" }

// AnchoredQuery selects Anchored events on one EpochAnchor: of one
// operator, one log id, one epoch, or any combination (nil: any).
type AnchoredQuery struct {
	Contract  common.Address
	Operator  *common.Address // one operator, or all when nil
	LogID     *[32]byte       // one log (0: the operator's batch chain), or all when nil
	Epoch     *uint64         // one epoch, or all when nil
	FromBlock uint64          // the deployment block, or later
	ToBlock   *big.Int        // nil: the latest block
}

// FilterAnchored returns the Anchored events q selects, in chain order,
// leaving out removed logs: the one reader of EpochAnchor's events, for the
// anchorer and the verifier alike. Every log the node returns is checked
// against the query (contract, event, and the operator, log id and epoch
// topics asked for); a log that does not match is a *NodeError.
func FilterAnchored(ctx context.Context, c LogReader, q AnchoredQuery) ([]*bindings.EpochAnchorAnchored, error) {
	ea := bindings.NewEpochAnchor()
	var want [3]*common.Hash
	if q.Operator != nil {
		h := common.BytesToHash(q.Operator[:])
		want[0] = &h
	}
	if q.LogID != nil {
		h := common.Hash(*q.LogID)
		want[1] = &h
	}
	if q.Epoch != nil {
		h := common.BigToHash(new(big.Int).SetUint64(*q.Epoch))
		want[2] = &h
	}
	logs, err := FilterEvent(ctx, c, q.Contract, ea.GetABI().Events["Anchored"].ID, want[:], q.FromBlock, q.ToBlock)
	if err != nil {
		return nil, fmt.Errorf("filter Anchored events: %w", err)
	}
	out := make([]*bindings.EpochAnchorAnchored, 0, len(logs))
	for i := range logs {
		ev, err := ea.UnpackAnchoredEvent(&logs[i])
		if err != nil {
			return nil, fmt.Errorf("Anchored event in tx %s: %w", logs[i].TxHash, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// BatchContentsQuery selects BatchContents events of one operator on one
// EpochAnchor (anchorBatch's published entries).
type BatchContentsQuery struct {
	Contract, Operator common.Address
	FromBlock          uint64   // the deployment block, or later
	ToBlock            *big.Int // nil: the latest block
}

// FilterBatchContents returns the BatchContents events q selects, in chain
// order, leaving out removed logs, checked against the query as
// FilterAnchored checks its logs.
func FilterBatchContents(ctx context.Context, c LogReader, q BatchContentsQuery) ([]*bindings.EpochAnchorBatchContents, error) {
	ea := bindings.NewEpochAnchor()
	op := common.BytesToHash(q.Operator[:])
	logs, err := FilterEvent(ctx, c, q.Contract, ea.GetABI().Events["BatchContents"].ID, []*common.Hash{&op, nil}, q.FromBlock, q.ToBlock)
	if err != nil {
		return nil, fmt.Errorf("filter BatchContents events: %w", err)
	}
	out := make([]*bindings.EpochAnchorBatchContents, 0, len(logs))
	for i := range logs {
		ev, err := ea.UnpackBatchContentsEvent(&logs[i])
		if err != nil {
			return nil, fmt.Errorf("BatchContents event in tx %s: %w", logs[i].TxHash, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// FilterEvent asks for the logs of event on contract whose indexed topics
// 1, 2, … equal want (nil: any; one element per indexed parameter of the
// event), and checks every log the node returns against that (a log of
// another contract or event, or with other topics, is a *NodeError),
// leaving out removed logs.
func FilterEvent(ctx context.Context, c LogReader, contract common.Address, event common.Hash, want []*common.Hash, from uint64, to *big.Int) ([]types.Log, error) {
	topics := [][]common.Hash{{event}}
	for _, w := range want {
		if w == nil {
			topics = append(topics, nil)
		} else {
			topics = append(topics, []common.Hash{*w})
		}
	}
	for len(topics) > 1 && topics[len(topics)-1] == nil {
		topics = topics[:len(topics)-1]
	}
	logs, err := FilterLogs(ctx, c, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), ToBlock: to,
		Addresses: []common.Address{contract}, Topics: topics})
	if err != nil {
		return nil, err
	}
	out := logs[:0]
	for _, l := range logs {
		if l.Removed {
			continue
		}
		ok := l.Address == contract && len(l.Topics) == len(want)+1 && l.Topics[0] == event
		for i, w := range want {
			ok = ok && (w == nil || l.Topics[i+1] == *w)
		}
		if !ok {
			return nil, &NodeError{fmt.Sprintf("the node returned a log of another contract, event, operator or log (tx %s): it does not filter as asked", l.TxHash), "use another node"}
		}
		out = append(out, l)
	}
	return out, nil
}
