package tracesim

import (
	"context"
	"testing"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/evm"
)

// The replay figures in docs/PERFORMANCE.md ("Tracesim") come from these:
//
//	go test -run '^$' -bench . -benchtime 20x ./tracesim/

func benchSetup(b *testing.B) (*calldata.Registry, []vector, *ReplayOptions) {
	fi, addrs := loadFixtureInfo(b)
	reg := testRegistry(b, addrs, fixtureABIs, uniCoreBuild, uniPeriBuild)
	return reg, loadVectors(b), &ReplayOptions{Registry: reg, Mode: evm.ReplayOnly, CacheDir: fixtureCache,
		ChainID: fi.ChainID, ChainConfig: pragueConfig(fi.ChainID)}
}

// BenchmarkReplayWarm replays the whole fixture set per iteration with one
// Replayer: block and fork state already in memory (warm cache).
func BenchmarkReplayWarm(b *testing.B) {
	_, vs, opts := benchSetup(b)
	rp, err := NewReplayer("", opts)
	if err != nil {
		b.Fatal(err)
	}
	defer rp.Close()
	ctx := context.Background()
	executed := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, v := range vs {
			res, err := rp.Replay(ctx, v.TxHash)
			if err != nil {
				b.Fatal(err)
			}
			executed += res.Stats.Executed
		}
	}
	b.ReportMetric(float64(b.N*len(vs))/b.Elapsed().Seconds(), "tx/s")
	b.ReportMetric(float64(executed)/float64(b.N*len(vs)), "executed/replay")
}

// BenchmarkReplayColdFile replays each fixture transaction with a fresh
// Replayer: block file and fork cache file read and parsed from disk each time
// (what one CLI invocation does).
func BenchmarkReplayColdFile(b *testing.B) {
	_, vs, opts := benchSetup(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, v := range vs {
			if _, err := Replay(ctx, "", v.TxHash, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(vs))/b.Elapsed().Seconds(), "tx/s")
}

// BenchmarkTarget isolates the cost of the target transaction: executed
// untraced, traced, and traced + decoded (intent and effects), on the
// fixture block's pre-state with the preceding transactions already applied.
func BenchmarkTarget(b *testing.B) {
	reg, vs, opts := benchSetup(b)
	rp, err := NewReplayer("", opts)
	if err != nil {
		b.Fatal(err)
	}
	defer rp.Close()
	ctx := context.Background()
	blk, err := rp.block(ctx, vs[0].TxHash)
	if err != nil {
		b.Fatal(err)
	}
	f, err := rp.fork(ctx, blk.ChainID, blk.number()-1)
	if err != nil {
		b.Fatal(err)
	}
	bc, err := blockContext(f.ChainConfig(), &blk.Header)
	if err != nil {
		b.Fatal(err)
	}
	// One Env per transaction, holding the state just before it (snapshot 0).
	envs := make([]*evm.Env, len(blk.Txs))
	for j := range blk.Txs {
		env, err := evm.New(evm.Config{Fork: f, Block: &bc})
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range blk.Txs[:j] {
			if _, err := env.ApplyTransaction(ctx, t.Tx, nil); err != nil {
				b.Fatal(err)
			}
		}
		env.Snapshot()
		envs[j] = env
	}
	run := func(b *testing.B, trace, decode bool) {
		for i := 0; i < b.N; i++ {
			j := i % len(blk.Txs)
			env := envs[j]
			if err := env.Revert(0); err != nil {
				b.Fatal(err)
			}
			t := blk.Txs[j]
			opts := &evm.CallOptions{}
			if trace {
				opts.Trace = evm.FullTrace()
			}
			res, err := env.ApplyTransaction(ctx, t.Tx, opts)
			if err != nil {
				b.Fatal(err)
			}
			if decode {
				_ = calldata.IntentOf(reg, blk.ChainID, t.From, t.Tx.To(), t.Tx.Value(), t.Tx.Data())
				_ = EffectsOf(reg, res)
			}
		}
	}
	b.Run("untraced", func(b *testing.B) { run(b, false, false) })
	b.Run("traced", func(b *testing.B) { run(b, true, false) })
	b.Run("traced+decoded", func(b *testing.B) { run(b, true, true) })
}
