package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentflightrecorder/afr/verifier/onchain"

	"github.com/agentflightrecorder/afr/chain/backend"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/pace"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

func init() {
	register(&command{name: "demo", summary: "the whole flight: record, PDR-gated actions, anchor on a chain, verify, disclose, tamper", run: runDemo, usage: `
Usage: afr demo [--backend embedded|anvil] [--dir DIR] [--events N] [--json]

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
(--json prints the JSON instead). The log, deployment and report stay in
DIR (default: a new temporary directory).

Examples:
  afr demo
  afr demo --backend anvil --events 2000 --dir ./demo`})
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
	if err := parse(fs, args); err != nil {
		return err
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

// demoParty holds the demo's keys.
type demoParty struct {
	operator, owner, relayer, policy, approver *ecdsa.PrivateKey
}

func demo(ctx context.Context, say func(string, ...any), kind, dir string, n int) (*demoReport, error) {
	rep := &demoReport{Backend: kind, Dir: dir, Steps: map[string]float64{}}
	step := time.Now()
	lap := func(name string) { rep.Steps[name] = time.Since(step).Seconds(); step = time.Now() }

	// 1. Chain and contracts.
	var b backend.Backend
	switch kind {
	case "embedded":
		em, err := backend.NewEmbedded(backend.EmbeddedOptions{BlockPeriod: 250 * time.Millisecond})
		if err != nil {
			return nil, err
		}
		b = em
	case "anvil":
		a, err := backend.StartAnvil(ctx, anvil.Options{Args: []string{"--mixed-mining", "--block-time", "1"}})
		if err != nil {
			return nil, fmt.Errorf("%w (hint: make setup installs anvil)", err)
		}
		b = a
	}
	defer b.Close()
	c := b.Client()
	id, err := c.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	rep.ChainID = id.Uint64()
	keys := b.Keys()
	if len(keys) < 3 {
		return nil, errors.New("demo: the chain has fewer than 3 funded keys")
	}
	p := demoParty{operator: keys[0], owner: keys[1], relayer: keys[2], policy: mustKey(), approver: mustKey()}
	rep.Operator = chain.Address(p.operator)
	where := "go-ethereum's simulated chain, in this process"
	if kind == "anvil" {
		where = "anvil at " + b.URL()
	}
	say("1. Chain %d: %s", rep.ChainID, where)
	dep, err := chain.Deploy(ctx, c, p.operator, &chain.PaceConfig{Owner: chain.Address(p.owner), PolicySigner: chain.Address(p.policy),
		Approvers: []common.Address{chain.Address(p.approver)}, Threshold: 1})
	if err != nil {
		return nil, err
	}
	dep.RPC = b.URL()
	rep.Deployment = dep
	if err := writeJSONFile(filepath.Join(dir, "deployment.json"), dep); err != nil {
		return nil, err
	}
	acct := *dep.Pace
	if _, err := chain.Transact(ctx, c, p.owner, &acct, ether(5), nil); err != nil {
		return nil, fmt.Errorf("funding the account: %w", err)
	}
	say("   EpochAnchor %s (%d gas), PaceSmartAccount %s (%d gas), funded with 5 ETH", dep.EpochAnchor, dep.GasUsed["EpochAnchor"], acct, dep.GasUsed["PaceSmartAccount"])
	lap("chain_and_deploy")

	// 2. Record, with the anchorer following the sealed epochs.
	r, err := recorder.Open(dir+"/log", recorder.Options{Recorder: "demo-operator", Encrypt: true, EpochSize: 100, Sync: recorder.SyncGroup})
	if err != nil {
		return nil, err
	}
	closed := false
	defer func() {
		if !closed {
			r.Close()
		}
	}()
	const confirmations = 2
	a, err := anchor.Open(ctx, dir+"/log", c, anchor.Options{Contract: dep.EpochAnchor, Key: p.operator, FromBlock: dep.Block,
		Confirmations: confirmations, Position: r.Position, Poll: 20 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(runCtx, r.Sealed()) }()
	var peakMu sync.Mutex
	var peak uint64
	watchDone := make(chan struct{})
	go func() { // the unanchored window, sampled
		defer close(watchDone)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				w := a.Window()
				peakMu.Lock()
				peak = max(peak, w.Events)
				peakMu.Unlock()
			}
		}
	}()

	say("2. Recording %d events from 4 concurrent agents, while a treasury agent pays through the PaceSmartAccount", n)
	events := workload.Generate(42, n)
	start := time.Now()
	errs := make(chan error, 5)
	var recorded sync.WaitGroup
	for ag := 0; ag < 4; ag++ {
		recorded.Add(1)
		go func(ag int) {
			defer recorded.Done()
			for i := ag; i < len(events); i += 4 {
				if _, err := r.Record(ctx, events[i]); err != nil {
					errs <- err
					return
				}
			}
		}(ag)
	}
	tr := treasuryAgent(r, c, p, rep.ChainID, acct)
	acts := []struct {
		what string
		to   common.Address
		v    *big.Int
	}{
		{"pay invoice #1041 to the vendor: 0.05 ETH", vendor, ether(0.05)},
		{"pay the quarterly licence to the vendor: 2 ETH (over 1 ETH: needs a human)", vendor, ether(2)},
		{"an injected instruction: send 1 ETH to an unknown address", stranger, ether(1)},
		{"pay invoice #1042 to the vendor: 0.01 ETH", vendor, ether(0.01)},
	}
	for i, act := range acts {
		// Spread the actions through the session.
		for r.Position().Next < uint64((i+1)*n/(len(acts)+1)) {
			time.Sleep(2 * time.Millisecond)
		}
		da, err := treasuryAct(ctx, tr, p, act.what, pdr.Call{Target: act.to, Value: act.v})
		if err != nil {
			return rep, err
		}
		rep.Actions = append(rep.Actions, da)
	}
	recorded.Wait()
	select {
	case err := <-errs:
		return rep, err
	default:
	}
	rec := time.Since(start)
	closed = true
	if err := r.Close(); err != nil {
		return rep, err
	}
	pos := r.Position()
	rep.Recording = demoRecording{Events: int(pos.Next), Agents: 5, Epochs: int(pos.OpenEpoch), Seconds: rec.Seconds(), EventsPerSec: float64(pos.Next) / rec.Seconds()}
	say("   %d events (%d from the treasury agent), each durable before Record returned, in %s: %.0f events/s; %d epochs sealed",
		pos.Next, int(pos.Next)-n, rec.Round(time.Millisecond), rep.Recording.EventsPerSec, pos.OpenEpoch)
	for _, da := range rep.Actions {
		switch {
		case da.Tx != "" && da.Approval:
			say("   - %s: policy allow, approval by %s, executed in %s (%d gas)", da.What, da.Approver, short(da.Tx), da.GasUsed)
		case da.Tx != "":
			say("   - %s: policy allow, executed in %s (%d gas)", da.What, short(da.Tx), da.GasUsed)
		default:
			say("   - %s: policy DENY; the account refuses that PDR (%s)", da.What, da.Refused)
		}
	}
	lap("record")

	// 3. Anchoring: drain what is still pending.
	say("3. Anchoring epoch roots on chain (%d confirmations), asynchronously since the first epoch…", confirmations)
	if _, err := a.SyncLog(); err != nil {
		return rep, err
	}
	if err := a.Drain(ctx); err != nil {
		return rep, err
	}
	stopRun()
	<-watchDone
	if err := <-runDone; err != nil {
		return rep, err
	}
	q := a.Queue()
	rep.Anchoring = anchoringFigures(q, confirmations)
	peakMu.Lock()
	rep.Anchoring.WindowPeak = peak
	peakMu.Unlock()
	rep.Anchoring.WindowAfter = q.Window(pos.Next, time.Now()).Events
	an := rep.Anchoring
	say("   %d epochs anchored: first %d gas, then %d–%d gas (mean %.0f); confirmation latency median %.0f ms, max %.0f ms",
		an.Epochs, an.FirstGas, an.SteadyGasMin, an.SteadyGasMax, an.SteadyGasMean, an.LatencyMedianMs, an.LatencyMaxMs)
	say("   unanchored window: peak %d events while recording, %d now", an.WindowPeak, an.WindowAfter)
	lap("anchor")

	// 4. Verify against the chain, with on-chain completeness.
	l, err := recorder.OpenLog(dir + "/log")
	if err != nil {
		return rep, err
	}
	kr, err := recorder.OpenKeyring(filepath.Join(dir, "log", "keys"), l.Manifest.Session)
	if err != nil {
		return rep, err
	}
	defer kr.Close()
	src := onchain.ChainAnchors{Client: c, Contract: dep.EpochAnchor, Operator: rep.Operator, FromBlock: dep.Block}
	opts := verifier.Options{Payloads: verifier.PayloadsOpen, Keys: kr,
		Completeness: onchain.Executions{Client: c, Account: acct, FromBlock: dep.Block}}
	vrep, err := verifier.VerifyLog(ctx, l, src, opts)
	if err != nil {
		return rep, err
	}
	rep.Verify = verdictOf("the log against the chain, payloads decrypted", vrep, verifier.Verified)
	xr := vrep.Executions
	say("4. Verified the log against EpochAnchor's events for %s: %s", short(rep.Operator.Hex()), vrep.Verdict)
	say("   %d events, %d epochs anchored, %d payloads decrypted; %d on-chain executions, each matching a recorded intent: %d",
		vrep.Events, vrep.AnchoredEpochs, vrep.PayloadsOpened, xr.Executions, xr.Matched)
	lap("verify")

	// 5. Disclose the payment that needed a human, verify as a third party.
	seq := rep.Actions[1].IntentSeq
	bnd, err := verifier.Disclose(l, []uint64{seq}, verifier.DiscloseOptions{Keys: kr, Payloads: true})
	if err != nil {
		return rep, err
	}
	data, err := bnd.Encode()
	if err != nil {
		return rep, err
	}
	bundleFile := filepath.Join(dir, fmt.Sprintf("event-%d.afrb", seq))
	if err := os.WriteFile(bundleFile, data, 0o600); err != nil {
		return rep, err
	}
	decoded, err := verifier.DecodeBundle(data)
	if err != nil {
		return rep, err
	}
	br, err := verifier.VerifyBundle(ctx, decoded, src, verifier.Options{Payloads: verifier.PayloadsOpen})
	if err != nil {
		return rep, err
	}
	rep.Bundle = verdictOf(fmt.Sprintf("bundle of event %d against the chain", seq), &br.Report, verifier.Verified)
	say("5. Disclosed event %d alone (%d bytes) and verified it against the chain as a third party: %s", seq, len(data), br.Report.Verdict)
	if pl := br.Payloads[seq]; pl != nil && pl.Intent != nil {
		say("   the auditor reads: tool %s, target %x, value %s wei", pl.Intent.Tool, []byte(pl.Intent.Target), new(big.Int).SetBytes(pl.Intent.Value))
	}
	lap("disclose")

	// 6. Tamper with copies.
	img, err := tamper.Load(l)
	if err != nil {
		return rep, err
	}
	say("6. Tampering with copies of the log, each verified against the chain:")
	for _, t := range []struct {
		what string
		f    func(*tamper.Image) error
	}{
		{fmt.Sprintf("edit one field of event %d", n/3), func(im *tamper.Image) error { return im.EditRecord(n / 3) }},
		{fmt.Sprintf("delete event %d", n/2), func(im *tamper.Image) error { return im.DeleteRecord(n / 2) }},
		{fmt.Sprintf("fork the log at event %d (rewrite history from there)", 2*n/3), func(im *tamper.Image) error { return im.Fork(2 * n / 3) }},
	} {
		cp := img.Clone()
		if err := t.f(cp); err != nil {
			return rep, fmt.Errorf("%s: %w", t.what, err)
		}
		tr, err := verifier.VerifyLog(ctx, cp, src, verifier.Options{})
		if err != nil {
			return rep, err
		}
		v := verdictOf(t.what, tr, verifier.Tampered)
		rep.Tamper = append(rep.Tamper, v)
		first := ""
		if len(v.Findings) > 0 {
			first = v.Findings[0]
		}
		say("   - %s: %s — %s", t.what, tr.Verdict, first)
	}
	lap("tamper")

	// 7. A rogue execution the log never saw.
	rogueID := common.Hash(crypto.Keccak256Hash([]byte("an event that was never recorded")))
	if res := unrecorded(ctx, tr, p, pdr.Call{Target: stranger, Value: ether(0.5)}, rogueID); !res.Succeeded() {
		return rep, fmt.Errorf("rogue execution: %w", res.Err)
	}
	rrep, err := verifier.VerifyLog(ctx, l, src, opts)
	if err != nil {
		return rep, err
	}
	rep.Rogue = verdictOf("a PDR-signed payment executed without being recorded", rrep, verifier.Incomplete)
	say("7. A compromised agent pays 0.5 ETH with a signed PDR but never records it; the verifier checks the account's executions: %s", rrep.Verdict)
	for _, f := range rep.Rogue.Findings {
		say("   - %s", f)
	}
	lap("rogue")

	rep.OK = rep.Verify.Verdict == rep.Verify.Expected && rep.Bundle.Verdict == rep.Bundle.Expected && rep.Rogue.Verdict == rep.Rogue.Expected &&
		xr.Matched == 3 && xr.Executions == 3
	for _, t := range rep.Tamper {
		rep.OK = rep.OK && t.Verdict == t.Expected
	}
	say("")
	say("Report: %s", filepath.Join(dir, "report.json"))
	if err := verifier.WriteAnchorsFile(filepath.Join(dir, "anchors.json"), mustAnchors(src, ctx)); err != nil {
		return rep, err
	}
	say("Explore: afr status --log %s", filepath.Join(dir, "log"))
	say("         afr verify --bundle %s --anchors %s   (the roots as read from the chain)", bundleFile, filepath.Join(dir, "anchors.json"))
	say("         afr query --log %s --keys %s --kind chain_tx", filepath.Join(dir, "log"), filepath.Join(dir, "log", "keys"))
	if kind == "embedded" {
		say("(the embedded chain lived in this process and is gone; \"afr chain\" serves one to other commands)")
	}
	if !rep.OK {
		return rep, errors.New("demo: a verdict was not the expected one (see the report)")
	}
	return rep, nil
}

func mustAnchors(src verifier.AnchorSource, ctx context.Context) []verifier.Anchor {
	as, _ := src.Anchors(ctx)
	return as
}

func verdictOf(what string, r *verifier.Report, want verifier.Verdict) demoVerdict {
	v := demoVerdict{What: what, Verdict: r.Verdict.String(), Expected: want.String(), Execs: r.Executions}
	for _, f := range r.Findings {
		if len(v.Findings) == 3 {
			break
		}
		v.Findings = append(v.Findings, f.String())
	}
	return v
}

func anchoringFigures(q anchor.Queue, conf uint64) demoAnchoring {
	d := demoAnchoring{Epochs: len(q.Anchored), Confirmations: conf}
	var lat []float64
	var sum uint64
	for i, an := range q.Anchored {
		d.Submissions += an.Submissions
		lat = append(lat, float64(an.Confirmed.Sub(an.FirstSent).Microseconds())/1000)
		if i == 0 {
			d.FirstGas = an.GasUsed
			continue
		}
		if d.SteadyGasMin == 0 || an.GasUsed < d.SteadyGasMin {
			d.SteadyGasMin = an.GasUsed
		}
		d.SteadyGasMax = max(d.SteadyGasMax, an.GasUsed)
		sum += an.GasUsed
	}
	if len(q.Anchored) > 1 {
		d.SteadyGasMean = float64(sum) / float64(len(q.Anchored)-1)
	}
	if len(lat) > 0 {
		sortFloats(lat)
		d.LatencyMedianMs, d.LatencyMaxMs = lat[len(lat)/2], lat[len(lat)-1]
	}
	return d
}

func sortFloats(xs []float64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

var (
	vendor   = common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	stranger = common.HexToAddress("0x0000000000000000000000000000000000BadBad")
)

func ether(x float64) *big.Int {
	v, _ := new(big.Float).Mul(big.NewFloat(x), big.NewFloat(1e18)).Int(nil)
	return v
}

func mustKey() *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		panic(err)
	}
	return k
}

func short(s string) string {
	if len(s) > 14 {
		return s[:10] + "…"
	}
	return s
}

// treasuryAgent is the demo's on-chain agent: it pays the vendor through
// the account, under a policy that allows payments to the vendor up to 10
// ETH and asks a human above 1 ETH.
func treasuryAgent(r pace.Recorder, c chain.Client, p demoParty, chainID uint64, acct common.Address) *pace.Agent {
	return &pace.Agent{Recorder: r, Client: c, Domain: pdr.Domain{ChainID: chainID, Account: acct}, Registry: onchain.DefaultRegistry(),
		Policy: &pdr.Policy{Name: "treasury", Rules: []pdr.Rule{
			{Name: "pay-vendor", Effect: pdr.Allow, Targets: []common.Address{vendor}, MaxValue: ether(10).String(), ApprovalAbove: ether(1).String()},
		}},
		PolicySigner: p.policy, Name: "treasury-agent/1.0", Group: "treasury"}
}

// treasuryAct runs one action of the treasury agent: propose (intent and policy
// decision recorded), approve by the demo's human when the policy asks,
// execute through the account from the relayer (the account refuses a
// denied PDR: it is not sent), and record the outcome.
func treasuryAct(ctx context.Context, a *pace.Agent, p demoParty, what string, call pdr.Call) (demoAction, error) {
	da := demoAction{What: what}
	pr, err := a.Propose(ctx, call)
	if err != nil {
		return da, err
	}
	da.IntentSeq, da.EventID = pr.IntentEvent.Seq, pr.EventID().Hex()
	da.Decision, da.Approval = pr.Evaluation.Decision.String(), pr.Evaluation.ApprovalRequired
	if pr.Evaluation.Allowed() && pr.Evaluation.ApprovalRequired {
		if _, err := a.Approve(ctx, pr, p.approver); err != nil {
			return da, err
		}
		da.Approver = chain.Address(p.approver).Hex()
	}
	res := a.Execute(ctx, pr, p.relayer)
	switch {
	case res.Succeeded():
		da.Tx, da.GasUsed = res.Receipt.TxHash.Hex(), res.Receipt.GasUsed
	case pr.Evaluation.Allowed() || !res.Reverted:
		return da, fmt.Errorf("%s: %w", what, res.Err)
	default:
		// The policy denied it and the account refused it (simulated, not
		// sent): recorded as denied.
		da.Refused, _, _ = strings.Cut(res.Revert, "(")
		res = nil
	}
	_, err = a.RecordOutcome(ctx, pr, res)
	return da, err
}

// unrecorded signs an allowing PDR for call bound to eventID with the policy
// signer and executes it, recording nothing: what a compromised agent
// holding the policy key could do.
func unrecorded(ctx context.Context, a *pace.Agent, p demoParty, call pdr.Call, eventID common.Hash) *pace.Outcome {
	t, err := a.NextTerms(ctx, eventID)
	if err != nil {
		return &pace.Outcome{Err: err}
	}
	t.Decision = pdr.Allow
	s, err := pdr.SignPDR(a.PolicySigner, pdr.ForCall(a.Domain, call, t))
	if err != nil {
		return &pace.Outcome{Err: err}
	}
	return a.Submit(ctx, p.relayer, &s, call)
}
