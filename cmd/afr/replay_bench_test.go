package main

import (
	"context"
	"math/big"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/evm"
	"github.com/agentflightrecorder/afr/tracesim"
)

// BenchmarkReplayVsCastRun replays the same mined transactions on one anvil
// with `cast run` (the baseline), the afr binary (one process per
// transaction), the library cold (a fresh tracesim.Replay per transaction:
// dial, fork, fetch) and the library warm (one Replayer, state already
// fetched). Each sub-benchmark after cast-run reports x-faster-than-cast:
// cast run's ns/op measured in the same run divided by its own.
//
//	go test ./cmd/afr -run '^$' -bench ReplayVsCastRun -benchtime 20x -count 3
func BenchmarkReplayVsCastRun(b *testing.B) {
	c := startTestChain(b)
	url := c.node.URL()
	// Each transaction is alone in its block (automine): a nested call
	// with two events and two storage writes.
	txs := make([]common.Hash, 10)
	for i := range txs {
		txs[i] = c.mined(c.caller, c.pack("Caller", "forward", c.store, big.NewInt(int64(i)), big.NewInt(int64(i+1))), 1)
	}
	bin := filepath.Join(b.TempDir(), "afr")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var castNs float64
	// report reports ms/tx and, against the baseline, the ratio.
	report := func(b *testing.B, baseline bool) {
		ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(ns/1e6, "ms/tx")
		switch {
		case baseline:
			castNs = ns
		case castNs > 0:
			b.ReportMetric(castNs/ns, "x-faster-than-cast")
		}
	}

	b.Run("cast-run", func(b *testing.B) {
		cast, err := exec.LookPath("cast")
		if err != nil {
			b.Skip("cast is not on PATH (it comes with make setup, in node_modules/.bin): no baseline, no ratios")
		}
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(cast, "run", txs[i%len(txs)].Hex(), "--rpc-url", url)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", cmd, err, out)
			}
		}
		report(b, true)
	})
	b.Run("afr-replay-process", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(bin, "replay", txs[i%len(txs)].Hex(), "--rpc", url, "--abi", c.abiDir)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", cmd, err, out)
			}
		}
		report(b, false)
	})
	reg, err := loadRegistry([]string{c.abiDir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("library-cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := tracesim.Replay(ctx, url, txs[i%len(txs)], &tracesim.ReplayOptions{Registry: reg, Mode: evm.Live}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, false)
	})
	b.Run("library-warm", func(b *testing.B) {
		r, err := tracesim.NewReplayer(url, &tracesim.ReplayOptions{Registry: reg})
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		for _, h := range txs {
			if _, err := r.Replay(ctx, h); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := r.Replay(ctx, txs[i%len(txs)]); err != nil {
				b.Fatal(err)
			}
		}
		report(b, false)
	})
}
