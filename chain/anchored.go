package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

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

// AnchoredQuery selects Anchored events of one operator on one EpochAnchor.
type AnchoredQuery struct {
	Contract, Operator common.Address
	Epoch              *uint64  // one epoch, or all when nil
	FromBlock          uint64   // the deployment block, or later
	ToBlock            *big.Int // nil: the latest block
}

// FilterAnchored returns the Anchored events q selects, in chain order,
// leaving out removed logs: the one reader of EpochAnchor's events, for the
// anchorer and the verifier alike. Every log the node returns is checked
// against the query (contract, event, operator and epoch topics); a log that
// does not match is a *NodeError.
func FilterAnchored(ctx context.Context, c LogReader, q AnchoredQuery) ([]*bindings.EpochAnchorAnchored, error) {
	ea := bindings.NewEpochAnchor()
	topics := [][]common.Hash{{ea.GetABI().Events["Anchored"].ID}, {common.BytesToHash(q.Operator[:])}}
	if q.Epoch != nil {
		topics = append(topics, []common.Hash{common.BigToHash(new(big.Int).SetUint64(*q.Epoch))})
	}
	logs, err := FilterLogs(ctx, c, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(q.FromBlock), ToBlock: q.ToBlock,
		Addresses: []common.Address{q.Contract}, Topics: topics})
	if err != nil {
		return nil, fmt.Errorf("filter Anchored events: %w", err)
	}
	out := make([]*bindings.EpochAnchorAnchored, 0, len(logs))
	for i := range logs {
		l := &logs[i]
		if l.Removed {
			continue
		}
		if l.Address != q.Contract || len(l.Topics) < len(topics) || l.Topics[0] != topics[0][0] || l.Topics[1] != topics[1][0] ||
			(q.Epoch != nil && l.Topics[2] != topics[2][0]) {
			return nil, &NodeError{fmt.Sprintf("the node returned a log of another contract, event or operator (tx %s): it does not filter as asked", l.TxHash), "use another node"}
		}
		ev, err := ea.UnpackAnchoredEvent(l)
		if err != nil {
			return nil, fmt.Errorf("Anchored event in tx %s: %w", l.TxHash, err)
		}
		out = append(out, ev)
	}
	return out, nil
}
