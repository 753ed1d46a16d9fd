package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentflightrecorder/afr/bench/ladder"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/importer"
	"github.com/agentflightrecorder/afr/internal/traces"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// PaperCategories is the paper's RQ1 workload: five SWE-agent runs on
// SWE-bench, 38 events — 47% shell, 34% file edits, 18% file reads.
var PaperCategories = map[string]float64{"shell": 47, "edit": 34, "read": 18}

const paperRQ1Events = 38

// paperRQ1 is the paper's RQ1 latency: the baseline's median 2.4 µs, the
// full system's about 14 µs more.
var paperRQ1 = map[string]float64{"baseline": 2.4, "full": 2.4 + 14}

// Trajectory is one recorded trajectory.
type Trajectory struct {
	File     string         `json:"file"`
	Steps    int            `json:"steps"`
	Actions  int            `json:"actions"`
	ByCat    map[string]int `json:"actions_by_category"`
	Verdict  string         `json:"verdict"`
	Events   uint64         `json:"events_verified"`
	Payloads uint64         `json:"payloads_opened"`
}

// RungTiming is one rung's per-event latency on the trajectories.
type RungTiming struct {
	Rung     string  `json:"rung"`
	Events   int     `json:"events"` // timed, over every repetition
	MedianNs float64 `json:"median_ns"`
	P95Ns    float64 `json:"p95_ns"`
	P99Ns    float64 `json:"p99_ns"`
}

// rq1 records the SWE-agent trajectories that internal/traces locates:
// those beside the project, else the one committed with it.
func rq1(ctx context.Context, r *run) (*Table, error) {
	t := &Table{ID: "rq1", Title: "RQ1 — real agent runs: SWE-agent trajectories",
		About: "Every step of the SWE-agent trajectories kept beside the project (../shared/traces/swe-agent, or without them the one committed in fixtures/trajectories/swe-agent; found by internal/traces) is turned into an event " +
			"(importer.Read, as `afr import swe-agent` does: an action is a tool_call of its tool, with the tool call's arguments where the history has them and its observation as output, the system prompt and the task observations, the run's submission a response, the step as written in the payload's ext \"import\") " +
			"Each trajectory is recorded by the full recorder (encrypted, epochs of 100) and verified with every payload opened, against its own epoch roots; " +
			"then all their events are timed through the baseline and full rungs of the ladder, taking turns, several times."}
	dir, err := traces.Locate(r.cfg.Traces)
	if err != nil {
		t.Skipped = err.Error()
		return t, nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "swe-agent", "*.traj"))
	if len(files) == 0 {
		t.Skipped = fmt.Sprintf("no SWE-agent trajectories in %s", filepath.Join(dir, "swe-agent"))
		return t, nil
	}
	var all []format.Event
	var trajs []Trajectory
	cats := map[string]int{}
	actions := 0
	for i, f := range files {
		r.progress(i, len(files)+1, "recording %s", filepath.Base(f))
		events, tr, err := recordTrajectory(ctx, filepath.Join(r.tmp, fmt.Sprintf("rq1-%d", i)), f)
		if err != nil {
			return nil, err
		}
		all = append(all, events...)
		trajs = append(trajs, tr)
		for c, k := range tr.ByCat {
			cats[c] += k
		}
		actions += tr.Actions
	}
	r.progress(len(files), len(files)+1, "timing %d events × %d", len(all), r.sizes.Seeds)
	rungs := []string{"baseline", "full"}
	lat := make([][]time.Duration, len(rungs))
	for rep := range r.sizes.Seeds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l, _, err := measureRungs(r, fmt.Sprintf("rq1-%d", rep), rungs, all)
		if err != nil {
			return nil, err
		}
		for i := range rungs {
			lat[i] = append(lat[i], l[i]...)
		}
	}
	var timings []RungTiming
	for i, rung := range rungs {
		slices.Sort(lat[i])
		timings = append(timings, RungTiming{Rung: rung, Events: len(lat[i]), MedianNs: float64(ladder.Quantile(lat[i], 0.5)),
			P95Ns: float64(ladder.Quantile(lat[i], 0.95)), P99Ns: float64(ladder.Quantile(lat[i], 0.99))})
	}

	catSec := Section{Title: "Actions by category", Header: []string{"category", "paper %", "paper events", "events", "%"}}
	var paperPct, ourPct []float64
	for _, c := range importer.Categories {
		p, ok := PaperCategories[c]
		pe, ps := "—", "—"
		if ok {
			pe, ps = fmt.Sprintf("%.0f", p*paperRQ1Events/100), fmt.Sprintf("%.0f", p)
		}
		share := 100 * float64(cats[c]) / float64(max(actions, 1))
		paperPct, ourPct = append(paperPct, p), append(ourPct, share)
		catSec.Rows = append(catSec.Rows, []string{c, ps, pe, fmt.Sprint(cats[c]), fmt.Sprintf("%.0f", share)})
	}
	catSec.Rows = append(catSec.Rows, []string{"all actions", "100", fmt.Sprint(paperRQ1Events), fmt.Sprint(actions), "100"})
	trajSec := Section{Title: "Trajectories", Header: []string{"trajectory", "steps", "actions", "verdict", "events verified", "payloads opened"}}
	for _, tr := range trajs {
		trajSec.Rows = append(trajSec.Rows, []string{tr.File, fmt.Sprint(tr.Steps), fmt.Sprint(tr.Actions), tr.Verdict, fmt.Sprint(tr.Events), fmt.Sprint(tr.Payloads)})
	}
	timeSec := Section{Title: fmt.Sprintf("Per-event cost on these %d events (%d repetitions)", len(all), r.sizes.Seeds),
		Header: []string{"rung", "median µs (paper)", "median µs", "P95 µs", "P99 µs", "×baseline"}}
	for _, tm := range timings {
		timeSec.Rows = append(timeSec.Rows, []string{tm.Rung, fmt.Sprintf("%.1f", paperRQ1[tm.Rung]), us(tm.MedianNs), us(tm.P95Ns), us(tm.P99Ns),
			fmt.Sprintf("%.2f", tm.MedianNs/timings[0].MedianNs)})
	}
	t.Sections = []Section{catSec, trajSec, timeSec}
	t.Notes = []string{
		fmt.Sprintf("Full − baseline at the median: %.2f µs here; the paper: ≈ 14 µs over its baseline's 2.4 µs (Python).", (timings[1].MedianNs-timings[0].MedianNs)/1e3),
		"Categories by the action's tool (importer's tool vocabulary, docs/IMPORT.md): SWE-agent's editor commands are edits; its viewer and search commands and cat/head/tail are reads; submit is other; any other command is shell.",
		fmt.Sprintf("The paper's 38 events are its five runs' actions; ours are the %d actions of the %d trajectories here (a trajectory without a `trajectory` list contributes its chat history's actions; demonstration messages are skipped).", actions, len(files)),
	}
	t.Data = struct {
		Dir          string         `json:"dir"`
		Trajectories []Trajectory   `json:"trajectories"`
		Categories   map[string]int `json:"actions_by_category"`
		Actions      int            `json:"actions"`
		Events       int            `json:"events"`
		Repetitions  int            `json:"repetitions"`
		Timings      []RungTiming   `json:"timings"`
	}{dir, trajs, cats, actions, len(all), r.sizes.Seeds, timings}
	p, err := barPlot("Actions by category: paper vs these trajectories", "% of actions", importer.Categories,
		[]bars{{fmt.Sprintf("paper (%d events)", paperRQ1Events), paperPct}, {fmt.Sprintf("ours (%d actions)", actions), ourPct}})
	if err != nil {
		return nil, err
	}
	if err := t.savePlot(p, r.cfg.Out, "rq1-categories"); err != nil {
		return nil, err
	}
	return t, nil
}

// recordTrajectory records every step of the trajectory file as an event
// into a log in dir and verifies the log with its payloads opened.
func recordTrajectory(ctx context.Context, dir, file string) ([]format.Event, Trajectory, error) {
	tr := Trajectory{File: filepath.Base(file), ByCat: map[string]int{}}
	f, err := importer.Read("swe-agent", file)
	if err != nil {
		return nil, tr, err
	}
	tr.Steps = len(f.Events)
	rec, err := recorder.Open(dir, recorder.Options{Recorder: "rq1", Encrypt: true, Sync: recorder.SyncNone, EpochMaxAge: -1})
	if err != nil {
		return nil, tr, err
	}
	if _, err := f.Record(ctx, rec); err != nil {
		rec.Close()
		return nil, tr, err
	}
	var events []format.Event
	for _, e := range f.Events {
		events = append(events, e.Event)
	}
	tr.ByCat = f.ByCategory()
	for _, n := range tr.ByCat {
		tr.Actions += n
	}
	man := rec.Manifest()
	if err := rec.Close(); err != nil {
		return nil, tr, err
	}
	l, err := recorder.OpenLog(dir)
	if err != nil {
		return nil, tr, err
	}
	keys, err := recorder.OpenKeyring(filepath.Join(dir, "keys"), man.Session)
	if err != nil {
		return nil, tr, err
	}
	defer keys.Close()
	as, err := verifier.AnchorsFromLog(l)
	if err != nil {
		return nil, tr, err
	}
	rep, err := verifier.VerifyLog(ctx, l, verifier.AnchorList(as), verifier.Options{Payloads: verifier.PayloadsOpen, Keys: keys})
	if err != nil {
		return nil, tr, err
	}
	tr.Verdict, tr.Events, tr.Payloads = rep.Verdict.String(), rep.Events, rep.PayloadsOpened
	return events, tr, nil
}
