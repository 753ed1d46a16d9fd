package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// BenchmarkVerifyCLI runs the afr binary as an auditor does — afr verify
// --log DIR --anchors FILE, payload digests checked — on a log of
// AFR_BENCH_EVENTS events (default 1,000,000; epochs of 100, encrypted),
// with one worker and with one per core. In the same run it hashes every
// segment file of the log with SHA-256 on one core (read and hashed, the
// page cache warm): each sub-benchmark reports x-sha256, its wall time over
// that floor, and peak-rss-MiB, the resident memory the afr process
// reached (getrusage). The log is written into a directory removed at the
// end, or, with AFR_BENCH_LOG=DIR, kept in DIR and reused by the next run
// of the same size (writing 10,000,000 events takes minutes).
//
//	AFR_BENCH_EVENTS=1000000 go test ./cmd/afr -run '^$' -bench VerifyCLI -benchtime 3x -count 2
func BenchmarkVerifyCLI(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("AFR_BENCH_EVENTS")); err == nil && v > 0 {
		n = v
	}
	tmp := b.TempDir()
	bin := filepath.Join(tmp, "afr")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "log")
	if d := os.Getenv("AFR_BENCH_LOG"); d != "" {
		dir = filepath.Join(d, strconv.Itoa(n))
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		start := time.Now()
		if err := writeBenchLog(dir, n); err != nil {
			os.RemoveAll(dir)
			b.Fatal(err)
		}
		b.Logf("%d events written in %s", n, time.Since(start).Round(time.Millisecond))
	}
	anchors := filepath.Join(tmp, "anchors.json")
	if out, err := exec.Command(bin, "anchors", "--log", dir, "-o", anchors).CombinedOutput(); err != nil {
		b.Fatalf("afr anchors: %v\n%s", err, out)
	}
	var floor time.Duration // the fastest of three hashings of every segment file
	var size int64
	for range 3 {
		t := time.Now()
		size = logtest.HashSegments(b, dir)
		if d := time.Since(t); floor == 0 || d < floor {
			floor = d
		}
	}
	b.Logf("%.1f MB of segment files hashed in %s", float64(size)/1e6, floor)
	b.Run("sha256-one-core", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			logtest.HashSegments(b, dir)
		}
	})
	for _, w := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("afr-verify/workers=%d", w), func(b *testing.B) {
			b.SetBytes(size)
			var rss int64
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(bin, "verify", "--log", dir, "--anchors", anchors, "--workers", strconv.Itoa(w))
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("afr verify: %v\n%s", err, out)
				}
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					rss = max(rss, ru.Maxrss) // KiB on Linux
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(floor), "x-sha256")
			b.ReportMetric(float64(rss)/1024, "peak-rss-MiB")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// writeBenchLog records n events of the synthetic workload (seed 42,
// epochs of 100, encrypted) into dir.
func writeBenchLog(dir string, n int) error {
	r, err := recorder.Open(dir, recorder.Options{Recorder: "bench", Encrypt: true, Sync: recorder.SyncNone, EpochMaxAge: -1})
	if err != nil {
		return err
	}
	g := workload.New(42)
	for range n {
		if _, err := r.Record(context.Background(), g.Next()); err != nil {
			r.Close()
			return err
		}
	}
	return r.Close()
}
