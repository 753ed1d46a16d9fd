package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/bench"
)

func init() {
	register(&command{name: "bench", summary: "the paper's evaluation regenerated: Tables II–IV, RQ1, RQ4 beside the paper", run: runBench, usage: `
Usage: afr bench [--only table2,table3,table4,rq1,rq4] [--quick] [-o DIR]
                 [--seeds N] [--backend embedded|anvil] [--traces DIR] [--markdown FILE]

Measures the paper's evaluation on this system and prints each table with
the paper's figures beside ours:

  table2  the ablation ladder (baseline, schema, chain, merkle, full):
          median, P95 and P99 latency and bytes per event at N = 100, 1K
          and 10K synthetic events, over several seeds; plot: latency CDF
  table3  anchoring: gas of real anchor transactions (the embedded chain,
          or anvil with --backend anvil), projected per epoch size (10 to
          1,000 events), per 100,000 events and per day, on L1 and L2
  table4  tamper detection: every attack class (the paper's edit, delete,
          reorder and fork, and insert, truncate, rollback, payload swap,
          cross-session splice, linear-fake, …) at the paper's ten
          positions, verdict and finding per cell; clean logs for false
          positives
  rq1     the SWE-agent trajectories of ../shared/traces/swe-agent (else
          the one committed in fixtures/trajectories/swe-agent): actions
          by category, full vs baseline cost per event, verdicts (said so,
          and skipped, when there are no trajectories)
  rq4     the prompt-injection incident on a chain: causal-chain query vs
          grep baselines, precision and recall, with the queries

Each table is also written into DIR (default afr-bench): DIR/ID.md,
DIR/ID.json and its plots as PNG and SVG, and the whole run, with the
command, the machine and the date, as DIR/README.md (and to FILE with
--markdown, e.g. docs/REPRODUCTION.md). Progress goes to stderr.

The full run uses the paper's sizes (N up to 10,000, 30 seeds) and takes one
to a few minutes; --quick (N up to 1,000, 3 seeds, a 1,000-event log for
Table IV) some seconds. Timings depend on the machine and its load: compare the
rungs of one run (the ×baseline column), not runs.

The trajectories are found with --traces, else $AFR_TRACES, else
../shared/traces beside the module the working directory is in, else
fixtures/trajectories in that module (one committed trajectory).

Examples:
  afr bench --quick
  afr bench --only table2,table4 --seeds 10 -o /tmp/bench
  afr bench --backend anvil --only table3
  afr bench --markdown docs/REPRODUCTION.md`})
}

func runBench(e *env, args []string) error {
	fs := commands["bench"].flags(e)
	only := fs.String("only", "", "comma-separated tables to run: "+strings.Join(bench.IDs(), ","))
	quick := fs.Bool("quick", false, "smaller logs and fewer seeds: seconds instead of minutes")
	out := fs.String("o", "afr-bench", "output folder for Markdown, JSON and plots")
	seeds := fs.Int("seeds", 0, "seeds per Table II cell, clean logs of Table IV, RQ1 repetitions (default 30; 3 with --quick)")
	backend := fs.String("backend", "embedded", "chain for Table III and RQ4: embedded or anvil")
	tracesDir := fs.String("traces", "", "the trajectories' directory for RQ1 (default $AFR_TRACES, else ../shared/traces beside the module, else its fixtures/trajectories)")
	markdown := fs.String("markdown", "", "also write the whole run as Markdown to this file")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"unexpected arguments: " + strings.Join(fs.Args(), " ")}
	}
	ids, err := bench.ParseOnly(*only)
	if err != nil {
		return usageError{"--only: " + err.Error()}
	}
	cfg := bench.Config{Quick: *quick, Seeds: *seeds, Backend: *backend, Traces: *tracesDir, Out: *out,
		Command: strings.TrimSpace("afr bench " + strings.Join(args, " ")), Version: version(), Progress: bench.NewProgress(e.stderr, isTerminal(e.stderr))}
	if err := cfg.Check(); err != nil {
		return usageError{err.Error()}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	rep, err := bench.Run(ctx, cfg, ids, e.stdout)
	if rep != nil && *markdown != "" {
		rel, rerr := filepath.Rel(filepath.Dir(*markdown), *out)
		if rerr != nil || strings.HasPrefix(rel, "..") {
			rel = "" // the plots are not beside the file: no images
		}
		if werr := os.WriteFile(*markdown, rep.Markdown(rel), 0o644); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	e.stdout.Write([]byte("Written: " + filepath.Join(*out, "README.md") + " (and each table's .md, .json, .png, .svg)\n"))
	return nil
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
