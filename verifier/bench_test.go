package verifier_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
)

// benchEvents is the size of the benchmark log: 1,000,000 by default (the
// issue's figure); AFR_BENCH_EVENTS overrides it for quick runs.
func benchEvents() int {
	if n, err := strconv.Atoi(os.Getenv("AFR_BENCH_EVENTS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

// benchLog records the synthetic workload (seed 42, epochs of 100) once per
// process, into a directory removed when the process exits.
func benchLog(b *testing.B) (*recorder.Log, []format.Anchor) {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "afr-bench")
		if benchErr != nil {
			return
		}
		r, err := recorder.Open(benchDir, recorder.Options{Recorder: "bench", Encrypt: true, Sync: recorder.SyncNone, EpochMaxAge: -1})
		if err != nil {
			benchErr = err
			return
		}
		g := workload.New(42)
		for i := 0; i < benchEvents(); i++ {
			if _, err := r.Record(context.Background(), g.Next()); err != nil {
				benchErr = err
				return
			}
		}
		benchErr = r.Close()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	l, err := recorder.OpenLog(benchDir)
	if err != nil {
		b.Fatal(err)
	}
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		b.Fatal(err)
	}
	return l, anchors
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// BenchmarkVerify verifies the whole log without payloads (hashes, proofs,
// anchors) and, in the same run, hashes the same record bytes with plain
// SHA-256 on one core: the ratio is the verifier's cost over the floor,
// with one worker and with one per core (Options.Workers).
//
// Run: go test -run '^$' -bench BenchmarkVerify -benchtime 3x ./verifier/
func BenchmarkVerify(b *testing.B) {
	l, anchors := benchLog(b)
	var records [][]byte
	var total int64
	l.Records(func(_ uint64, raw []byte) error {
		records = append(records, raw)
		total += int64(len(raw))
		return nil
	})
	n := float64(len(records))
	b.Run("sha256-baseline", func(b *testing.B) {
		b.SetBytes(total)
		for i := 0; i < b.N; i++ {
			for _, r := range records {
				sha256.Sum256(r)
			}
		}
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("log/workers=%d", w), func(b *testing.B) {
			b.SetBytes(total)
			for i := 0; i < b.N; i++ {
				rep, err := verifier.VerifyLog(context.Background(), l, verifier.AnchorList(anchors), verifier.Options{Payloads: verifier.PayloadsSkip, Workers: w})
				if err != nil || rep.Verdict != verifier.Verified {
					b.Fatalf("%v %v", err, rep.Findings)
				}
			}
			b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkVerifyBundle verifies a one-event disclosure bundle of the
// benchmark log (payload opened with its key) and reports its size.
//
// Run: go test -run '^$' -bench BenchmarkVerifyBundle ./verifier/
func BenchmarkVerifyBundle(b *testing.B) {
	l, anchors := benchLog(b)
	kr, err := recorder.OpenKeyring(benchDir+"/keys", l.Manifest.Session)
	if err != nil {
		b.Fatal(err)
	}
	defer kr.Close()
	seq := uint64(benchEvents() / 2)
	bundle, err := verifier.Disclose(l, []uint64{seq}, verifier.DiscloseOptions{Keys: kr})
	if err != nil {
		b.Fatal(err)
	}
	data, err := bundle.Encode()
	if err != nil {
		b.Fatal(err)
	}
	src := verifier.AnchorList(anchors)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bb, err := verifier.DecodeBundle(data)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := verifier.VerifyBundle(context.Background(), bb, src, verifier.Options{Payloads: verifier.PayloadsOpen})
		if err != nil || rep.Verdict != verifier.Verified {
			b.Fatalf("%v %v", err, rep.Findings)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(data)), "bundle-bytes")
	b.ReportMetric(float64(32*len(bundle.Events[0].Path)), "proof-bytes")
	b.ReportMetric(float64(len(bundle.Headers[0])), "header-bytes")
}

// BenchmarkVerifyLogs verifies a fleet of 100 logs of 10,000 events each
// (AFR_BENCH_FLEET_EVENTS overrides the size): one log after another with
// every core on each log's epochs, and with VerifyLogs, which gives the
// cores to logs. Payload digests are checked. The sub-benchmarks after
// sha256-one-core (every segment file of the fleet hashed on one core)
// report x-sha256, their time over that floor.
//
// Run: go test -run '^$' -bench BenchmarkVerifyLogs -benchtime 3x ./verifier/
func BenchmarkVerifyLogs(b *testing.B) {
	n := 10_000
	if s := os.Getenv("AFR_BENCH_FLEET_EVENTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	evs := workload.Generate(7, n)
	logs := make([]verifier.LogToVerify, 100)
	dirs := make([]string, len(logs))
	for i := range logs {
		l := logtest.Write(b, recorder.Options{Recorder: fmt.Sprintf("agent-%03d", i), Encrypt: true, Sync: recorder.SyncNone}, evs)
		dirs[i] = l.Dir
		anchors, err := verifier.AnchorsFromLog(l)
		if err != nil {
			b.Fatal(err)
		}
		logs[i] = verifier.LogToVerify{Source: l, Anchors: verifier.AnchorList(anchors)}
	}
	check := func(rep *verifier.Report, err error) {
		if err != nil || rep.Verdict != verifier.Verified {
			b.Fatalf("%v %v", rep, err)
		}
	}
	var floor float64 // ns to hash the fleet's segment files
	b.Run("sha256-one-core", func(b *testing.B) {
		for range b.N {
			logtest.HashSegments(b, dirs...)
		}
		floor = float64(b.Elapsed()) / float64(b.N)
	})
	ratio := func(b *testing.B) {
		if floor > 0 {
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/floor, "x-sha256")
		}
	}
	b.Run("one-by-one", func(b *testing.B) {
		for range b.N {
			for _, l := range logs {
				check(verifier.VerifyLog(context.Background(), l.Source, l.Anchors, verifier.Options{}))
			}
		}
		ratio(b)
	})
	b.Run("VerifyLogs", func(b *testing.B) {
		for range b.N {
			reps, errs := verifier.VerifyLogs(context.Background(), logs, verifier.Options{})
			for i := range reps {
				check(reps[i], errs[i])
			}
		}
		ratio(b)
	})
}
