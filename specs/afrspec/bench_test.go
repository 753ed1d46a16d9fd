package afrspec_test

import (
	"context"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/specs/afrspec"
)

// BenchmarkSpec times one spec-equivalent body — a Counter.bump(1)
// transaction, an assertion on the state it leaves, and one event recorded —
// three ways in the same run, on the selected backend:
//
//   - raw: the body alone on a long-lived World (nothing undone: the
//     assertion follows the growing count) — the cost of the checks
//     themselves;
//   - isolated: World.Revert to a snapshot, then the body — a spec of a
//     suite that shares one World through Isolate;
//   - fresh-world: NewWorld, the body, Close — a spec that builds its own
//     World.
//
// The harness overhead per spec is isolated − raw (docs/PERFORMANCE.md,
// Specs): go test -run '^$' -bench BenchmarkSpec -benchtime 200x ./specs/afrspec
func BenchmarkSpec(b *testing.B) {
	ctx := context.Background()
	ev := format.Event{Tool: "bench", Kind: format.KindToolCall}
	body := func(b *testing.B, w *afrspec.World, want uint64) {
		res := w.Send(ctx, w.Agent, w.Counter, nil, w.CounterCall(1).Data)
		if !res.Succeeded() {
			b.Fatal(res)
		}
		if c := count(b, w); c != want {
			b.Fatalf("Counter.count() = %d, want %d", c, want)
		}
		if _, err := w.Record(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("raw", func(b *testing.B) {
		w := newWorld(b, afrspec.Config{})
		b.ResetTimer()
		for i := range b.N {
			body(b, w, uint64(i+1))
		}
	})
	b.Run("isolated", func(b *testing.B) {
		w := newWorld(b, afrspec.Config{})
		s, err := w.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if err := w.Revert(ctx, s); err != nil {
				b.Fatal(err)
			}
			body(b, w, 1)
		}
	})
	b.Run("fresh-world", func(b *testing.B) {
		for range b.N {
			w, err := afrspec.NewWorld(ctx, afrspec.Config{})
			if err != nil {
				b.Fatal(err)
			}
			body(b, w, 1)
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
