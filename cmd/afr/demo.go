package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

func init() {
	register(&command{name: "demo", summary: "the whole flight: record, PDR-gated actions, anchor on a chain, verify, disclose, tamper", run: runDemo, usage: `
Usage: afr demo [--backend embedded|anvil] [--dir DIR] [--events N] [--json]
       afr demo --fleet N [--backend embedded|anvil] [--dir DIR] [--events N] [--json]

Runs AFR end to end on a chain. It starts the chain (default: go-ethereum's
embedded simulated chain, in this process; --backend anvil starts anvil),
deploys EpochAnchor and a PaceSmartAccount, and records a synthetic agent
session of N events from four concurrent agents (eight tool categories,
seed 42) while a treasury agent makes on-chain payments through the account:
each intent is recorded, decided by a policy that signs a Policy Decision
Record bound to the intent's event id, approved by a human when the policy
asks, executed only with its PDR — one payment is denied by policy and the
account refuses it. Epochs of 100 events are sealed and anchored as they
are sealed (asynchronously, with confirmations). Then it verifies the log
against the chain (anchors and on-chain completeness: every execution of
the account matches a recorded intent), discloses one event and verifies
the bundle as a third party would, tampers with copies of the log (edit,
delete, fork) and shows each detected, and finally lets a rogue agent
execute a payment it never recorded and shows the verifier report it.

It prints a readable report and writes it as JSON to DIR/report.json
(--json prints the JSON instead), and writes DIR/report.html: the verified
log as "afr report" shows it, with the causal graph of the last on-chain
payment, and DIR/verify.html (afr verify-page) to check the disclosed
bundle with DIR/anchors.json in a browser. The log, deployment and report
stay in DIR (default: a new temporary directory).

With --fleet N it runs a fleet instead: N agents' logs (1–1000) recorded
concurrently under ONE operator key, each under its own log id, their
sealed epochs anchored in aggregate batches by one anchor.Batcher (one
transaction per batch, contents in DIR/batches.jsonl), every log verified
against the chain; then a C2SP tlog-checkpoint of every log is signed with
the operator's note key and every log verified against it alone; a copy of
one log with an edited record is shown tampered. It prints
"gas per log-epoch: <number>", measured from the batches' receipts after
the operator's first batch, and writes DIR/fleet.json. --events is then
per log (default 200).

Examples:
  afr demo
  afr demo --backend anvil --events 2000 --dir ./demo
  afr demo --fleet 100`})
}

// demoReport is the JSON report of afr demo (DIR/report.json).
type demoReport struct {
	Backend    string             `json:"backend"`
	ChainID    uint64             `json:"chain_id"`
	Dir        string             `json:"dir"`
	Deployment *chain.Deployment  `json:"deployment"`
	Operator   common.Address     `json:"operator"`
	Recording  demoRecording      `json:"recording"`
	Actions    []demoAction       `json:"onchain_actions"`
	Anchoring  demoAnchoring      `json:"anchoring"`
	Verify     demoVerdict        `json:"verify_log"`
	Bundle     demoVerdict        `json:"verify_bundle"`
	Tamper     []demoVerdict      `json:"tamper"`
	Rogue      demoVerdict        `json:"rogue_execution"`
	Steps      map[string]float64 `json:"step_seconds"`
	OK         bool               `json:"ok"`
}

type demoRecording struct {
	Events       int     `json:"events"`
	Agents       int     `json:"agents"`
	Epochs       int     `json:"epochs"`
	Seconds      float64 `json:"seconds"`
	EventsPerSec float64 `json:"events_per_second"`
}

type demoAction struct {
	What       string `json:"what"`
	IntentSeq  uint64 `json:"intent_seq"`
	EventID    string `json:"event_id"`
	Decision   string `json:"decision"`
	Approval   bool   `json:"approval_required"`
	Approver   string `json:"approver,omitempty"`
	Tx         string `json:"tx,omitempty"`
	GasUsed    uint64 `json:"gas_used,omitempty"`
	Refused    string `json:"refused_by_account,omitempty"`
	Executions int    `json:"-"`
}

type demoAnchoring struct {
	Epochs          int     `json:"epochs"`
	Confirmations   uint64  `json:"confirmations"`
	FirstGas        uint64  `json:"first_anchor_gas"`
	SteadyGasMin    uint64  `json:"steady_gas_min"`
	SteadyGasMax    uint64  `json:"steady_gas_max"`
	SteadyGasMean   float64 `json:"steady_gas_mean"`
	LatencyMedianMs float64 `json:"confirmation_latency_median_ms"`
	LatencyMaxMs    float64 `json:"confirmation_latency_max_ms"`
	WindowPeak      uint64  `json:"window_peak_events"`
	WindowAfter     uint64  `json:"window_after_events"`
	Submissions     int     `json:"transactions_sent"`
}

type demoVerdict struct {
	What     string                    `json:"what"`
	Verdict  string                    `json:"verdict"`
	Expected string                    `json:"expected"`
	Findings []string                  `json:"findings,omitempty"`
	Execs    *verifier.ExecutionReport `json:"executions,omitempty"`
}

func runDemo(e *env, args []string) error {
	fs := commands["demo"].flags(e)
	dir := fs.String("dir", "", "directory for the demo (default: a new temporary directory)")
	n := fs.Int("events", 5000, "number of events to record")
	kind := fs.String("backend", "embedded", "chain backend: embedded or anvil")
	jsonOut := fs.Bool("json", false, "print the JSON report instead of the readable one")
	fleet := fs.Int("fleet", 0, "run a fleet of N logs under one operator key, anchored in aggregate batches (see above)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *kind != "embedded" && *kind != "anvil" {
		return usageError{"--backend: want embedded or anvil"}
	}
	if *fleet != 0 {
		events := *n
		if !flagSet(fs, "events") {
			events = 200
		}
		return runFleetDemo(e, *kind, *dir, *fleet, events, *jsonOut)
	}
	if *n < 200 {
		return usageError{"--events must be at least 200"}
	}
	if *kind != "embedded" && *kind != "anvil" {
		return usageError{"--backend: want embedded or anvil"}
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "afr-demo-")
		if err != nil {
			return err
		}
		*dir = d
	}
	logDir := filepath.Join(*dir, "log")
	if _, err := os.Stat(logDir); err == nil {
		return fmt.Errorf("%s already exists (hint: choose another --dir)", logDir)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out := e.stdout
	if *jsonOut {
		out = e.stderr
	}
	say := func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...) }
	rep, err := demo(ctx, say, *kind, *dir, *n)
	if rep != nil {
		if werr := writeJSONFile(filepath.Join(*dir, "report.json"), rep); werr != nil && err == nil {
			err = werr
		}
		if *jsonOut {
			writeJSON(e.stdout, rep)
		}
	}
	return err
}

// demoRun is the state the steps of one demo share; each step is a method
// that fills in the report and prints its lines.
type demoRun struct {
	ctx       context.Context
	say       func(string, ...any)
	kind, dir string
	n         int
	rep       *demoReport
	step      time.Time // start of the current step, for lap

	// The chain, the contracts, the log and its anchorer (step 1).
	w *world.World

	// The unanchored window, sampled while recording (steps 2 and 3).
	stopWatch context.CancelFunc
	watchDone chan struct{}
	peak      atomic.Uint64

	// Verification (steps 4 to 7).
	l          *recorder.Log
	execs      *verifier.ExecutionReport
	bundleFile string
}

// demo runs the whole flight, one step after the other, and returns its report
// (nil if it failed before recording started).
func demo(ctx context.Context, say func(string, ...any), kind, dir string, n int) (rep *demoReport, err error) {
	d := &demoRun{ctx: ctx, say: say, kind: kind, dir: dir, n: n, rep: &demoReport{Backend: kind, Dir: dir, Steps: map[string]float64{}}}
	d.step = time.Now()
	defer func() { err = errors.Join(err, d.close()) }()
	// Until the World runs, a failure leaves no report.
	if err := d.start(); err != nil {
		return nil, err
	}
	d.lap("chain_and_deploy")
	for _, s := range []struct {
		name string
		run  func() error
	}{
		{"record", d.record}, {"anchor", d.anchor}, {"verify", d.verify},
		{"disclose", d.disclose}, {"tamper", d.tamper}, {"rogue", d.rogue},
	} {
		if err := s.run(); err != nil {
			return d.rep, err
		}
		d.lap(s.name)
	}
	return d.rep, d.conclude()
}

// close stops the window sampler, if it still runs, and closes the World.
func (d *demoRun) close() error {
	if d.stopWatch != nil {
		d.stopWatch()
		<-d.watchDone
		d.stopWatch = nil
	}
	if d.w == nil {
		return nil
	}
	return d.w.Close()
}

// conclude computes the outcome, writes the anchors file and prints where to
// look next.
func (d *demoRun) conclude() error {
	rep, dir := d.rep, d.dir
	rep.OK = rep.Verify.Verdict == rep.Verify.Expected && rep.Bundle.Verdict == rep.Bundle.Expected && rep.Rogue.Verdict == rep.Rogue.Expected &&
		d.execs.Matched == 3 && d.execs.Executions == 3
	for _, t := range rep.Tamper {
		rep.OK = rep.OK && t.Verdict == t.Expected
	}
	d.say("")
	d.say("Report: %s", filepath.Join(dir, "report.json"))
	d.say("        %s   (the verified log as a page: open it in a browser)", filepath.Join(dir, "report.html"))
	anchors, err := d.w.Anchors().Anchors(d.ctx)
	if err != nil {
		return err
	}
	if err := format.WriteAnchorsFile(filepath.Join(dir, "anchors.json"), anchors); err != nil {
		return err
	}
	if _, err := writeVerifyPage(filepath.Join(dir, "verify.html")); err != nil {
		return err
	}
	d.say("Browser: open %s, drop %s and %s (the light verifier, offline)", filepath.Join(dir, "verify.html"), d.bundleFile, filepath.Join(dir, "anchors.json"))
	d.say("Explore: afr status --log %s", filepath.Join(dir, "log"))
	d.say("         afr verify --bundle %s --anchors %s   (the roots as read from the chain)", d.bundleFile, filepath.Join(dir, "anchors.json"))
	d.say("         afr query --log %s --keys %s --kind chain_tx", filepath.Join(dir, "log"), filepath.Join(dir, "log", "keys"))
	if d.kind == "embedded" {
		d.say("(the embedded chain lived in this process and is gone; \"afr chain\" serves one to other commands)")
	}
	if !rep.OK {
		return errors.New("demo: a verdict was not the expected one (see the report)")
	}
	return nil
}

// lap records the time since the end of the previous step as step name's.
func (d *demoRun) lap(name string) {
	d.rep.Steps[name] = time.Since(d.step).Seconds()
	d.step = time.Now()
}
