package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/anvil"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/report"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

// demoConfirmations is how many confirmations the demo's anchorer waits for.
const demoConfirmations = 2

// chain (step 1) starts the chain, deploys the contracts and funds the
// account.
func (d *demoRun) chain() error {
	switch d.kind {
	case "embedded":
		em, err := backend.NewEmbedded(backend.EmbeddedOptions{BlockPeriod: 250 * time.Millisecond})
		if err != nil {
			return err
		}
		d.b = em
	case "anvil":
		a, err := backend.StartAnvil(d.ctx, anvil.Options{Args: []string{"--mixed-mining", "--block-time", "1"}})
		if err != nil {
			return fmt.Errorf("%w (hint: make setup installs anvil)", err)
		}
		d.b = a
	}
	d.onClose(func() { d.b.Close() })
	d.c = d.b.Client()
	id, err := d.c.ChainID(d.ctx)
	if err != nil {
		return err
	}
	d.rep.ChainID = id.Uint64()
	keys := d.b.Keys()
	if len(keys) < 3 {
		return errors.New("demo: the chain has fewer than 3 funded keys")
	}
	d.p = demoParty{operator: keys[0], owner: keys[1], relayer: keys[2], policy: mustKey(), approver: mustKey()}
	d.rep.Operator = chain.Address(d.p.operator)
	where := "go-ethereum's simulated chain, in this process"
	if d.kind == "anvil" {
		where = "anvil at " + d.b.URL()
	}
	d.say("1. Chain %d: %s", d.rep.ChainID, where)
	dep, err := chain.Deploy(d.ctx, d.c, d.p.operator, &chain.PaceConfig{Owner: chain.Address(d.p.owner), PolicySigner: chain.Address(d.p.policy),
		Approvers: []common.Address{chain.Address(d.p.approver)}, Threshold: 1})
	if err != nil {
		return err
	}
	dep.RPC = d.b.URL()
	d.dep, d.rep.Deployment = dep, dep
	if err := writeJSONFile(filepath.Join(d.dir, "deployment.json"), dep); err != nil {
		return err
	}
	d.acct = *dep.Pace
	if _, err := chain.Transact(d.ctx, d.c, d.p.owner, &d.acct, ether(5), nil); err != nil {
		return fmt.Errorf("funding the account: %w", err)
	}
	d.say("   EpochAnchor %s (%d gas), PaceSmartAccount %s (%d gas), funded with 5 ETH", dep.EpochAnchor, dep.GasUsed["EpochAnchor"], d.acct, dep.GasUsed["PaceSmartAccount"])
	return nil
}

// openRecorder (start of step 2) opens the recorder and the anchorer, and
// starts the anchorer following the sealed epochs and a sampler of the
// unanchored window.
func (d *demoRun) openRecorder() error {
	r, err := recorder.Open(d.dir+"/log", recorder.Options{Recorder: "demo-operator", Encrypt: true, EpochSize: 100, Sync: recorder.SyncGroup})
	if err != nil {
		return err
	}
	d.r = r
	d.onClose(func() {
		if !d.recClosed {
			r.Close()
		}
	})
	a, err := anchor.Open(d.ctx, d.dir+"/log", d.c, anchor.Options{Contract: d.dep.EpochAnchor, Key: d.p.operator, FromBlock: d.dep.Block,
		Confirmations: demoConfirmations, Position: r.Position, Poll: 20 * time.Millisecond})
	if err != nil {
		return err
	}
	d.a = a
	d.onClose(a.Close)
	runCtx, stopRun := context.WithCancel(d.ctx)
	d.stopRun = stopRun
	d.onClose(stopRun)
	d.runDone = make(chan error, 1)
	go func() { d.runDone <- a.Run(runCtx, r.Sealed()) }()
	d.watchDone = make(chan struct{})
	go func() { // the unanchored window, sampled
		defer close(d.watchDone)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				w := a.Window()
				d.peakMu.Lock()
				d.peak = max(d.peak, w.Events)
				d.peakMu.Unlock()
			}
		}
	}()
	return nil
}

// record (step 2) records the workload from four concurrent agents while the
// treasury agent acts through the account.
func (d *demoRun) record() error {
	r, n := d.r, d.n
	d.say("2. Recording %d events from 4 concurrent agents, while a treasury agent pays through the PaceSmartAccount", n)
	events := workload.Generate(42, n)
	start := time.Now()
	errs := make(chan error, 5)
	var recorded sync.WaitGroup
	for ag := 0; ag < 4; ag++ {
		recorded.Add(1)
		go func(ag int) {
			defer recorded.Done()
			for i := ag; i < len(events); i += 4 {
				if _, err := r.Record(d.ctx, events[i]); err != nil {
					errs <- err
					return
				}
			}
		}(ag)
	}
	d.tr = treasuryAgent(r, d.c, d.p, d.rep.ChainID, d.acct)
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
		da, err := treasuryAct(d.ctx, d.tr, d.p, act.what, pdr.Call{Target: act.to, Value: act.v})
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
	d.recClosed = true
	if err := r.Close(); err != nil {
		return err
	}
	pos := r.Position()
	d.recorded = pos.Next
	d.rep.Recording = demoRecording{Events: int(pos.Next), Agents: 5, Epochs: int(pos.OpenEpoch), Seconds: rec.Seconds(), EventsPerSec: float64(pos.Next) / rec.Seconds()}
	d.say("   %d events (%d from the treasury agent), each durable before Record returned, in %s: %.0f events/s; %d epochs sealed",
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

// anchor (step 3) drains what is still pending and stops the anchorer.
func (d *demoRun) anchor() error {
	a := d.a
	d.say("3. Anchoring epoch roots on chain (%d confirmations), asynchronously since the first epoch…", demoConfirmations)
	if _, err := a.SyncLog(); err != nil {
		return err
	}
	if err := a.Drain(d.ctx); err != nil {
		return err
	}
	d.stopRun()
	<-d.watchDone
	if err := <-d.runDone; err != nil {
		return err
	}
	q := a.Queue()
	d.rep.Anchoring = anchoringFigures(q, demoConfirmations)
	d.peakMu.Lock()
	d.rep.Anchoring.WindowPeak = d.peak
	d.peakMu.Unlock()
	d.rep.Anchoring.WindowAfter = q.Window(d.recorded, time.Now()).Events
	an := d.rep.Anchoring
	d.say("   %d epochs anchored: first %d gas, then %d–%d gas (mean %.0f); confirmation latency median %.0f ms, max %.0f ms",
		an.Epochs, an.FirstGas, an.SteadyGasMin, an.SteadyGasMax, an.SteadyGasMean, an.LatencyMedianMs, an.LatencyMaxMs)
	d.say("   unanchored window: peak %d events while recording, %d now", an.WindowPeak, an.WindowAfter)
	return nil
}

// verify (step 4) verifies the log against the chain, with on-chain
// completeness.
func (d *demoRun) verify() error {
	l, err := recorder.OpenLog(d.dir + "/log")
	if err != nil {
		return err
	}
	d.l = l
	rec, session, err := l.Identity()
	if err != nil {
		return err
	}
	kr, err := recorder.OpenKeyring(filepath.Join(d.dir, "log", "keys"), session)
	if err != nil {
		return err
	}
	d.kr = kr
	d.onClose(func() { kr.Close() })
	d.src = onchain.ChainAnchors{Client: d.c, Contract: d.dep.EpochAnchor, Operator: d.rep.Operator, LogID: format.LogID(rec, session), FromBlock: d.dep.Block}
	d.opts = verifier.Options{Payloads: verifier.PayloadsOpen, Keys: kr,
		Completeness: onchain.Executions{Client: d.c, Account: d.acct, FromBlock: d.dep.Block}}
	vrep, err := verifier.VerifyLog(d.ctx, l, d.src, d.opts)
	if err != nil {
		return err
	}
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
	ix, err := verifier.IndexLog(d.l, d.kr)
	if err != nil {
		return err
	}
	in := report.Input{Title: "AFR demo: the verified log", Report: vrep, Index: ix, Generated: time.Now(),
		Anchors: fmt.Sprintf("EpochAnchor %s on the %s chain, operator %s", d.dep.EpochAnchor.Hex(), d.kind, d.rep.Operator.Hex())}
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
	bnd, err := verifier.Disclose(d.l, []uint64{seq}, verifier.DiscloseOptions{Keys: d.kr, Payloads: true})
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
	br, err := verifier.VerifyBundle(d.ctx, decoded, d.src, verifier.Options{Payloads: verifier.PayloadsOpen})
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
		tr, err := verifier.VerifyLog(d.ctx, cp, d.src, verifier.Options{})
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

// rogue (step 7) executes a payment the log never saw and verifies the log
// again.
func (d *demoRun) rogue() error {
	rogueID := common.Hash(crypto.Keccak256Hash([]byte("an event that was never recorded")))
	if res := unrecorded(d.ctx, d.tr, d.p, pdr.Call{Target: stranger, Value: ether(0.5)}, rogueID); !res.Succeeded() {
		return fmt.Errorf("rogue execution: %w", res.Err)
	}
	rrep, err := verifier.VerifyLog(d.ctx, d.l, d.src, d.opts)
	if err != nil {
		return err
	}
	d.rep.Rogue = verdictOf("a PDR-signed payment executed without being recorded", rrep, verifier.Incomplete)
	d.say("7. A compromised agent pays 0.5 ETH with a signed PDR but never records it; the verifier checks the account's executions: %s", rrep.Verdict)
	for _, f := range d.rep.Rogue.Findings {
		d.say("   - %s", f)
	}
	return nil
}
