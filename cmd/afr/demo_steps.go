package main

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/report"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
	"github.com/agentflightrecorder/afr/world"
)

// demoConfirmations is how many confirmations the demo's anchorer waits for.
const demoConfirmations = 2

// demoWorld is the World of the demo and of the fleet demo: a chain that
// follows the wall clock, mining a block at least every period besides one
// per transaction, as a deployment's does.
func demoWorld(kind string, cfg world.Config) world.Config {
	cfg.Backend = backend.Kind(kind)
	cfg.BlockTime = 250 * time.Millisecond
	if kind == string(backend.KindAnvil) {
		cfg.BlockTime = time.Second // anvil mines in whole seconds
	}
	return cfg
}

// start (step 1) starts the World: the chain, EpochAnchor and the
// PaceSmartAccount (funded), the log and its anchorer, which anchors every
// epoch as it is sealed, with confirmations; and a sampler of the
// unanchored window.
func (d *demoRun) start() error {
	w, err := world.New(d.ctx, demoWorld(d.kind, world.Config{Dir: d.dir, Recorder: "demo-operator", EpochSize: 100, Durable: true,
		Anchoring: world.AnchorAsSealed, Confirmations: demoConfirmations, Approvers: 1, Threshold: 1, Policy: treasuryPolicy()}))
	if err != nil {
		return demoChainError(d.kind, err)
	}
	d.w = w // closed by demoRun.close, whatever happens next
	dep := w.Deployment()
	d.rep.ChainID, d.rep.Operator, d.rep.Deployment = w.ChainID(), w.Operator().Address, &dep
	where := "go-ethereum's simulated chain, in this process"
	if d.kind == string(backend.KindAnvil) {
		where = "anvil at " + w.URL()
	}
	d.say("1. Chain %d: %s", d.rep.ChainID, where)
	if err := writeJSONFile(filepath.Join(d.dir, "deployment.json"), dep); err != nil {
		return err
	}
	d.say("   EpochAnchor %s (%d gas), PaceSmartAccount %s (%d gas), funded with 5 ETH", dep.EpochAnchor, dep.GasUsed["EpochAnchor"], w.Account(), dep.GasUsed["PaceSmartAccount"])
	watch, stop := context.WithCancel(d.ctx)
	d.stopWatch, d.watchDone = stop, make(chan struct{})
	go func() { // the unanchored window, sampled
		defer close(d.watchDone)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-watch.Done():
				return
			case <-t.C:
				if win := w.AnchorWindow(); win.Events > d.peak.Load() {
					d.peak.Store(win.Events)
				}
			}
		}
	}()
	return nil
}

// demoChainError adds the hint for a chain backend that could not start.
func demoChainError(kind string, err error) error {
	if kind == string(backend.KindAnvil) {
		return fmt.Errorf("%w (hint: make setup installs anvil)", err)
	}
	return err
}

// record (step 2) records the workload from four concurrent agents while the
// treasury agent acts through the account.
func (d *demoRun) record() error {
	w, n := d.w, d.n
	d.say("2. Recording %d events from 4 concurrent agents, while a treasury agent pays through the PaceSmartAccount", n)
	events := workload.Generate(42, n)
	start := time.Now()
	errs := make(chan error, 5)
	var recorded sync.WaitGroup
	defer recorded.Wait() // the agents finish recording, whatever the treasury agent met
	for ag := 0; ag < 4; ag++ {
		recorded.Add(1)
		go func(ag int) {
			defer recorded.Done()
			for i := ag; i < len(events); i += 4 {
				if _, err := w.Record(d.ctx, events[i]); err != nil {
					errs <- err
					return
				}
			}
		}(ag)
	}
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
		for w.Position().Next < uint64((i+1)*n/(len(acts)+1)) {
			time.Sleep(2 * time.Millisecond)
		}
		da, err := treasuryAct(d.ctx, w, act.what, pdr.Call{Target: act.to, Value: act.v})
		if err != nil {
			return err
		}
		d.rep.Actions = append(d.rep.Actions, da)
	}
	recorded.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	rec := time.Since(start)
	pos := w.Position()
	d.rep.Recording = demoRecording{Events: int(pos.Next), Agents: 5, Epochs: int(pos.OpenEpoch), Seconds: rec.Seconds(), EventsPerSec: float64(pos.Next) / rec.Seconds()}
	d.say("   %d events (%d from the treasury agent), each durable before Record returned, in %s: %.0f events/s; %d epochs sealed so far",
		pos.Next, int(pos.Next)-n, rec.Round(time.Millisecond), d.rep.Recording.EventsPerSec, pos.OpenEpoch)
	for _, da := range d.rep.Actions {
		switch {
		case da.Tx != "" && da.Approval:
			d.say("   - %s: policy allow, approval by %s, executed in %s (%d gas)", da.What, da.Approver, short(da.Tx), da.GasUsed)
		case da.Tx != "":
			d.say("   - %s: policy allow, executed in %s (%d gas)", da.What, short(da.Tx), da.GasUsed)
		default:
			d.say("   - %s: policy DENY; the account refuses that PDR (%s)", da.What, da.Refused)
		}
	}
	return nil
}

// anchor (step 3) seals the last epoch and waits until every epoch is
// anchored.
func (d *demoRun) anchor() error {
	d.say("3. Anchoring epoch roots on chain (%d confirmations), asynchronously since the first epoch…", demoConfirmations)
	if _, err := d.w.SealAndAnchor(d.ctx); err != nil {
		return err
	}
	d.stopWatch()
	<-d.watchDone
	d.stopWatch = nil
	d.rep.Recording.Epochs = int(d.w.Position().OpenEpoch) // the last one sealed too
	q := d.w.AnchorQueue()
	d.rep.Anchoring = anchoringFigures(q, demoConfirmations)
	d.rep.Anchoring.WindowPeak = d.peak.Load()
	d.rep.Anchoring.WindowAfter = d.w.AnchorWindow().Events
	an := d.rep.Anchoring
	d.say("   %d epochs anchored: first %d gas, then %d–%d gas (mean %.0f); confirmation latency median %.0f ms, max %.0f ms",
		an.Epochs, an.FirstGas, an.SteadyGasMin, an.SteadyGasMax, an.SteadyGasMean, an.LatencyMedianMs, an.LatencyMaxMs)
	d.say("   unanchored window: peak %d events while recording, %d now", an.WindowPeak, an.WindowAfter)
	return nil
}

// verify (step 4) verifies the log against the chain, with on-chain
// completeness.
func (d *demoRun) verify() error {
	l, err := recorder.OpenLog(d.w.LogDir())
	if err != nil {
		return err
	}
	d.l = l
	v, err := d.w.Verify(d.ctx)
	if err != nil {
		return err
	}
	vrep := v.Report
	d.rep.Verify = verdictOf("the log against the chain, payloads decrypted", vrep, verifier.Verified)
	d.execs = vrep.Executions
	d.say("4. Verified the log against EpochAnchor's events for %s: %s", short(d.rep.Operator.Hex()), vrep.Verdict)
	d.say("   %d events, %d epochs anchored, %d payloads decrypted; %d on-chain executions, each matching a recorded intent: %d",
		vrep.Events, vrep.AnchoredEpochs, vrep.PayloadsOpened, d.execs.Executions, d.execs.Matched)
	return d.writeReport(vrep)
}

// writeReport writes DIR/report.html: the verified log, with the causal
// graph of the last on-chain execution (its intent, policy decision and
// approval).
func (d *demoRun) writeReport(vrep *verifier.Report) error {
	ix, err := d.w.Index()
	if err != nil {
		return err
	}
	in := report.Input{Title: "AFR demo: the verified log", Report: vrep, Index: ix, Generated: time.Now(),
		Anchors: fmt.Sprintf("EpochAnchor %s on the %s chain, operator %s", d.w.EpochAnchor().Hex(), d.kind, d.rep.Operator.Hex())}
	for _, ev := range ix.Find(verifier.Query{Kind: format.KindChainTx}) {
		if p := ev.Payload; p != nil && p.Execution != nil && len(p.Execution.TxHash) > 0 {
			in.Causal = &ev.Seq
		}
	}
	var page bytes.Buffer
	if err := report.Write(&page, in); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d.dir, "report.html"), page.Bytes(), 0o600)
}

// disclose (step 5) discloses the payment that needed a human and verifies
// the bundle as a third party.
func (d *demoRun) disclose() error {
	seq := d.rep.Actions[1].IntentSeq
	bnd, err := verifier.Disclose(d.l, []uint64{seq}, verifier.DiscloseOptions{Keys: d.w.Keys(), Payloads: true})
	if err != nil {
		return err
	}
	data, err := bnd.Encode()
	if err != nil {
		return err
	}
	d.bundleFile = filepath.Join(d.dir, fmt.Sprintf("event-%d.afrb", seq))
	if err := os.WriteFile(d.bundleFile, data, 0o600); err != nil {
		return err
	}
	decoded, err := verifier.DecodeBundle(data)
	if err != nil {
		return err
	}
	br, err := verifier.VerifyBundle(d.ctx, decoded, d.w.Anchors(), verifier.Options{Payloads: verifier.PayloadsOpen})
	if err != nil {
		return err
	}
	d.rep.Bundle = verdictOf(fmt.Sprintf("bundle of event %d against the chain", seq), &br.Report, verifier.Verified)
	d.say("5. Disclosed event %d alone (%d bytes) and verified it against the chain as a third party: %s", seq, len(data), br.Report.Verdict)
	if pl := br.Payloads[seq]; pl != nil && pl.Intent != nil {
		d.say("   the auditor reads: tool %s, target %x, value %s wei", pl.Intent.Tool, []byte(pl.Intent.Target), new(big.Int).SetBytes(pl.Intent.Value))
	}
	return nil
}

// tamper (step 6) tampers with copies of the log and verifies each.
func (d *demoRun) tamper() error {
	n := d.n
	img, err := tamper.Load(d.l)
	if err != nil {
		return err
	}
	d.say("6. Tampering with copies of the log, each verified against the chain:")
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
			return fmt.Errorf("%s: %w", t.what, err)
		}
		tr, err := verifier.VerifyLog(d.ctx, cp, d.w.Anchors(), verifier.Options{})
		if err != nil {
			return err
		}
		v := verdictOf(t.what, tr, verifier.Tampered)
		d.rep.Tamper = append(d.rep.Tamper, v)
		first := ""
		if len(v.Findings) > 0 {
			first = v.Findings[0]
		}
		d.say("   - %s: %s — %s", t.what, tr.Verdict, first)
	}
	return nil
}

// rogue (step 7) executes a payment the log never saw — signed with the
// policy key, as a compromised agent holding it could — and verifies the
// log again.
func (d *demoRun) rogue() error {
	rogueID := crypto.Keccak256Hash([]byte("an event that was never recorded"))
	call := pdr.Call{Target: stranger, Value: ether(0.5)}
	s, err := d.w.SignUnrecorded(d.ctx, call, rogueID)
	if err != nil {
		return fmt.Errorf("rogue execution: %w", err)
	}
	if res := d.w.Submit(d.ctx, d.w.Agent(), &s, call); !res.Succeeded() {
		return fmt.Errorf("rogue execution: %s", res)
	}
	v, err := d.w.Verify(d.ctx)
	if err != nil {
		return err
	}
	d.rep.Rogue = verdictOf("a PDR-signed payment executed without being recorded", v.Report, verifier.Incomplete)
	d.say("7. A compromised agent pays 0.5 ETH with a signed PDR but never records it; the verifier checks the account's executions: %s", v.Report.Verdict)
	for _, f := range d.rep.Rogue.Findings {
		d.say("   - %s", f)
	}
	return nil
}
