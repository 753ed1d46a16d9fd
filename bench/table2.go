package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/agentflightrecorder/afr/bench/ladder"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder/workload"
)

// paperLadder is the paper's Table II (N = 10K synthetic events; Python on
// an Apple M-series laptop): median, P95 and P99 in µs, bytes per event.
var paperLadder = map[string][4]float64{
	"baseline": {20.3, 26.2, 30.7, 272},
	"schema":   {6.0, 8.2, 10.0, 476},
	"chain":    {48.2, 57.2, 76.8, 477},
	"merkle":   {48.8, 60.8, 4067.6, 512},
	"full":     {47.6, 60.2, 30020.9, 512},
}

// paperLadderN is the N of the paper's Table II.
const paperLadderN = 10_000

// LadderRow is one rung at one N, over every seed.
type LadderRow struct {
	Rung     string  `json:"rung"`
	N        int     `json:"n"`
	Seeds    int     `json:"seeds"`
	MedianNs float64 `json:"median_ns"`
	P95Ns    float64 `json:"p95_ns"`
	P99Ns    float64 `json:"p99_ns"`
	Bytes    float64 `json:"bytes_per_event"`
	// XBaseline is the rung's median over the baseline's, at the same N in
	// the same run.
	XBaseline float64 `json:"median_x_baseline"`
}

// table2 measures the ablation ladder.
func table2(ctx context.Context, r *run) (*Table, error) {
	sz := r.sizes
	seeds := make([]uint64, sz.Seeds)
	for i := range seeds {
		seeds[i] = 42 + uint64(i) // the paper's seed first
	}
	// One short run of every rung first: the first run of a process pays
	// for page faults and lazy initialisation.
	if _, _, err := measureRungs(r, "warm-up", ladder.Rungs, workload.Generate(1, 1_000)); err != nil {
		return nil, err
	}
	type key struct {
		rung string
		n    int
	}
	lat := map[key][]time.Duration{}
	bytes := map[key]int64{}
	total, done := len(sz.LadderN)*len(seeds), 0
	for _, n := range sz.LadderN {
		for _, seed := range seeds {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r.progress(done, total, "N=%d seed %d", n, seed)
			// The rungs take turns on the same events, so that the machine's
			// load falls on all of them alike.
			l, b, err := measureRungs(r, fmt.Sprintf("n%d-s%d", n, seed), ladder.Rungs, workload.Generate(seed, n))
			if err != nil {
				return nil, err
			}
			for i, rung := range ladder.Rungs {
				k := key{rung, n}
				lat[k] = append(lat[k], l[i]...)
				bytes[k] += b[i]
			}
			done++
		}
	}
	t := &Table{ID: "table2", Title: "Table II — the ablation ladder: per-event latency and size",
		About: fmt.Sprintf("Each rung of bench/ladder records the synthetic workload (recorder/workload: eight tool categories, ~15%% concurrent in groups of 2–3) "+
			"into a fresh log, every Record call timed; seeds %d–%d, the rungs taking turns on the same events; buffered writes, no fsync, so this is the recorder's own work. "+
			"Latencies are pooled over the seeds; ×baseline is the rung's median over the baseline's median at the same N in this run. The paper's figures are for N = 10K (Python, Apple M-series).",
			seeds[0], seeds[len(seeds)-1])}
	sec := Section{Header: []string{"N", "rung", "median µs (paper)", "median µs", "P95 µs (paper)", "P95 µs", "P99 µs (paper)", "P99 µs", "bytes/ev (paper)", "bytes/ev", "×baseline"}}
	var rows []LadderRow
	for _, n := range sz.LadderN {
		base := 0.0
		for _, rung := range ladder.Rungs {
			k := key{rung, n}
			l := lat[k]
			slices.Sort(l)
			row := LadderRow{Rung: rung, N: n, Seeds: len(seeds),
				MedianNs: float64(ladder.Quantile(l, 0.5)), P95Ns: float64(ladder.Quantile(l, 0.95)), P99Ns: float64(ladder.Quantile(l, 0.99)),
				Bytes: float64(bytes[k]) / float64(n*len(seeds))}
			if rung == "baseline" {
				base = row.MedianNs
			}
			row.XBaseline = row.MedianNs / base
			rows = append(rows, row)
			paper := [4]string{"—", "—", "—", "—"}
			if p, ok := paperLadder[rung]; ok && n == paperLadderN {
				paper = [4]string{fmt.Sprintf("%.1f", p[0]), fmt.Sprintf("%.1f", p[1]), fmt.Sprintf("%.1f", p[2]), fmt.Sprintf("%.0f", p[3])}
			}
			sec.Rows = append(sec.Rows, []string{fmt.Sprint(n), rung,
				paper[0], us(row.MedianNs), paper[1], us(row.P95Ns), paper[2], us(row.P99Ns), paper[3], fmt.Sprintf("%.0f", row.Bytes),
				fmt.Sprintf("%.2f", row.XBaseline)})
		}
	}
	t.Sections = []Section{sec}
	t.Data = struct {
		Seeds []uint64    `json:"seeds"`
		Rows  []LadderRow `json:"rows"`
	}{seeds, rows}
	t.Notes = []string{
		"Our bars (docs/DESIGN.md §5): full median no slower than the baseline's (×baseline ≤ 1), full P99 ≤ 5× full median, ≤ 512 bytes/event.",
		"Bytes per event count everything a rung writes (records, payload frames, epoch headers, commitments, nonces and tags), not the key directory.",
	}
	// The latency CDF at the largest N.
	n := sz.LadderN[len(sz.LadderN)-1]
	var ss []series
	for _, rung := range ladder.Rungs {
		l := lat[key{rung, n}]
		xs := make([]float64, len(l))
		for i, d := range l {
			xs[i] = float64(d) / 1e3
		}
		ss = append(ss, series{name: rung, xys: cdf(xs, 2000)})
	}
	p, err := linePlot(fmt.Sprintf("Per-event latency CDF, N = %d, %d seeds", n, len(seeds)), "latency per event (µs, log scale)", "fraction of events", true, false, legend{top: false, left: false}, ss)
	if err != nil {
		return nil, err
	}
	if err := t.savePlot(p, r.cfg.Out, "table2-latency-cdf"); err != nil {
		return nil, err
	}
	return t, nil
}

// measureRungs records events with each rung in turn, each into a fresh log
// under the run's scratch space (removed after), and returns each rung's
// latencies and bytes written.
func measureRungs(r *run, name string, rungs []string, events []format.Event) ([][]time.Duration, []int64, error) {
	lats := make([][]time.Duration, len(rungs))
	bytes := make([]int64, len(rungs))
	for i, rung := range rungs {
		dir := filepath.Join(r.tmp, "ladder-"+name+"-"+rung)
		runtime.GC() // every rung starts with the same heap
		l, err := ladder.Open(rung, dir)
		if err != nil {
			return nil, nil, err
		}
		lats[i] = make([]time.Duration, len(events))
		err = ladder.Time(l, events, lats[i])
		if cerr := l.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s rung: %w", rung, err)
		}
		if bytes[i], err = ladder.DirBytes(dir); err != nil {
			return nil, nil, err
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, nil, err
		}
	}
	return lats, bytes, nil
}

// us formats nanoseconds as microseconds.
func us(ns float64) string {
	if ns >= 100_000 {
		return fmt.Sprintf("%.0f", ns/1e3)
	}
	return fmt.Sprintf("%.2f", ns/1e3)
}
