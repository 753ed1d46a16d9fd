package replica_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/replica"
	"github.com/agentflightrecorder/afr/verifier"
)

// BenchmarkRecordReplicated measures Record (SyncGroup, epochs of 100)
// without and with a replicator copying every commit to the real server
// in the same process: the ratio is replication's cost on the hot path.
func BenchmarkRecordReplicated(b *testing.B) {
	events := workload.Generate(42, 10000)
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			rec, err := recorder.Open(dir, recorder.Options{Recorder: "ops-1"})
			if err != nil {
				b.Fatal(err)
			}
			var r *replica.Replicator
			if on {
				if r, err = replica.Start(context.Background(), dir, benchStore(b), replica.Options{Every: replica.EveryCommit, Interval: 10 * time.Millisecond}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := rec.Record(context.Background(), events[i%len(events)]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			rec.Close()
			if r != nil {
				r.Close(context.Background())
			}
		})
	}
}

// BenchmarkReplicaLag records 1,000 events per second (epochs of 1,000
// events or 1 s) for 5 s with a replicator copying sealed epochs, and
// reports the largest lag it showed, in epochs, and how long after the
// last seal the replica held it.
func BenchmarkReplicaLag(b *testing.B) {
	for range b.N {
		dir := b.TempDir()
		rec, err := recorder.Open(dir, recorder.Options{Recorder: "ops-1", EpochSize: 1000, EpochMaxAge: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		r, err := replica.Start(context.Background(), dir, benchStore(b), replica.Options{})
		if err != nil {
			b.Fatal(err)
		}
		g := workload.New(3)
		var maxLag uint64
		start := time.Now()
		for i := range 5000 {
			time.Sleep(time.Until(start.Add(time.Duration(i) * time.Millisecond)))
			if _, err := rec.Append(g.Next()); err != nil {
				b.Fatal(err)
			}
			if i%100 == 0 {
				maxLag = max(maxLag, r.Status().LagEpochs)
			}
		}
		if err := rec.Close(); err != nil {
			b.Fatal(err)
		}
		sealed := time.Now()
		for r.Status().Epochs < rec.Position().OpenEpoch {
			maxLag = max(maxLag, r.Status().LagEpochs)
			time.Sleep(time.Millisecond)
		}
		b.ReportMetric(float64(maxLag), "max-lag-epochs")
		b.ReportMetric(float64(time.Since(sealed).Milliseconds()), "ms-after-last-seal")
		r.Close(context.Background())
	}
}

// BenchmarkVerifyReplica verifies a log of 20,000 events from its local
// directory and from its replica on the real server (loopback): the
// ratio is what reading the replica costs a verifier.
func BenchmarkVerifyReplica(b *testing.B) {
	for _, n := range []int{20_000, 200_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) { verifyReplica(b, n) })
	}
}

// verifyReplica verifies a log of n events from local disk and from its
// replica.
func verifyReplica(b *testing.B, n int) {
	l := logtest.Write(b, recorder.Options{Recorder: "ops-1", Encrypt: true, Sync: recorder.SyncNone}, workload.Generate(9, n))
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		b.Fatal(err)
	}
	s := benchStore(b)
	if _, err := replica.Once(context.Background(), l.Dir, s, replica.Options{}); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, open func() *recorder.Log) {
		for range b.N {
			rep, err := verifier.VerifyLog(context.Background(), open(), verifier.AnchorList(anchors), verifier.Options{Payloads: verifier.PayloadsDigest})
			if err != nil || rep.Verdict != verifier.Verified {
				b.Fatalf("%v %v %+v", rep.Verdict, err, rep.Findings[:min(3, len(rep.Findings))])
			}
		}
	}
	b.Run("local", func(b *testing.B) {
		run(b, func() *recorder.Log { return mustOpen(b, l.Dir) })
	})
	b.Run("replica", func(b *testing.B) {
		run(b, func() *recorder.Log {
			f, err := replica.Open(context.Background(), s)
			if err != nil {
				b.Fatal(err)
			}
			f.Prefetch()
			rl, err := recorder.OpenLogFS(f, s.URL())
			if err != nil {
				b.Fatal(err)
			}
			return rl
		})
	})
}
