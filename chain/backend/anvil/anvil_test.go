package anvil_test

import (
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/anvil/anviltest"

	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

func TestStartStop(t *testing.T) {
	n := anviltest.Start(t, anvil.Options{ChainID: 4242, Accounts: 3})
	if !strings.HasPrefix(n.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL = %q, want loopback", n.URL())
	}
	if n.ChainID() != 4242 {
		t.Fatalf("ChainID = %d, want 4242", n.ChainID())
	}
	if len(n.Accounts()) != 3 || len(n.Keys()) != 3 {
		t.Fatalf("got %d accounts and %d keys, want 3 and 3", len(n.Accounts()), len(n.Keys()))
	}
	for i, k := range n.Keys() {
		if got := crypto.PubkeyToAddress(k.PublicKey); got != n.Accounts()[i] {
			t.Fatalf("key %d is for %s, want %s", i, got, n.Accounts()[i])
		}
	}
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.Done():
	default:
		t.Fatal("process still running after Stop")
	}
	var id string
	if err := n.Call(context.Background(), &id, "eth_chainId"); err == nil {
		t.Fatal("node still answers after Stop")
	}
	if err := n.Stop(); err != nil { // idempotent
		t.Fatal(err)
	}
}

func TestStopOnContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n, err := anvil.Start(ctx, anvil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Stop() })
	cancel()
	select {
	case <-n.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("node still running 10s after its context was cancelled")
	}
}

func TestStartFailureLeavesNothing(t *testing.T) {
	_, err := anvil.Start(context.Background(), anvil.Options{Args: []string{"--no-such-flag"}})
	if err == nil {
		t.Fatal("anvil.Start with a bad flag succeeded")
	}
	if !strings.Contains(err.Error(), "no-such-flag") {
		t.Fatalf("error does not carry anvil's complaint: %v", err)
	}
}

func TestMissingBinary(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("PATH", t.TempDir())
	_, err := anvil.Start(context.Background(), anvil.Options{})
	if !errors.Is(err, anvil.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), "run make setup") {
		t.Fatalf("error has no hint: %v", err)
	}
}

func TestFixedTimestamps(t *testing.T) {
	const genesis = 3_000_000_000
	n := anviltest.Start(t, anvil.Options{Accounts: 1, Timestamp: genesis, BlockTimestampInterval: 7})
	ctx := context.Background()
	for i := range 3 {
		if err := n.Call(ctx, nil, "evm_mine"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(600 * time.Millisecond) // the wall clock moves; block times must not follow it
		var b struct {
			Number, Timestamp string
		}
		if err := n.Call(ctx, &b, "eth_getBlockByNumber", "latest", false); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%#x", genesis+7*(i+1)); b.Timestamp != want {
			t.Fatalf("block %s: timestamp %s, want %s (genesis %d + 7 s per block)", b.Number, b.Timestamp, want, genesis)
		}
	}
}

// TestMixedMining: a transaction is mined at once, well before the block
// time, and empty blocks follow every block time without traffic.
func TestMixedMining(t *testing.T) {
	n := anviltest.Start(t, anvil.Options{Accounts: 1, BlockTime: 5 * time.Second, MixedMining: true})
	ctx := context.Background()
	var hash string
	tx := map[string]string{"from": n.Accounts()[0].Hex(), "to": n.Accounts()[0].Hex(), "value": "0x1"}
	if err := n.Call(ctx, &hash, "eth_sendTransaction", tx); err != nil {
		t.Fatal(err)
	}
	var receipt *struct{ BlockNumber string }
	for start := time.Now(); receipt == nil && time.Since(start) < 2*time.Second; time.Sleep(20 * time.Millisecond) {
		if err := n.Call(ctx, &receipt, "eth_getTransactionReceipt", hash); err != nil {
			t.Fatal(err)
		}
	}
	if receipt == nil {
		t.Fatal("the transaction is not mined within 2 s (block time 5 s)")
	}
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		var head string
		if err := n.Call(ctx, &head, "eth_blockNumber"); err != nil {
			t.Fatal(err)
		}
		if head != receipt.BlockNumber {
			break
		}
		if time.Since(start) > 15*time.Second {
			t.Fatalf("no block after %s in 15 s without traffic (block time 5 s)", receipt.BlockNumber)
		}
	}
}

func TestBadOptions(t *testing.T) {
	for _, c := range []struct {
		opts anvil.Options
		want string
	}{
		{anvil.Options{Port: 70000}, "port 70000 out of range"},
		{anvil.Options{BlockTime: 1500 * time.Millisecond}, "whole, positive number of seconds"},
		{anvil.Options{ForkBlock: 5}, "needs a fork URL"},
		{anvil.Options{ForkCache: t.TempDir()}, "a fork cache needs a fork URL"},
		{anvil.Options{MixedMining: true}, "mixed mining needs a block time"},
	} {
		_, err := anvil.Start(context.Background(), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("anvil.Start(%+v) = %v, want an error containing %q", c.opts, err, c.want)
		}
	}
}

func TestStopNeverStarted(t *testing.T) {
	var n *anvil.Node
	if err := n.Stop(); err != nil {
		t.Fatalf("Stop on a node that never started: %v", err)
	}
}

func TestMissingExplicitBinary(t *testing.T) {
	_, err := anvil.Start(context.Background(), anvil.Options{Binary: filepath.Join(t.TempDir(), "no-anvil-here")})
	if !errors.Is(err, anvil.ErrNotFound) || !strings.Contains(err.Error(), "no-anvil-here") {
		t.Fatalf("err = %v, want anvil.ErrNotFound naming the missing binary", err)
	}
}

// A fork with a fork cache writes Foundry's cache file for its chain and
// block into that directory when stopped.
func TestForkCache(t *testing.T) {
	archive := anviltest.Start(t, anvil.Options{ChainID: 76})
	if err := archive.Call(context.Background(), nil, "anvil_mine", 2); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "forks")
	fork := anviltest.Start(t, anvil.Options{ForkURL: archive.URL(), ForkBlock: 2, ForkCache: dir})
	var bal string
	if err := fork.Call(context.Background(), &bal, "eth_getBalance", "0x00000000000000000000000000000000000a11ce", "latest"); err != nil {
		t.Fatal(err)
	}
	if err := fork.Stop(); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "2", "storage.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("fork cache after Stop: %v (%v), want one %s/<chain>/2/storage.json", files, err, dir)
	}
}
