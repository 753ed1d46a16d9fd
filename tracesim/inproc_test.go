package tracesim_test

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/tracesim"
)

// TestReplayInProcess replays transactions of the in-process chain — a
// deployment, a call that emits an event and an ether transfer — through
// its in-process client (no URL, no HTTP request), through the URL it
// serves and straight from its own blocks and state (ReplayFrom): each
// replay matches its receipt (Fidelity OK) and decodes the same effects
// every way.
func TestReplayInProcess(t *testing.T) {
	ctx := context.Background()
	c, err := backend.NewInProcess(backend.InProcessOptions{Keys: 1, GenesisTime: 3_000_000_000})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, key := c.Client(), c.Keys()[0]
	d, err := chain.Deploy(ctx, cl, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	deployTx := func() common.Hash {
		b, err := cl.BlockByNumber(ctx, new(big.Int).SetUint64(d.Block))
		if err != nil {
			t.Fatal(err)
		}
		return b.Transactions()[0].Hash()
	}()
	var logID, root [32]byte
	logID[0], root[0] = 1, 2
	anchored, err := chain.Transact(ctx, cl, key, &d.EpochAnchor, nil, bindings.NewEpochAnchor().PackAnchor(logID, 0, root, [32]byte{}))
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	sent, err := chain.Transact(ctx, cl, key, &to, big.NewInt(7), nil)
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.Attach()
	if err != nil {
		t.Fatal(err)
	}
	url, err := c.ServeRPC()
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range []common.Hash{deployTx, anchored.TxHash, sent.TxHash} {
		viaClient, err := tracesim.Replay(ctx, "", tx, &tracesim.ReplayOptions{Client: in, ChainID: backend.EmbeddedChainID})
		if err != nil {
			t.Fatalf("replay of %s through the in-process client: %v", tx, err)
		}
		if !viaClient.Fidelity.OK || viaClient.Stats.Requests != 0 {
			t.Errorf("replay of %s through the in-process client: fidelity %+v, %d HTTP requests; want OK and none", tx, viaClient.Fidelity, viaClient.Stats.Requests)
		}
		viaURL, err := tracesim.Replay(ctx, url, tx, nil)
		if err != nil {
			t.Fatalf("replay of %s through %s: %v", tx, url, err)
		}
		if !viaURL.Fidelity.OK || viaURL.Stats.Requests == 0 {
			t.Errorf("replay of %s through the URL: fidelity %+v, %d HTTP requests", tx, viaURL.Fidelity, viaURL.Stats.Requests)
		}
		direct, err := tracesim.ReplayFrom(ctx, c, tx, nil)
		if err != nil || !direct.Fidelity.OK || direct.Stats.Requests != 0 {
			t.Fatalf("ReplayFrom the chain's own state of %s: %+v, %v", tx, direct, err)
		}
		a, _ := json.Marshal(viaClient.Effects)
		b, _ := json.Marshal(viaURL.Effects)
		d, _ := json.Marshal(direct.Effects)
		if string(a) != string(b) || string(a) != string(d) || viaClient.Effects.Status != tracesim.StatusSuccess {
			t.Errorf("replay of %s: the effects through the in-process client, the URL and the chain's own state:\n%s\n%s\n%s", tx, a, b, d)
		}
		if tx == anchored.TxHash && (len(viaClient.Effects.Storage) == 0 || len(viaClient.Effects.Events) != len(anchored.Logs) || len(anchored.Logs) == 0) {
			t.Errorf("replay of the anchoring: %d storage changes, %d events; want changes and the receipt's %d logs", len(viaClient.Effects.Storage), len(viaClient.Effects.Events), len(anchored.Logs))
		}
	}
	if _, err := tracesim.ReplayFrom(ctx, c, common.Hash{1}, nil); err == nil {
		t.Error("ReplayFrom of an unknown transaction: no error")
	}
	// The client stays the chain's: replays do not close it.
	if _, err := cl.BlockNumber(ctx); err != nil {
		t.Fatal(err)
	}
	var n string
	if err := in.CallContext(ctx, &n, "eth_blockNumber"); err != nil {
		t.Errorf("the in-process client after the replays: %v", err)
	}
}
