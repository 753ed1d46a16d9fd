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

// sloppyNode answers every eth_getLogs with the logs it holds, whatever
// the block range asked for, as a node that ignores the range would.
type sloppyNode struct {
	head uint64
	logs []types.Log
}

func (n *sloppyNode) BlockNumber(context.Context) (uint64, error) { return n.head, nil }

func (n *sloppyNode) FilterLogs(context.Context, ethereum.FilterQuery) ([]types.Log, error) {
	return n.logs, nil
}

func (n *sloppyNode) SubscribeFilterLogs(context.Context, ethereum.FilterQuery, chan<- types.Log) (ethereum.Subscription, error) {
	return nil, errors.New("not supported")
}

// A node's logs outside the block range asked for, repeated or out of
// chain order are the node's error: before, a node ignoring the range gave
// every log once per page (an Executed event counted twice), and one
// repeating a log gave it twice.
func TestFilterLogsChecksTheNode(t *testing.T) {
	for name, n := range map[string]*sloppyNode{
		"range ignored": {head: 2 * LogPage, logs: []types.Log{{BlockNumber: 3}, {BlockNumber: LogPage + 7}}},
		"log repeated":  {head: 10, logs: []types.Log{{BlockNumber: 3, Index: 1}, {BlockNumber: 3, Index: 1}}},
		"out of order":  {head: 10, logs: []types.Log{{BlockNumber: 4}, {BlockNumber: 3}}},
		"index order":   {head: 10, logs: []types.Log{{BlockNumber: 3, Index: 2}, {BlockNumber: 3, Index: 1}}},
	} {
		logs, err := FilterLogs(context.Background(), n, ethereum.FilterQuery{})
		var ne *NodeError
		if !errors.As(err, &ne) {
			t.Errorf("%s: %d logs, error %v; want a *NodeError", name, len(logs), err)
		}
	}
	// Logs in order within the range pass.
	n := &sloppyNode{head: 10, logs: []types.Log{{BlockNumber: 3, Index: 0}, {BlockNumber: 3, Index: 1}, {BlockNumber: 9}}}
	if logs, err := FilterLogs(context.Background(), n, ethereum.FilterQuery{}); err != nil || len(logs) != 3 {
		t.Fatalf("%d logs, %v; want 3", len(logs), err)
	}
}
