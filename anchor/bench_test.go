package anchor_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/chain/backend/anvil/anviltest"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// BenchmarkAnchorKeepsUp seals 20-event epochs at a set rate (or as fast
// as the recorder goes: rate 0) for benchSeconds while an Anchorer anchors
// them on the embedded chain and on anvil, in the same run, and reports
// epochs sealed per second against epochs anchored (confirmed, one block
// deep) per second, the backlog left when sealing stops, the largest
// backlog seen, the transactions and the gas per epoch. docs/PERFORMANCE.md,
// "Anchoring keeps up", holds the figures and the command:
//
//	go test -run '^$' -bench BenchmarkAnchorKeepsUp -benchtime 1x ./anchor/
func BenchmarkAnchorKeepsUp(b *testing.B) {
	chains := []struct {
		name  string
		start func(b *testing.B) (chain.Client, *ecdsa.PrivateKey)
	}{
		{"embedded", func(b *testing.B) (chain.Client, *ecdsa.PrivateKey) {
			e, err := embedded.New(backend.EmbeddedOptions{BlockPeriod: time.Second})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { e.Close() })
			return e.Client(), e.Keys()[0]
		}},
		{"anvil", func(b *testing.B) (chain.Client, *ecdsa.PrivateKey) {
			n := anviltest.Start(b, anvil.Options{})
			c, err := ethclient.Dial(n.URL())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Close)
			return c, n.Keys()[0]
		}},
	}
	for _, ch := range chains {
		for _, rate := range []int{50, 100, 200, 0} {
			b.Run(fmt.Sprintf("%s/rate=%d", ch.name, rate), func(b *testing.B) {
				for range b.N {
					c, key := ch.start(b)
					keepUp(b, c, key, rate)
				}
			})
		}
	}
}

const (
	benchSeconds    = 5
	benchEpochSize  = 20
	benchMaxRecords = 40_000 // at rate 0 (2,000 epochs): the recorder outruns any chain
)

func keepUp(b *testing.B, c chain.Client, key *ecdsa.PrivateKey, rate int) {
	d := deployAnchor(b, c, key)
	dir := b.TempDir()
	r := logtest.Open(b, dir, recorder.Options{Recorder: "bench", EpochSize: benchEpochSize, EpochMaxAge: -1, Sync: recorder.SyncNone})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := anchor.Open(ctx, dir, c, anchor.Options{Contract: d.EpochAnchor, Key: key, FromBlock: d.Block, Confirmations: 1, Position: r.Position})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(rctx, r.Sealed()) }()

	gen := workload.New(1)
	start := time.Now()
	end := start.Add(benchSeconds * time.Second)
	epochs, peak := 0, 0
	for now := start; now.Before(end) && epochs*benchEpochSize < benchMaxRecords; now = time.Now() {
		for range benchEpochSize {
			if _, err := r.Record(ctx, gen.Next()); err != nil {
				b.Fatal(err)
			}
		}
		epochs++
		peak = max(peak, a.Window().Epochs)
		if rate > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(epochs) * time.Second / time.Duration(rate))))
		}
	}
	sealedFor := time.Since(start)
	backlog := a.Window().Epochs
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	if _, err := a.SyncLog(); err != nil { // epochs sealed but not delivered before Close
		b.Fatal(err)
	}
	if err := a.Drain(ctx); err != nil {
		b.Fatal(err)
	}
	stop()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	q := a.Queue()
	if len(q.Anchored) != epochs {
		b.Fatalf("%d epochs anchored, %d sealed", len(q.Anchored), epochs)
	}
	last := q.Anchored[len(q.Anchored)-1].Confirmed
	txs := map[[32]byte]bool{}
	var gas uint64
	for _, an := range q.Anchored {
		txs[an.Tx] = true
		gas += an.GasUsed
	}
	b.ReportMetric(float64(epochs)/sealedFor.Seconds(), "sealed/s")
	b.ReportMetric(float64(epochs)/last.Sub(start).Seconds(), "anchored/s")
	b.ReportMetric(float64(backlog), "backlog-at-stop")
	b.ReportMetric(float64(peak), "backlog-peak")
	b.ReportMetric(float64(len(txs)), "txs")
	b.ReportMetric(float64(gas)/float64(epochs), "gas/epoch")
}
