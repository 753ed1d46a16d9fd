package recorder_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/bench/ladder"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// The ablation ladder of the paper (docs/PERFORMANCE.md), whose rungs are
// package bench/ladder: each rung adds one mechanism to the previous on the
// same synthetic workload (seed 42), and all write through buffered writers
// without fsync, so the ladder measures the recorder's own work per event.
// `afr bench --only table2` measures the same rungs at the paper's N over
// several seeds.
//
// Run: go test -run '^$' -bench BenchmarkRecord -benchtime 10000x ./recorder/
func BenchmarkRecord(b *testing.B) {
	events := workload.Generate(42, 10000)
	for _, rung := range ladder.Rungs {
		b.Run(rung, func(b *testing.B) {
			dir := b.TempDir()
			l, err := ladder.Open(rung, dir)
			if err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, b.N)
			b.ResetTimer()
			if err := ladder.Time(l, events, lat); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
			n, err := ladder.DirBytes(dir)
			if err != nil {
				b.Fatal(err)
			}
			slices.Sort(lat)
			b.ReportMetric(float64(ladder.Quantile(lat, 0.5).Nanoseconds()), "median-ns/event")
			b.ReportMetric(float64(ladder.Quantile(lat, 0.99).Nanoseconds()), "p99-ns/event")
			b.ReportMetric(float64(n)/float64(b.N), "bytes/event")
		})
	}
}

// BenchmarkSync measures durable throughput under each sync policy, with one
// sequential writer (an agent) and with 16 concurrent writers (a host with
// many agents), on the same workload with encryption on.
//
// Run: go test -run '^$' -bench BenchmarkSync -benchtime 2000x ./recorder/
func BenchmarkSync(b *testing.B) {
	events := workload.Generate(42, 10000)
	for _, policy := range []recorder.SyncPolicy{recorder.SyncEvent, recorder.SyncGroup, recorder.SyncWrite, recorder.SyncNone} {
		for _, writers := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/writers=%d", policy, writers), func(b *testing.B) {
				r, err := recorder.Open(b.TempDir(), recorder.Options{Recorder: "bench", Encrypt: true, Sync: policy, EpochMaxAge: -1})
				if err != nil {
					b.Fatal(err)
				}
				go func() {
					for range r.Sealed() {
					}
				}()
				ctx := context.Background()
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for w := 0; w < writers; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							i := next.Add(1) - 1
							if i >= int64(b.N) {
								return
							}
							if _, err := r.Record(ctx, events[i%int64(len(events))]); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				if err := r.Close(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
			})
		}
	}
}
