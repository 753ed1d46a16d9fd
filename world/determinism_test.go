package world_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/world"
)

// pdrFlow runs a PDR-gated flow — two proposals (one needing approvals),
// their executions and outcomes, a delegated execution — in a fresh World,
// and returns every transaction's hash and gas in order.
func pdrFlow(t *testing.T, kind backend.Kind) []string {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t, world.Config{Backend: kind})
	var out []string
	for _, by := range []int64{7, 5_000} {
		p, err := w.Propose(ctx, "agent", w.CounterCall(by))
		if err != nil {
			t.Fatal(err)
		}
		res := w.Execute(ctx, p)
		if !res.Succeeded() {
			t.Fatalf("execute bump(%d): %s", by, res)
		}
		if _, err := w.RecordOutcome(ctx, p, res); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("bump(%d) %s gas %d", by, res.Receipt.TxHash.Hex(), res.Receipt.GasUsed))
	}
	sealed, err := w.SealAndAnchor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range sealed {
		out = append(out, fmt.Sprintf("anchor %d %s gas %d", a.Epoch, a.Tx.Hex(), a.GasUsed))
	}
	return out
}

// Gas and transaction hashes of PDR-gated calls are the same in every run:
// event ids, PDR expiries and fees derive from the chain's spec-controlled
// clock and the World's seed, never from the wall clock.
func TestPDRFlowIsDeterministic(t *testing.T) {
	kinds := []backend.Kind{backend.KindEmbedded}
	if _, err := anvil.FindBinary(); err == nil {
		kinds = append(kinds, backend.KindAnvil)
	}
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			first, second := pdrFlow(t, kind), pdrFlow(t, kind)
			if len(first) == 0 || fmt.Sprint(first) != fmt.Sprint(second) {
				t.Fatalf("two runs differ:\n%s\n%s", first, second)
			}
		})
	}
}
