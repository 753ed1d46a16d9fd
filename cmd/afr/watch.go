package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/loopback"
	"github.com/agentflightrecorder/afr/internal/readlimit"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/replica"
	"github.com/agentflightrecorder/afr/watch"
)

// exitAlarms is the exit code of afr watch --once when alarms are active.
const exitAlarms = 7

func init() {
	register(&command{name: "watch", summary: "watch operators' anchors, checkpoints and replicas; raise alarms as JSON lines", run: runWatch, usage: `
Usage: afr watch --config FILE (--deployment FILE | --rpc URL --contract ADDR) [--interval D] [--once]
                 [--webhook URL] [--listen ADDR] [--witness-key FILE --witness-dir DIR]

afr watch is the external watcher of AFR's threat model: a party other
than the operator that follows EpochAnchor for the operators and logs of
--config (per-log anchors and aggregate batches) and, where they are
published, their checkpoints and replicas, and writes a JSON line to
standard output when an alarm is raised and when it clears (one line per
condition until it clears; docs/WATCH.md has the schema):

  anchor_late            no anchor of the log for longer than its window
  checkpoint_unanchored  checkpointed epochs still unanchored a window after
                         the watcher saw them
  anchor_conflict        two roots for an epoch (per log, batch, checkpoint),
                         a broken back-pointer, a gap
  batch_withheld         an anchored batch whose contents are nowhere
  anchor_reorged         an anchor seen on chain is gone
  anchor_replaced        an anchor seen on chain was replaced by another root
  checkpoint_invalid     the published checkpoint does not verify
  checkpoint_fork        it is inconsistent with one seen (or cosigned) before
  replica_stalled        the replica is behind and has not advanced in its bound
  replica_conflict       the replica's last epoch has another root
  source_error           the chain, a checkpoint, a batches file or a replica
                         cannot be read (what depends on it is kept as it was)

Nothing on chain declares how often a log anchors: the operator publishes
its window, and the config file gives it per log ("window"). The file
(JSON) lists operators and their logs:

  {"reorg_depth": 64,
   "operators": [{"address": "0x…", "batches_file": "batches.jsonl",
     "logs": [{"id": "0x…", "window": "10m", "may_idle": false,
       "checkpoint": "a/checkpoint", "checkpoint_key": "op.key.vkey",
       "witnesses": [], "min_witnesses": 0, "origin_prefix": "afr.log",
       "replica": "s3://audit/agents/a", "replica_stall": "15m"}]}]}

Paths are relative to the config file. "replica" is the log's off-host
copy: a directory holding a copy of the log's files, or a replica in
object storage written by afr replicate (s3://BUCKET/PREFIX, reached with
the endpoint and keys of the environment, as afr verify --log s3://… is:
AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
Each poll lists the replica afresh and reads its epoch headers.

The watcher polls every --interval (15s) until interrupted; --once polls
once, prints the alarms that hold and exits 0 when there are none, 7 when
there are. --webhook also POSTs each line to a URL. --listen serves
Prometheus metrics on a loopback address (GET /metrics). With
--witness-key (a note key of afr checkpoint keygen) and --witness-dir, the
watcher cosigns each new checkpoint that verifies, extends what it saw and
cosigned, and contradicts no anchor, and writes it with its leaves to
DIR/<log id>.checkpoint.

Examples:
  afr watch --config watch.json --deployment deployment.json --once
  afr watch --config watch.json --deployment deployment.json --webhook https://alerts.example/afr --listen 127.0.0.1:9464
  afr watch --config watch.json --deployment deployment.json --witness-key watcher.key --witness-dir cosigned --once`})
}

// watchConfig is the config file of afr watch (docs/WATCH.md).
type watchConfig struct {
	ReorgDepth uint64 `json:"reorg_depth"`
	Operators  []struct {
		Address     common.Address `json:"address"`
		BatchesFile string         `json:"batches_file"`
		Logs        []struct {
			ID            format.Digest `json:"id"`
			Window        string        `json:"window"`
			MayIdle       bool          `json:"may_idle"`
			Checkpoint    string        `json:"checkpoint"`
			CheckpointKey string        `json:"checkpoint_key"`
			Witnesses     []string      `json:"witnesses"`
			MinWitnesses  int           `json:"min_witnesses"`
			OriginPrefix  string        `json:"origin_prefix"`
			Replica       string        `json:"replica"`
			ReplicaStall  string        `json:"replica_stall"`
		} `json:"logs"`
	} `json:"operators"`
}

// readWatchConfig reads the config file into a watch.Config (without the
// contract, which the chain flags give).
func readWatchConfig(path string) (watch.Config, error) {
	var cfg watch.Config
	b, err := readlimit.ReadFile(path, 1<<20)
	if err != nil {
		return cfg, err
	}
	var f watchConfig
	if err := strictjson.UnmarshalKnown(b, &f); err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(path), p)
	}
	duration := func(what, s string) (time.Duration, error) {
		if s == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("%s: %s %q: want a duration such as 10m or 1h30m", path, what, s)
		}
		return d, nil
	}
	cfg.ReorgDepth = f.ReorgDepth
	if len(f.Operators) == 0 {
		return cfg, fmt.Errorf("%s: no operators to watch", path)
	}
	for i, o := range f.Operators {
		if o.Address == (common.Address{}) {
			return cfg, fmt.Errorf("%s: operator %d has no address", path, i)
		}
		op := watch.Operator{Address: o.Address, BatchesFile: rel(o.BatchesFile)}
		for _, l := range o.Logs {
			if l.ID.IsZero() {
				return cfg, fmt.Errorf("%s: a log of operator %s has no id (afr status --json shows a log's log_id)", path, o.Address)
			}
			wl := watch.Log{ID: l.ID, MayIdle: l.MayIdle, Checkpoint: rel(l.Checkpoint)}
			if wl.Window, err = duration("window", l.Window); err != nil {
				return cfg, err
			}
			if wl.ReplicaStall, err = duration("replica_stall", l.ReplicaStall); err != nil {
				return cfg, err
			}
			switch {
			case replica.IsURL(l.Replica):
				s, err := replica.Dial(l.Replica, replica.Config{})
				if err != nil {
					return cfg, fmt.Errorf("%s: log %s: %w", path, l.ID, err)
				}
				wl.Replica = watch.Bucket(s)
			case l.Replica != "":
				wl.Replica = watch.Dir(rel(l.Replica))
			}
			if l.Checkpoint != "" {
				if wl.Policy, err = watchPolicy(path, l.CheckpointKey, l.Witnesses, l.MinWitnesses, l.OriginPrefix); err != nil {
					return cfg, fmt.Errorf("%s: log %s: %w", path, l.ID, err)
				}
			} else if l.CheckpointKey != "" || len(l.Witnesses) > 0 {
				return cfg, fmt.Errorf("%s: log %s: checkpoint_key and witnesses need a checkpoint", path, l.ID)
			}
			op.Logs = append(op.Logs, wl)
		}
		cfg.Operators = append(cfg.Operators, op)
	}
	return cfg, nil
}

// watchPolicy is the checkpoint policy of a log of the config file: keys
// inline or in files (relative to the config file).
func watchPolicy(path, opKey string, witnesses []string, min int, prefix string) (*checkpoint.Policy, error) {
	if opKey == "" {
		return nil, errors.New("a checkpoint needs checkpoint_key, the operator's verifier key")
	}
	key := func(k string) (string, error) {
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), k)); err == nil && !filepath.IsAbs(k) {
			k = filepath.Join(filepath.Dir(path), k)
		}
		return checkpoint.ReadVKey(k)
	}
	op, err := key(opKey)
	if err != nil {
		return nil, err
	}
	var ws []string
	for _, w := range witnesses {
		k, err := key(w)
		if err != nil {
			return nil, err
		}
		ws = append(ws, k)
	}
	p, err := checkpoint.NewPolicy(op, ws, min)
	if err != nil {
		return nil, err
	}
	p.OriginPrefix = prefix
	return p, nil
}

func runWatch(e *env, args []string) error {
	fs := commands["watch"].flags(e)
	config := fs.String("config", "", "the watcher's config file: operators, logs and their windows (required)")
	cf := addChainFlags(fs)
	interval := fs.Duration("interval", 15*time.Second, "how often to poll")
	once := fs.Bool("once", false, "poll once, print the alarms that hold, exit 7 if any")
	webhook := fs.String("webhook", "", "also POST each JSON line to this URL")
	listen := fs.String("listen", "", "serve Prometheus metrics on this loopback address (GET /metrics)")
	addrFile := fs.String("addr-file", "", "with --listen, write the address listened on to this file")
	witnessKey := fs.String("witness-key", "", "cosign checkpoints with this note key (afr checkpoint keygen)")
	witnessDir := fs.String("witness-dir", "", "with --witness-key, where cosigned checkpoints are written and remembered")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *config == "":
		return usageError{"--config is required"}
	case (*witnessKey == "") != (*witnessDir == ""):
		return usageError{"--witness-key and --witness-dir go together"}
	case *interval <= 0:
		return usageError{"--interval must be positive"}
	case *addrFile != "" && *listen == "":
		return usageError{"--addr-file needs --listen"}
	case *listen != "" && !loopback.IsLoopback(*listen):
		return usageError{"--listen: metrics are served on a loopback address only (127.0.0.1:PORT)"}
	case *once && *listen != "":
		return usageError{"--listen serves while the watcher runs: not with --once"}
	}
	cfg, err := readWatchConfig(*config)
	if err != nil {
		return err
	}
	t, dep, err := cf.deployment()
	if err != nil {
		return err
	}
	cfg.Contract, cfg.FromBlock = dep.EpochAnchor, dep.Block
	var opts watch.Options
	if *witnessKey != "" {
		s, err := checkpoint.ReadCosigner(*witnessKey)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(*witnessDir, 0o755); err != nil {
			return err
		}
		opts.Witness = &watch.Witness{Signer: s, Dir: *witnessDir}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, err := cf.dial(ctx, t)
	if err != nil {
		return err
	}
	defer b.Close()
	w, err := watch.New(b.Client(), cfg, opts)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(e.stdout)
	hook := watch.Webhook{URL: *webhook, Client: &http.Client{Timeout: 10 * time.Second}}
	emit := func(ev watch.Event) {
		enc.Encode(ev)
		if *webhook != "" {
			if err := hook.Send(ctx, ev); err != nil {
				fmt.Fprintf(e.stderr, "afr watch: %v\n", err)
			}
		}
	}
	if *once {
		evs, err := w.Poll(ctx)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			emit(ev)
		}
		if n := len(w.Active()); n > 0 {
			return codeError{exitAlarms, fmt.Errorf("%d alarms hold", n)}
		}
		return nil
	}
	if *listen != "" {
		srv, err := serveMetrics(*listen, *addrFile, w)
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	return w.Run(ctx, *interval, emit)
}

// serveMetrics serves the watcher's metrics at /metrics on addr (a
// loopback address), refusing requests a web page could have sent.
func serveMetrics(addr, addrFile string, w *watch.Watcher) (*http.Server, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(w.Collector()); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if addrFile != "" {
		if err := os.WriteFile(addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			ln.Close()
			return nil, err
		}
	}
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if err := loopback.Check(r); err != nil {
			http.Error(rw, err.Error(), http.StatusForbidden)
			return
		}
		metrics.ServeHTTP(rw, r)
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return srv, nil
}
