package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	sumdbnote "golang.org/x/mod/sumdb/note"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/checkpoint"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
	"github.com/agentflightrecorder/afr/verifier/tamper"
	"github.com/agentflightrecorder/afr/world"
)

// fleetReport is the JSON report of afr demo --fleet (DIR/fleet.json).
type fleetReport struct {
	Backend    string             `json:"backend"`
	ChainID    uint64             `json:"chain_id"`
	Dir        string             `json:"dir"`
	Deployment *chain.Deployment  `json:"deployment"`
	Operator   string             `json:"operator"`
	Logs       int                `json:"logs"`
	Events     int                `json:"events_per_log"`
	EpochSize  int                `json:"epoch_size"`
	Recording  demoRecording      `json:"recording"`
	Batches    fleetBatches       `json:"batches"`
	Verify     fleetVerdicts      `json:"verify"`
	Tamper     demoVerdict        `json:"tamper"`
	Steps      map[string]float64 `json:"step_seconds"`
	OK         bool               `json:"ok"`
}

type fleetBatches struct {
	File        string  `json:"batches_file"`
	Batches     int     `json:"batches"`
	LogEpochs   int     `json:"log_epochs"`
	TotalGas    uint64  `json:"total_gas"`
	FirstGas    uint64  `json:"first_batch_gas"`
	PerEpoch    float64 `json:"gas_per_log_epoch"` // batches after the operator's first
	PerEpochAll float64 `json:"gas_per_log_epoch_all"`
	MaxEntries  int     `json:"max_entries"`
}

type fleetVerdicts struct {
	Chain         map[string]int `json:"against_chain"`       // verdict → logs
	Checkpoints   map[string]int `json:"against_checkpoints"` // verdict → logs
	CheckpointKey string         `json:"checkpoint_key"`
}

// runFleetDemo is afr demo --fleet N: N agents' logs recorded concurrently
// under one operator key, anchored in aggregate batches, exported as
// checkpoints and verified both ways.
func runFleetDemo(e *env, kind, dir string, logs, events int, jsonOut bool) error {
	switch {
	case logs < 1 || logs > 1000:
		return usageError{fmt.Sprintf("--fleet %d: want 1 to 1000 logs", logs)}
	case events < 20:
		return usageError{"--events must be at least 20 with --fleet"}
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "afr-fleet-")
		if err != nil {
			return err
		}
		dir = d
	}
	if _, err := os.Stat(filepath.Join(dir, "logs")); err == nil {
		return fmt.Errorf("%s already exists (hint: choose another --dir)", filepath.Join(dir, "logs"))
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return err
	}
	out := e.stdout
	if jsonOut {
		out = e.stderr
	}
	say := func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...) }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f := &fleetRun{ctx: ctx, say: say, kind: kind, dir: dir, n: logs, events: events,
		rep: &fleetReport{Backend: kind, Dir: dir, Logs: logs, Events: events, EpochSize: fleetEpochSize, Steps: map[string]float64{}}}
	err := f.run()
	if werr := writeJSONFile(filepath.Join(dir, "fleet.json"), f.rep); werr != nil && err == nil {
		err = werr
	}
	if jsonOut {
		writeJSON(e.stdout, f.rep)
	}
	return err
}

// fleetEpochSize is the epoch size of the fleet's logs: small, so that a
// short demo seals several epochs per log.
const fleetEpochSize = 20

type fleetRun struct {
	ctx       context.Context
	say       func(string, ...any)
	kind, dir string
	n, events int
	rep       *fleetReport

	w    *world.World
	dep  *chain.Deployment
	dirs []string
	file string // the batches file
}

func (f *fleetRun) run() (err error) {
	step := time.Now()
	lap := func(name string) { f.rep.Steps[name] = time.Since(step).Seconds(); step = time.Now() }
	defer func() {
		if f.w != nil {
			err = errors.Join(err, f.w.Close())
		}
	}()
	if err := f.chain(); err != nil {
		return err
	}
	lap("chain_and_deploy")
	if err := f.recordAndAnchor(); err != nil {
		return err
	}
	lap("record_and_anchor")
	if err := f.verifyChain(); err != nil {
		return err
	}
	lap("verify_chain")
	if err := f.checkpoints(); err != nil {
		return err
	}
	lap("checkpoints")
	if err := f.tamper(); err != nil {
		return err
	}
	lap("tamper")
	v := f.rep.Verify
	f.rep.OK = v.Chain["verified"] == f.n && v.Checkpoints["verified"] == f.n && f.rep.Tamper.Verdict == f.rep.Tamper.Expected
	f.say("")
	f.say("gas per log-epoch: %.0f", f.rep.Batches.PerEpoch)
	f.say("Report: %s", filepath.Join(f.dir, "fleet.json"))
	f.say("Explore: afr verify --log %s --checkpoint %s --checkpoint-key %s", f.dirs[0], filepath.Join(f.dirs[0], "checkpoint"), filepath.Join(f.dir, "checkpoint.vkey"))
	f.say("         afr status --log %s", f.dirs[0])
	f.say("(the chain lived as long as this demo; against a chain of your own: afr chain, afr deploy, afr anchor --batches FILE --log … --log …, afr verify --batches FILE)")
	if !f.rep.OK {
		return errors.New("demo: a verdict was not the expected one (see the report)")
	}
	return nil
}

// chain (step 1) starts the World of the fleet: the chain and EpochAnchor;
// its operator anchors every log of the fleet. (The World's own log is not
// used: the fleet's logs are opened by recordAndAnchor.)
func (f *fleetRun) chain() error {
	w, err := world.New(f.ctx, demoWorld(f.kind, world.Config{Approvers: -1}))
	if err != nil {
		return demoChainError(f.kind, err)
	}
	f.w = w
	f.rep.ChainID = w.ChainID()
	f.rep.Operator = w.Operator().Address.Hex()
	where := "go-ethereum's simulated chain, in this process"
	if f.kind == string(backend.KindAnvil) {
		where = "anvil at " + w.URL()
	}
	f.say("1. Chain %d: %s", f.rep.ChainID, where)
	dep := w.Deployment()
	f.file = filepath.Join(f.dir, "batches.jsonl")
	dep.BatchesFile = f.file
	f.dep, f.rep.Deployment = &dep, &dep
	f.say("   EpochAnchor %s; one operator key %s for all %d logs", dep.EpochAnchor, f.rep.Operator, f.n)
	return writeJSONFile(filepath.Join(f.dir, "deployment.json"), dep)
}

// recordAndAnchor records the fleet's logs concurrently while one Batcher
// anchors their sealed epochs in aggregate batches.
func (f *fleetRun) recordAndAnchor() error {
	key := f.w.Operator().Key
	maxEntries := max(f.n, 10)
	bt, err := anchor.OpenBatcher(f.ctx, f.w.Client(), anchor.BatchOptions{Options: anchor.Options{Contract: f.dep.EpochAnchor, Key: key, FromBlock: f.dep.Block, Confirmations: 1},
		BatchesFile: f.file, Publish: anchor.PublishFile, MaxEntries: maxEntries, MaxWait: 500 * time.Millisecond})
	if err != nil {
		return err
	}
	defer bt.Close()
	f.rep.Batches.File, f.rep.Batches.MaxEntries = f.file, maxEntries
	recs := make([]*recorder.Recorder, f.n)
	f.dirs = make([]string, f.n)
	defer func() {
		for _, r := range recs {
			if r != nil {
				r.Close()
			}
		}
	}()
	for i := range recs {
		f.dirs[i] = filepath.Join(f.dir, "logs", fmt.Sprintf("agent-%03d", i))
		if recs[i], err = recorder.Open(f.dirs[i], recorder.Options{Recorder: fmt.Sprintf("agent-%03d", i), Encrypt: true, EpochSize: fleetEpochSize, EpochMaxAge: -1}); err != nil {
			return err
		}
		if _, err := bt.AddLog(anchor.LogSource{Dir: f.dirs[i], Sealed: recs[i].Sealed(), Position: recs[i].Position}); err != nil {
			return err
		}
	}
	runCtx, stop := context.WithCancel(f.ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- bt.Run(runCtx) }()
	f.say("2. Recording %d logs of %d events concurrently (epochs of %d), anchoring as epochs seal", f.n, f.events, fleetEpochSize)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, f.n)
	for i, r := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, ev := range workload.Generate(uint64(100+i), f.events) {
				if _, err := r.Record(f.ctx, ev); err != nil {
					errs[i] = err
					return
				}
			}
			errs[i] = r.Close()
			recs[i] = nil
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	f.rep.Recording = demoRecording{Events: f.n * f.events, Agents: f.n, Seconds: secs, EventsPerSec: float64(f.n*f.events) / secs}
	dctx, cancel := context.WithTimeout(f.ctx, 5*time.Minute)
	err = bt.Drain(dctx)
	cancel()
	stop()
	if rerr := <-done; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("anchoring: %w", err)
	}
	// Gas from the receipts, entries from the batches file.
	q := bt.Queue()
	bs, err := verifier.BatchesFile(f.file).Batches(f.ctx)
	if err != nil {
		return err
	}
	entries := map[format.Digest]int{}
	for _, b := range bs {
		entries[b.Root] = len(b.Entries)
	}
	rb := &f.rep.Batches
	var steadyGas uint64
	var steadyEntries int
	for i, a := range q.Anchored {
		n := entries[a.Root]
		rb.Batches++
		rb.LogEpochs += n
		rb.TotalGas += a.GasUsed
		if i == 0 {
			rb.FirstGas = a.GasUsed
			continue
		}
		steadyGas += a.GasUsed
		steadyEntries += n
	}
	rb.PerEpochAll = float64(rb.TotalGas) / float64(max(rb.LogEpochs, 1))
	rb.PerEpoch = rb.PerEpochAll
	if steadyEntries > 0 {
		rb.PerEpoch = float64(steadyGas) / float64(steadyEntries)
	}
	f.say("   %d events in %.1f s (%.0f events/s); %d log-epochs anchored in %d batches (at most %d entries each)",
		f.rep.Recording.Events, secs, f.rep.Recording.EventsPerSec, rb.LogEpochs, rb.Batches, maxEntries)
	f.say("   gas from the receipts: %d in all, the operator's first batch %d; after it %.0f per log-epoch (one log's own anchor: ~30,850; the paper: 91,800)",
		rb.TotalGas, rb.FirstGas, rb.PerEpoch)
	return nil
}

// verifyChain verifies every log against the chain: its entries in the
// operator's batches, contents from the batches file.
func (f *fleetRun) verifyChain() error {
	f.rep.Verify.Chain = map[string]int{}
	for _, d := range f.dirs {
		rep, err := f.verifyLog(d, nil)
		if err != nil {
			return err
		}
		f.rep.Verify.Chain[rep.Verdict.String()]++
	}
	f.say("3. Every log against the chain (the operator's batches): %s", verdictCounts(f.rep.Verify.Chain))
	return nil
}

func (f *fleetRun) verifyLog(dir string, img *tamper.Image) (*verifier.Report, error) {
	l, err := recorder.OpenLog(dir)
	if err != nil {
		return nil, err
	}
	id, err := l.LogID()
	if err != nil {
		return nil, err
	}
	src := onchain.ForDeployment(f.w.Client(), f.dep, f.w.Operator().Address, id, f.file).Anchors
	if img != nil {
		return verifier.VerifyLog(f.ctx, img, src, verifier.Options{})
	}
	return verifier.VerifyLog(f.ctx, l, src, verifier.Options{})
}

// checkpoints exports a signed checkpoint of every log and verifies every
// log against its checkpoint alone, without the chain.
func (f *fleetRun) checkpoints() error {
	skey, vkey, err := checkpoint.GenerateKey(nil, "afr-demo-operator")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(f.dir, "checkpoint.vkey"), []byte(vkey+"\n"), 0o644); err != nil {
		return err
	}
	f.rep.Verify.CheckpointKey = vkey
	signer, err := sumdbnote.NewSigner(skey)
	if err != nil {
		return err
	}
	policy, err := checkpoint.NewPolicy(vkey, nil, 0)
	if err != nil {
		return err
	}
	f.rep.Verify.Checkpoints = map[string]int{}
	for _, d := range f.dirs {
		l, err := recorder.OpenLog(d)
		if err != nil {
			return err
		}
		id, err := l.LogID()
		if err != nil {
			return err
		}
		leaves, err := checkpoint.Leaves(l)
		if err != nil {
			return err
		}
		origin, err := checkpoint.Origin("", id)
		if err != nil {
			return err
		}
		n, err := checkpoint.Sign(origin, checkpoint.Roots(leaves), signer)
		if err != nil {
			return err
		}
		path := filepath.Join(d, "checkpoint")
		if err := checkpoint.WritePublished(path, n, leaves); err != nil {
			return err
		}
		pub, err := checkpoint.ReadPublished(f.ctx, path)
		if err != nil {
			return err
		}
		rep, err := verifier.VerifyLog(f.ctx, l, checkpoint.Anchors{Checkpoints: []checkpoint.Published{pub}, Policy: policy, LogID: id}, verifier.Options{})
		if err != nil {
			return err
		}
		f.rep.Verify.Checkpoints[rep.Verdict.String()]++
	}
	f.say("4. A C2SP tlog-checkpoint of every log, signed with the operator's note key (no witness runs in this demo: afr checkpoint cosign feeds one)")
	f.say("   every log against its checkpoint alone: %s", verdictCounts(f.rep.Verify.Checkpoints))
	return nil
}

// tamper edits a record of a copy of one log and verifies it against the
// batches: a log of the fleet is checked as a lone log is.
func (f *fleetRun) tamper() error {
	l, err := recorder.OpenLog(f.dirs[len(f.dirs)-1])
	if err != nil {
		return err
	}
	img, err := tamper.Load(l)
	if err != nil {
		return err
	}
	if err := img.EditRecord(len(img.RecordFrames) / 2); err != nil {
		return err
	}
	rep, err := f.verifyLog(f.dirs[len(f.dirs)-1], img)
	if err != nil {
		return err
	}
	f.rep.Tamper = verdictOf("a record edited in the middle of the last agent's log", rep, verifier.Tampered)
	f.say("5. A copy of one log with a record edited, against the batches: %s", rep.Verdict)
	return nil
}

// verdictCounts prints a verdict → count map as "N verified, M tampered".
func verdictCounts(m map[string]int) string {
	s := ""
	for _, v := range []string{"verified", "incomplete", "tampered"} {
		if m[v] == 0 {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%d %s", m[v], v)
	}
	return s
}
