package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
)

// exitForeign is the exit code of afr anchor when another writer anchored
// an epoch with the same operator key.
const exitForeign = 5

// anchorSummary is the JSON of afr anchor for one log.
type anchorSummary struct {
	Operator  common.Address        `json:"operator"`
	Contract  common.Address        `json:"contract"`
	ChainID   uint64                `json:"chain_id"`
	Log       format.Digest         `json:"log"`
	Confirmed int                   `json:"confirmed_now"`
	Anchored  int                   `json:"anchored_total"`
	GasUsed   uint64                `json:"gas_used_now"`
	Window    recorder.AnchorWindow `json:"window"`
	Last      *anchor.Anchored      `json:"last,omitempty"`
}

// batchSummary is the JSON of afr anchor --batches.
type batchSummary struct {
	Operator    common.Address `json:"operator"`
	Contract    common.Address `json:"contract"`
	ChainID     uint64         `json:"chain_id"`
	BatchesFile string         `json:"batches_file"`
	Publish     string         `json:"publish"`
	Logs        []batchedLog   `json:"logs"`
	// Batches confirmed by this run, the log-epochs they hold and their gas.
	Confirmed   int     `json:"confirmed_now"`
	Epochs      uint64  `json:"epochs_now"`
	GasUsed     uint64  `json:"gas_used_now"`
	GasPerEpoch float64 `json:"gas_per_log_epoch"`
	// Batches confirmed in all, batches not yet confirmed, epochs in none.
	Anchored int              `json:"anchored_total"`
	Pending  int              `json:"pending_batches"`
	Waiting  int              `json:"waiting_epochs"`
	Last     *anchor.Anchored `json:"last,omitempty"`
}

type batchedLog struct {
	Dir string        `json:"dir"`
	Log format.Digest `json:"log"`
}

func runAnchor(e *env, args []string) error {
	fs := commands["anchor"].flags(e)
	var logDirs repeated
	fs.Var(&logDirs, "log", "log directory (required; repeat it with --batches)")
	cf := addChainFlags(fs)
	keyFile := addKeyFlag(fs)
	conf := fs.Uint64("confirmations", 2, "blocks deep (counting the anchor's own) before an epoch counts as anchored")
	follow := fs.Bool("follow", false, "keep anchoring epochs as they are sealed, until interrupted")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long (without --follow)")
	resubmit := fs.Duration("resubmit-after", 10*time.Second, "re-sign a transaction not mined after this long, with fees raised by 25%")
	maxFee := fs.Float64("max-fee-gwei", 0, "never raise the fee cap of a replacement above this (0: no limit)")
	batches := fs.String("batches", "", "anchor every --log in aggregate batches recorded in this batches file")
	publish := fs.String("publish", "file", "with --batches, where batch entries are published: file (the batches file only) or events (also on chain)")
	maxEntries := fs.Int("max-entries", 0, "with --batches, at most this many epochs per batch (default 1000)")
	maxWait := fs.Duration("max-wait", 0, "with --batches, how long a sealed epoch may wait for others (default 0: a batch as soon as none is in flight)")
	jsonOut := fs.Bool("json", false, "write a summary as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case len(logDirs) == 0:
		return usageError{"--log is required"}
	case len(logDirs) > 1 && *batches == "":
		return usageError{"several --log need --batches FILE (they are anchored together, in aggregate batches); or run afr anchor once per log"}
	case *publish != "file" && *publish != "events":
		return usageError{"--publish: want file or events"}
	case *batches == "" && (*publish != "file" || *maxEntries != 0 || *maxWait != 0):
		return usageError{"--publish, --max-entries and --max-wait are for --batches"}
	}
	t, dep, err := cf.deployment()
	if err != nil {
		return err
	}
	key, err := readKey(*keyFile)
	if err != nil {
		return err
	}
	for _, dir := range logDirs {
		if _, err := recorder.ReadManifest(dir); err != nil {
			return fmt.Errorf("%w (hint: is %s an AFR log?)", err, dir)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !*follow {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	b, err := cf.dial(ctx, t, key)
	if err != nil {
		return err
	}
	defer b.Close()
	var maxFeeCap *big.Int
	if *maxFee > 0 {
		maxFeeCap, _ = new(big.Float).Mul(big.NewFloat(*maxFee), big.NewFloat(1e9)).Int(nil)
	}
	opts := anchor.Options{Contract: dep.EpochAnchor, Key: key, FromBlock: dep.Block, Confirmations: *conf, ResubmitAfter: *resubmit, MaxFeeCap: maxFeeCap,
		Logf: func(f string, a ...any) { fmt.Fprintf(e.stderr, "afr "+f+"\n", a...) }}
	if *batches != "" {
		pub := anchor.PublishFile
		if *publish == "events" {
			pub = anchor.PublishEvents
		}
		bo := anchor.BatchOptions{Options: opts, BatchesFile: *batches, Publish: pub, MaxEntries: *maxEntries, MaxWait: *maxWait}
		return anchorBatches(ctx, e, b.Client(), bo, logDirs, *follow, *jsonOut)
	}
	return anchorLog(ctx, e, b.Client(), opts, logDirs[0], *follow, *jsonOut)
}

// runUntilDone runs an anchorer until drained, or, following, until ctx
// ends, reading the logs (sync) every second; it returns the error that
// ended it.
func runUntilDone(ctx context.Context, e *env, run func(context.Context) error, drain func(context.Context) error, sync func() error, follow bool) error {
	runCtx, cancelRun := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(runCtx) }()
	var err error
	if follow {
		t := time.NewTicker(time.Second)
		defer t.Stop()
	loop:
		for {
			select {
			case <-ctx.Done():
				err = ctx.Err()
				break loop
			case rerr := <-done:
				done <- rerr
				break loop
			case <-t.C:
				if err := sync(); err != nil {
					fmt.Fprintf(e.stderr, "afr anchor: reading the log: %v\n", err)
				}
			}
		}
	} else {
		err = drain(ctx)
	}
	cancelRun()
	if rerr := <-done; rerr != nil {
		err = rerr
	}
	return err
}

// anchorExit turns how an anchoring run ended into afr anchor's exit.
func anchorExit(err error, pending string, follow bool) error {
	switch {
	case errors.Is(err, anchor.ErrForeignAnchor):
		return codeError{code: exitForeign, err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("timed out with %s pending (hint: run again to resume; --timeout)", pending)
	case follow && errors.Is(err, context.Canceled):
		return nil
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted with %s pending; nothing is lost (hint: run again to resume)", pending)
	}
	return err
}

// anchorLog anchors one log per log.
func anchorLog(ctx context.Context, e *env, c chain.Client, opts anchor.Options, dir string, follow, jsonOut bool) error {
	a, err := anchor.Open(ctx, dir, c, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	defer publishAnchor(dir, a)()
	before := int(a.Queue().Confirmed())
	total := before + len(a.Queue().Pending)
	if !jsonOut {
		fmt.Fprintf(e.stderr, "afr anchor: operator %s, log %s, %d epochs to anchor (%d already confirmed)\n", a.Operator(), a.LogID(), total-before, before)
	}
	err = runUntilDone(ctx, e, func(ctx context.Context) error { return a.Run(ctx, nil) }, a.Drain,
		func() error { _, err := a.SyncLog(); return err }, follow)
	q := a.Queue()
	confirmed := newlyConfirmed(q, before)
	sum := anchorSummary{Operator: a.Operator(), Contract: opts.Contract, ChainID: q.ChainID, Log: a.LogID(), Anchored: int(q.Confirmed()),
		Confirmed: confirmed.n, Window: q.Window(0, time.Now())}
	for _, an := range confirmed.kept {
		sum.GasUsed += an.GasUsed
	}
	if n := len(q.Anchored); n > 0 {
		sum.Last = &q.Anchored[n-1]
	}
	if jsonOut {
		writeJSON(e.stdout, sum)
	} else {
		fmt.Fprintf(e.stdout, "anchored %d epochs now (%d in total, %d gas); %d epochs pending\n", sum.Confirmed, sum.Anchored, sum.GasUsed, sum.Window.Epochs)
		if sum.Last != nil {
			fmt.Fprintf(e.stdout, "last confirmed: epoch %d root %s in tx %s (block %d)\n", sum.Last.Epoch, sum.Last.Root, sum.Last.Tx, sum.Last.Block)
		}
	}
	return anchorExit(err, fmt.Sprintf("%d epochs", sum.Window.Epochs), follow)
}

// anchorBatches anchors several logs in aggregate batches.
func anchorBatches(ctx context.Context, e *env, c chain.Client, opts anchor.BatchOptions, dirs []string, follow, jsonOut bool) error {
	b, err := anchor.OpenBatcher(ctx, c, opts)
	if err != nil {
		return err
	}
	defer b.Close()
	sum := batchSummary{Operator: b.Operator(), Contract: opts.Contract, BatchesFile: opts.BatchesFile, Publish: "file"}
	if opts.Publish == anchor.PublishEvents {
		sum.Publish = "events"
	}
	for _, dir := range dirs {
		id, err := b.AddLog(anchor.LogSource{Dir: dir})
		if err != nil {
			return err
		}
		sum.Logs = append(sum.Logs, batchedLog{dir, id})
	}
	before := int(b.Queue().Confirmed())
	if !jsonOut {
		fmt.Fprintf(e.stderr, "afr anchor: operator %s, %d logs in batches (%s, entries published in %s), %d epochs waiting, %d batches pending (%d already confirmed)\n",
			b.Operator(), len(dirs), opts.BatchesFile, sum.Publish, b.Waiting(), len(b.Queue().Pending), before)
		for _, l := range sum.Logs {
			fmt.Fprintf(e.stderr, "afr anchor:   log %s  %s\n", l.Log, l.Dir)
		}
	}
	err = runUntilDone(ctx, e, b.Run, b.Drain, func() error { _, err := b.SyncLogs(); return err }, follow)
	q := b.Queue()
	confirmed := newlyConfirmed(q, before)
	sum.ChainID, sum.Anchored, sum.Confirmed, sum.Pending, sum.Waiting = q.ChainID, int(q.Confirmed()), confirmed.n, len(q.Pending), b.Waiting()
	for _, an := range confirmed.kept {
		sum.GasUsed, sum.Epochs = sum.GasUsed+an.GasUsed, sum.Epochs+an.Count
	}
	if sum.Epochs > 0 {
		sum.GasPerEpoch = float64(sum.GasUsed) / float64(sum.Epochs)
	}
	if n := len(q.Anchored); n > 0 {
		sum.Last = &q.Anchored[n-1]
	}
	if jsonOut {
		writeJSON(e.stdout, sum)
	} else {
		fmt.Fprintf(e.stdout, "anchored %d batches now (%d log-epochs, %d gas, %.0f gas per log-epoch; %d batches in total); %d batches pending, %d epochs waiting\n",
			sum.Confirmed, sum.Epochs, sum.GasUsed, sum.GasPerEpoch, sum.Anchored, sum.Pending, sum.Waiting)
		if sum.Last != nil {
			fmt.Fprintf(e.stdout, "last confirmed: batch %d root %s in tx %s (block %d)\n", sum.Last.Epoch, sum.Last.Root, sum.Last.Tx, sum.Last.Block)
		}
	}
	return anchorExit(err, fmt.Sprintf("%d batches and %d epochs", sum.Pending, sum.Waiting), follow)
}

// confirmedRun is what a run of afr anchor confirmed: n epochs (or
// batches), and those of them the queue file still holds (it keeps the
// last anchor.DefaultKeepAnchored), whose gas the summary adds up.
type confirmedRun struct {
	n    int
	kept []anchor.Anchored
}

// newlyConfirmed compares q with the before confirmed entries it had when
// the run began; a reorg or chain reset can leave fewer than before.
func newlyConfirmed(q anchor.Queue, before int) confirmedRun {
	n := int(q.Confirmed()) - min(before, int(q.Confirmed()))
	return confirmedRun{n: n, kept: q.Anchored[max(0, len(q.Anchored)-n):]}
}
