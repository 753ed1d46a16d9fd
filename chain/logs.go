package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
)

// LogReader is what FilterLogs needs of a client.
type LogReader interface {
	ethereum.LogFilterer
	ethereum.BlockNumberReader
}

// LogPage is how many blocks FilterLogs asks for at once. Hosted endpoints
// cap the block range (or the number of results) of eth_getLogs; a refused
// page is halved until it passes.
const LogPage = 5_000

// FilterLogs is eth_getLogs over q's block range (to the latest block when
// q.ToBlock is nil), asked for in pages of at most LogPage blocks; a page the
// node refuses is split in halves, down to single blocks, before the error
// is returned. Logs come back in chain order.
//
// The node's answer is checked as far as the query allows: a log outside
// the block range asked for, or not after the log before it in chain order
// (block number, then log index: a log repeated, or out of order) is a
// *NodeError. A node ignoring the range would otherwise give every log once
// per page, and a completeness check count one execution twice.
func FilterLogs(ctx context.Context, c LogReader, q ethereum.FilterQuery) ([]types.Log, error) {
	var from, to uint64
	if q.FromBlock != nil {
		from = q.FromBlock.Uint64()
	}
	if q.ToBlock != nil {
		to = q.ToBlock.Uint64()
	} else {
		head, err := c.BlockNumber(ctx)
		if err != nil {
			return nil, fmt.Errorf("block number: %w", err)
		}
		to = head
	}
	var out []types.Log
	page := uint64(LogPage)
	for from <= to {
		end := min(to, from+page-1)
		pq := q
		pq.BlockHash, pq.FromBlock, pq.ToBlock = nil, new(big.Int).SetUint64(from), new(big.Int).SetUint64(end)
		logs, err := c.FilterLogs(ctx, pq)
		if err != nil {
			if page == 1 || ctx.Err() != nil {
				return nil, fmt.Errorf("eth_getLogs blocks %d..%d: %w", from, end, err)
			}
			page = max(1, page/2)
			continue
		}
		for _, l := range logs {
			if l.BlockNumber < from || l.BlockNumber > end {
				return nil, &NodeError{fmt.Sprintf("eth_getLogs blocks %d..%d: the node returned a log of block %d (tx %s): it does not filter as asked", from, end, l.BlockNumber, l.TxHash), "use another node"}
			}
			if n := len(out); n > 0 && (l.BlockNumber < out[n-1].BlockNumber || l.BlockNumber == out[n-1].BlockNumber && l.Index <= out[n-1].Index) {
				return nil, &NodeError{fmt.Sprintf("eth_getLogs blocks %d..%d: the node returned log %d of block %d after log %d of block %d: its logs repeat or are out of chain order", from, end, l.Index, l.BlockNumber, out[n-1].Index, out[n-1].BlockNumber), "use another node"}
			}
			out = append(out, l)
		}
		from = end + 1
	}
	return out, nil
}
