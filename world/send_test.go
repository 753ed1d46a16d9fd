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

// TestApply: a call applied in place changes the latest state without a
// block or a signature, a reverting one changes nothing but the nonce,
// Revert drops what was applied, and a backend that cannot apply says so.
func TestApply(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, world.Config{})
	if !w.CanApply() {
		t.Fatal("the in-process World cannot apply")
	}
	snap, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := w.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := w.Client().NonceAt(ctx, w.Agent().Address, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := w.Apply(ctx, w.Agent(), w.Counter(), nil, w.CounterCall(7).Data, 1_000_000)
	if err != nil || a.Reverted || a.GasUsed == 0 {
		t.Fatalf("Apply(bump(7)) = %+v, %v", a, err)
	}
	if c := count(t, w); c != 7 {
		t.Errorf("count = %d after an applied bump(7), want 7", c)
	}
	bad, err := w.Apply(ctx, w.Agent(), w.Counter(), nil, []byte{0xde, 0xad, 0xbe, 0xef}, 1_000_000)
	if err != nil || !bad.Reverted || bad.Err == nil {
		t.Errorf("Apply(unknown selector) = %+v, %v; want reverted", bad, err)
	}
	if n, err := w.Client().BlockNumber(ctx); err != nil || n != head {
		t.Errorf("head %d → %d (%v): Apply sealed a block", head, n, err)
	}
	if n, err := w.Client().NonceAt(ctx, w.Agent().Address, nil); err != nil || n != nonce+2 {
		t.Errorf("nonce %d → %d (%v), want +2 (a reverting call spends its nonce)", nonce, n, err)
	}
	// A mined transaction after applied calls starts from their state.
	if res := w.Send(ctx, w.Agent(), w.Counter(), nil, w.CounterCall(1).Data); !res.Succeeded() {
		t.Fatalf("bump(1) after Apply: %s", res)
	}
	if c := count(t, w); c != 8 {
		t.Errorf("count = %d after a mined bump(1), want 8", c)
	}
	if err := w.Revert(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if c := count(t, w); c != 0 {
		t.Errorf("count = %d after Revert, want 0", c)
	}

	e := newWorld(t, world.Config{Backend: backend.KindEmbedded})
	if _, err := e.Apply(ctx, e.Agent(), e.Counter(), nil, e.CounterCall(1).Data, 1_000_000); !errors.Is(err, world.ErrNoApply) || e.CanApply() {
		t.Errorf("Apply on the embedded chain: %v (CanApply %t), want ErrNoApply", err, e.CanApply())
	}
}
