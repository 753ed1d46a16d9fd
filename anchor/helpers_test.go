package anchor_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// record writes n synthetic events into a new log with epochs of size,
// sealing on close, and returns its directory.
func record(t *testing.T, n, size int) string {
	t.Helper()
	return recordAs(t, format.SessionID{}, 7, n, size)
}

// recordAs is record with a fixed session (zero: a random one) and
// workload seed: two logs of one session are two versions of one log id.
func recordAs(t *testing.T, session format.SessionID, seed uint64, n, size int) string {
	t.Helper()
	return logtest.Write(t, recorder.Options{Recorder: "anchor-test", Session: session, EpochSize: size, Sync: recorder.SyncNone}, workload.Generate(seed, n)).Dir
}

// checkAnchored verifies the log against the chain: every epoch anchored
// exactly once, in order, with the log's roots.
func checkAnchored(t *testing.T, dir string, c chain.Client, contract common.Address, op common.Address) {
	t.Helper()
	ctx := context.Background()
	l, err := recorder.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	id, err := l.LogID()
	if err != nil {
		t.Fatal(err)
	}
	src := onchain.ChainAnchors{Client: c, Contract: contract, Operator: op, LogID: id}
	got, err := src.Anchors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("chain holds %d anchors, log has %d epochs", len(got), len(want))
	}
	for i := range want {
		if got[i].Epoch != want[i].Epoch || got[i].Root != want[i].Root || got[i].PrevRoot != want[i].PrevRoot {
			t.Fatalf("anchor %d: got epoch %d root %s, want epoch %d root %s", i, got[i].Epoch, got[i].Root, want[i].Epoch, want[i].Root)
		}
	}
	// A node that hides an event, or does not filter by operator, is a
	// *chain.NodeError with a hint — never a verdict against the operator.
	if len(want) > 1 {
		for name, lie := range map[string]func([]types.Log) []types.Log{
			"hides an event": func(ls []types.Log) []types.Log { return append(ls[:0:0], ls[1:]...) },
			"misfilters": func(ls []types.Log) []types.Log {
				l := ls[0]
				l.Topics = append([]common.Hash{l.Topics[0], {}}, l.Topics[2:]...)
				return append([]types.Log{l}, ls[1:]...)
			},
			"another address": func(ls []types.Log) []types.Log {
				l := ls[0]
				l.Address = common.Address{1}
				return append([]types.Log{l}, ls[1:]...)
			},
		} {
			_, err := onchain.ChainAnchors{Client: lyingNode{c, lie}, Contract: contract, Operator: op, LogID: id}.Anchors(ctx)
			var ne *chain.NodeError
			if !errors.As(err, &ne) || ne.Hint == "" {
				t.Fatalf("node that %s: got %v, want a *chain.NodeError with a hint", name, err)
			}
		}
	}
	rep, err := verifier.VerifyLog(ctx, l, src, verifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != verifier.Verified {
		t.Fatalf("verdict %s: %v", rep.Verdict, rep.Findings)
	}
}

func logf(t *testing.T) func(string, ...any) {
	start := time.Now()
	return func(f string, a ...any) {
		t.Logf("%7.3fs %s", time.Since(start).Seconds(), fmt.Sprintf(f, a...))
	}
}

func deployAnchor(t testing.TB, c chain.Client, key *ecdsa.PrivateKey) *chain.Deployment {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := chain.Deploy(ctx, c, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var _ = anchor.QueueFile

// lyingNode alters the logs a node returns.
type lyingNode struct {
	chain.Client
	lie func([]types.Log) []types.Log
}

func (n lyingNode) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	ls, err := n.Client.FilterLogs(ctx, q)
	if err != nil || len(ls) == 0 {
		return ls, err
	}
	return n.lie(ls), nil
}
