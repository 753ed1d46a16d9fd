package world_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/world"
)

// BenchmarkSpec times a spec-equivalent body — a Counter.bump(1)
// transaction and an assertion on the state it leaves ("call"), or the
// same and one event recorded ("record") — several ways in the same run,
// on the in-process and the embedded chain:
//
//   - raw: the body alone on a long-lived World (nothing undone: the
//     assertion follows the growing count) — the cost of the checks
//     themselves;
//   - isolated: World.Revert to a snapshot, then the body — a spec of a
//     suite that shares one World through Isolate;
//   - fresh-world ("record" only): world.New, the body, Close — a spec
//     that builds its own World.
//
// The harness overhead per spec is isolated − raw: what a spec that does
// not record pays (call), and one that records (record), for being
// isolated (docs/PERFORMANCE.md, "The in-process chain"):
//
//	go test -run '^$' -bench 'BenchmarkSpec|BenchmarkSnapshotRevert' -benchtime 200x ./world
func BenchmarkSpec(b *testing.B) {
	for _, k := range []backend.Kind{backend.KindInProcess, backend.KindEmbedded} {
		b.Run(string(k), func(b *testing.B) {
			b.Run("call", func(b *testing.B) { benchSpec(b, world.Config{Backend: k}, false) })
			b.Run("record", func(b *testing.B) { benchSpec(b, world.Config{Backend: k}, true) })
		})
	}
}

func benchSpec(b *testing.B, cfg world.Config, record bool) {
	ctx := context.Background()
	ev := format.Event{Tool: "bench", Kind: format.KindToolCall}
	body := func(b *testing.B, w *world.World, want uint64) {
		res := w.Send(ctx, w.Agent(), w.Counter(), nil, w.CounterCall(1).Data)
		if !res.Succeeded() {
			b.Fatal(res)
		}
		if c := count(b, w); c != want {
			b.Fatalf("Counter.count() = %d, want %d", c, want)
		}
		if !record {
			return
		}
		if _, err := w.Record(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("raw", func(b *testing.B) {
		w := newWorld(b, cfg)
		b.ResetTimer()
		for i := range b.N {
			body(b, w, uint64(i+1))
		}
	})
	b.Run("isolated", func(b *testing.B) {
		w := newWorld(b, cfg)
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
	if !record {
		return
	}
	b.Run("fresh-world", func(b *testing.B) {
		for range b.N {
			w, err := world.New(ctx, cfg)
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

// BenchmarkSnapshotRevert times what Isolate costs a suite per spec
// beyond the spec's own work, on the in-process and the embedded chain:
//
//   - snapshot+revert: World.Snapshot then World.Revert to it, nothing in
//     between (the log unused since the last Revert: the snapshot shares
//     the log it saved);
//   - revert+record: World.Revert to one snapshot, then one event
//     recorded — the log's reopening, which only a spec that records
//     pays, and its closing at the next Revert.
func BenchmarkSnapshotRevert(b *testing.B) {
	ctx := context.Background()
	ev := format.Event{Tool: "bench", Kind: format.KindToolCall}
	for _, k := range []backend.Kind{backend.KindInProcess, backend.KindEmbedded} {
		b.Run(string(k), func(b *testing.B) {
			w := newWorld(b, world.Config{Backend: k})
			s, err := w.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Revert(ctx, s); err != nil {
				b.Fatal(err)
			}
			b.Run("snapshot+revert", func(b *testing.B) {
				for range b.N {
					s, err := w.Snapshot(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if err := w.Revert(ctx, s); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("revert+record", func(b *testing.B) {
				for range b.N {
					if err := w.Revert(ctx, s); err != nil {
						b.Fatal(err)
					}
					if rc, err := w.Record(ctx, ev); err != nil || rc.Seq != 0 {
						b.Fatalf("recorded seq %d (%v) after Revert, want 0", rc.Seq, err)
					}
				}
			})
		})
	}
}

// BenchmarkForgeSpec is the same check as BenchmarkSpec's body written as
// plain forge tests, for the comparison the harness is measured against:
// b.N test functions, each (after setUp deploys Counter) calling bump(1)
// and requiring count() == 1. The project is compiled before the timer;
// the timer covers one `forge test` process running them all. Reported:
// ms/op (wall time per test, process included) and evm-ms/test (the
// suite time forge itself prints, per test).
func BenchmarkForgeSpec(b *testing.B) {
	forge, err := exec.LookPath("forge")
	if err != nil {
		b.Skip("forge is not on PATH (make setup installs it)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var src strings.Builder
	src.WriteString("// SPDX-License-Identifier: MIT\npragma solidity 0.8.37;\n\n" +
		"contract Counter {\n    uint256 public count;\n    function bump(uint256 by) external payable { count += by; }\n}\n\n" +
		"contract CounterSpec {\n    Counter c;\n    function setUp() public { c = new Counter(); }\n")
	for i := range b.N {
		fmt.Fprintf(&src, "    function test_bump_%d() public { c.bump(1); require(c.count() == 1, \"count\"); }\n", i)
	}
	src.WriteString("}\n")
	for name, content := range map[string]string{
		"test/CounterSpec.t.sol": src.String(),
		"foundry.toml": "[profile.default]\nsrc = \"test\"\ntest = \"test\"\nout = \"out\"\noffline = true\nevm_version = \"prague\"\n" +
			"solc = \"" + filepath.Join(root, "contracts", "solc") + "\"\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run := func(args ...string) string {
		cmd := exec.Command(forge, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("forge %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("build")
	b.ResetTimer()
	out := run("test")
	b.StopTimer()
	m := regexp.MustCompile(`(\d+) passed; 0 failed; 0 skipped; finished in ([\d.]+)(µs|ms|s)`).FindStringSubmatch(out)
	if m == nil || m[1] != strconv.Itoa(b.N) {
		b.Fatalf("forge test did not run %d passing tests:\n%s", b.N, out)
	}
	suite, _ := strconv.ParseFloat(m[2], 64)
	switch m[3] {
	case "µs":
		suite /= 1000
	case "s":
		suite *= 1000
	}
	b.ReportMetric(suite/float64(b.N), "evm-ms/test")
}

// BenchmarkEvidence measures what evidence costs per recorded transaction:
// each iteration sends Counter.bump(1) and asserts the count twice on one
// long-lived World, the second time also recording it with RecordTx
// (intent and outcome events, the replay of the mined transaction for its
// effects), so both are timed in the same run, interleaved. Reported per
// transaction: plain-µs (send and assert), recorded-µs (the same with
// RecordTx) and evidence-µs, their difference (docs/PERFORMANCE.md,
// Evidence per recorded transaction):
// go test -run '^$' -bench BenchmarkEvidence -benchtime 300x ./world
func BenchmarkEvidence(b *testing.B) {
	for _, k := range []backend.Kind{backend.KindInProcess, backend.KindEmbedded} {
		b.Run(string(k), func(b *testing.B) {
			ctx := context.Background()
			w := newWorld(b, world.Config{Backend: k})
			want := count(b, w)
			send := func() *world.TxResult {
				res := w.Send(ctx, w.Agent(), w.Counter(), nil, w.CounterCall(1).Data)
				if !res.Succeeded() {
					b.Fatal(res)
				}
				want++
				if c := count(b, w); c != want {
					b.Fatalf("Counter.count() = %d, want %d", c, want)
				}
				return res
			}
			var plain, recorded time.Duration
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				send()
				t1 := time.Now()
				ev, err := w.RecordTx(ctx, "agent", send())
				if err != nil {
					b.Fatal(err)
				}
				if !ev.Replay.Fidelity.OK {
					b.Fatalf("replay: %+v", ev.Replay.Fidelity)
				}
				plain, recorded = plain+t1.Sub(t0), recorded+time.Since(t1)
			}
			n := float64(b.N)
			b.ReportMetric(float64(plain.Microseconds())/n, "plain-µs/tx")
			b.ReportMetric(float64(recorded.Microseconds())/n, "recorded-µs/tx")
			b.ReportMetric(float64((recorded-plain).Microseconds())/n, "evidence-µs/tx")
		})
	}
}
