package world_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

// TestRecordTxInProcess: on the in-process chain with no JSON-RPC served
// (URL ""), RecordTx replays a mined transaction through the chain's
// in-process client with fidelity, records intent and outcome, and the
// sealed, anchored log verifies; a mined pranked transaction is still
// refused (its replay cannot recover its sender).
func TestRecordTxInProcess(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, world.Config{})
	if w.Backend() != backend.KindInProcess || w.URL() != "" {
		t.Fatalf("backend %s, URL %q; want inproc serving no URL", w.Backend(), w.URL())
	}
	res := w.Send(ctx, w.Attacker(), w.Counter(), nil, w.CounterCall(5).Data)
	if !res.Succeeded() {
		t.Fatal(res)
	}
	ev, err := w.RecordTx(ctx, "attacker", res)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Replay == nil || !ev.Replay.Fidelity.OK || ev.Replay.Stats.Requests != 0 || len(ev.Replay.Effects.Storage) == 0 {
		t.Fatalf("replay %+v: want fidelity OK, storage changes, no HTTP request", ev.Replay)
	}
	if ev.Outcome.Seq != ev.Intent.Seq+1 {
		t.Errorf("outcome %d, intent %d", ev.Outcome.Seq, ev.Intent.Seq)
	}
	v, err := w.SealAndVerify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.Verdict != verifier.Verified {
		t.Fatalf("verdict %s, want verified", v.Verdict)
	}
	ix, err := w.Index()
	if err != nil {
		t.Fatal(err)
	}
	out, ok := ix.Event(ev.Outcome.Seq)
	if !ok || out.Payload == nil || out.Payload.Execution.Status != format.StatusOK ||
		string(out.Payload.Execution.TxHash) != string(res.Receipt.TxHash.Bytes()) || len(out.Payload.Effects) == 0 {
		t.Fatalf("outcome event %+v: want status ok, the transaction's hash and its effects", out)
	}

	pranked := common.HexToAddress("0x00000000000000000000000000000000000b0b00")
	if err := w.Deal(ctx, pranked, big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	if err := w.Prank(pranked); err != nil {
		t.Fatal(err)
	}
	pres := w.Send(ctx, w.Attacker(), w.Counter(), nil, w.CounterCall(1).Data)
	if !pres.Succeeded() {
		t.Fatal(pres)
	}
	if _, err := w.RecordTx(ctx, "attacker", pres); !errors.Is(err, world.ErrPrankedReplay) {
		t.Errorf("RecordTx of a mined pranked transaction: %v, want ErrPrankedReplay", err)
	}
}

// TestInProcessServesRPC: Config.RPC on the default backend keeps the
// in-process chain and serves its JSON-RPC on loopback: a client outside
// the World reads what the World's transaction did.
func TestInProcessServesRPC(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, world.Config{RPC: true})
	if w.Backend() != backend.KindInProcess || w.URL() == "" {
		t.Fatalf("backend %s, URL %q; want inproc with a URL", w.Backend(), w.URL())
	}
	res := w.Send(ctx, w.Attacker(), w.Counter(), nil, w.CounterCall(3).Data)
	if !res.Succeeded() {
		t.Fatal(res)
	}
	c, err := ethclient.Dial(w.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc, err := c.TransactionReceipt(ctx, res.Receipt.TxHash)
	if err != nil || rc.GasUsed != res.Receipt.GasUsed || rc.BlockHash != res.Receipt.BlockHash {
		t.Fatalf("receipt over %s: %+v, %v; the World's %+v", w.URL(), rc, err, res.Receipt)
	}
	if got := count(t, w); got != 3 {
		t.Errorf("count = %d, want 3", got)
	}
}
