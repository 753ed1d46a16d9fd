package world_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/world"
)

// TestUnsignedGasLimit: Unsigned with GasLimit mines the call unsigned with
// the limit given (no estimate), refuses a call that would revert without
// mining it, and cannot be recorded; on a backend without cheatcodes
// Unsigned is a signed send.
func TestUnsignedGasLimit(t *testing.T) {
	ctx := context.Background()
	for _, k := range []backend.Kind{backend.KindInProcess, backend.KindEmbedded} {
		t.Run(string(k), func(t *testing.T) {
			w := newWorld(t, world.Config{Backend: k})
			bump := w.CounterCall(3)
			const limit = 500_000
			res := w.Send(ctx, w.Agent(), w.Counter(), nil, bump.Data, world.GasLimit(limit), world.Unsigned())
			if !res.Succeeded() {
				t.Fatalf("bump: %s", res)
			}
			if c := count(t, w); c != 3 {
				t.Errorf("count = %d after bump(3), want 3", c)
			}
			tx, _, err := w.Client().TransactionByHash(ctx, res.Receipt.TxHash)
			if err != nil {
				t.Fatal(err)
			}
			if tx.Gas() != limit {
				t.Errorf("gas limit %d, want %d (GasLimit, not an estimate)", tx.Gas(), limit)
			}
			v, _, _ := tx.RawSignatureValues()
			if unsigned := v.Sign() == 0; unsigned != (k == backend.KindInProcess) {
				t.Errorf("%s: transaction unsigned = %t", k, unsigned)
			}
			_, err = w.RecordTx(ctx, "agent", res)
			if k == backend.KindInProcess && !errors.Is(err, world.ErrPrankedReplay) {
				t.Errorf("RecordTx of an unsigned transaction: %v, want ErrPrankedReplay", err)
			}
			if k == backend.KindEmbedded && err != nil {
				t.Errorf("RecordTx of a signed transaction: %v", err)
			}

			n, err := w.Client().NonceAt(ctx, w.Agent().Address, nil)
			if err != nil {
				t.Fatal(err)
			}
			bad := w.Send(ctx, w.Agent(), w.Counter(), nil, []byte{0xde, 0xad, 0xbe, 0xef}, world.GasLimit(limit), world.Unsigned())
			if !bad.Reverted || bad.Receipt != nil {
				t.Errorf("an unknown selector: reverted %t, mined %t; want refused before it is sent", bad.Reverted, bad.Receipt != nil)
			}
			if m, err := w.Client().NonceAt(ctx, w.Agent().Address, nil); err != nil || m != n {
				t.Errorf("nonce %d → %d (%v): a refused call was mined", n, m, err)
			}
		})
	}
}
