package chain

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
)

// cappedNode serves one log per block and refuses ranges over cap blocks,
// as hosted endpoints do.
type cappedNode struct {
	head, cap uint64
	calls     int
}

func (n *cappedNode) BlockNumber(context.Context) (uint64, error) { return n.head, nil }

func (n *cappedNode) FilterLogs(_ context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	n.calls++
	from, to := q.FromBlock.Uint64(), q.ToBlock.Uint64()
	if to-from+1 > n.cap {
		return nil, errors.New("query exceeds max block range")
	}
	var out []types.Log
	for b := from; b <= to; b++ {
		out = append(out, types.Log{BlockNumber: b})
	}
	return out, nil
}

func (n *cappedNode) SubscribeFilterLogs(context.Context, ethereum.FilterQuery, chan<- types.Log) (ethereum.Subscription, error) {
	return nil, errors.New("not supported")
}

func TestFilterLogsPages(t *testing.T) {
	for _, c := range []struct{ head, cap uint64 }{{12_345, 1_000}, {20_000, LogPage}, {7, 1}, {0, 10}} {
		n := &cappedNode{head: c.head, cap: c.cap}
		logs, err := FilterLogs(context.Background(), n, ethereum.FilterQuery{})
		if err != nil {
			t.Fatalf("head %d cap %d: %v", c.head, c.cap, err)
		}
		if uint64(len(logs)) != c.head+1 {
			t.Fatalf("head %d cap %d: %d logs, want %d", c.head, c.cap, len(logs), c.head+1)
		}
		for i, l := range logs {
			if l.BlockNumber != uint64(i) {
				t.Fatalf("log %d from block %d: out of order", i, l.BlockNumber)
			}
		}
	}
	// A node that refuses even one block is an error, not an empty answer.
	if _, err := FilterLogs(context.Background(), &cappedNode{head: 3, cap: 0}, ethereum.FilterQuery{}); err == nil {
		t.Fatal("no error from a node that refuses everything")
	}
}
