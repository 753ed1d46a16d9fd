package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/recorder/workload"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/tamper"
)

func init() {
	register(&command{name: "demo", summary: "record, seal, verify, disclose and tamper with a synthetic agent session", run: runDemo, usage: `
Usage: afr demo [--dir DIR] [--events N]

Runs the recorder end to end on a synthetic agent session (eight tool
categories, concurrent groups, seed 42): records N events durably, seals
epochs of 100, takes their roots as anchors, verifies the log, discloses one
event to a third party and verifies that bundle, answers a forensic query,
and finally tampers with a copy of the log to show the verifier catch it.
The log is left in DIR (default: a new temporary directory) for you to
explore with the other commands.

Example:
  afr demo --events 5000 --dir ./demo-log`})
}

func runDemo(e *env, args []string) error {
	fs := commands["demo"].flags(e)
	dir := fs.String("dir", "", "directory for the demo log (default: a new temporary directory)")
	n := fs.Int("events", 5000, "number of events to record")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 200 {
		return usageError{"--events must be at least 200"}
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
	ctx := context.Background()
	say := func(format string, a ...any) { fmt.Fprintf(e.stdout, format+"\n", a...) }

	say("1. Recording %d events of a synthetic agent session into %s", *n, logDir)
	r, err := recorder.Open(logDir, recorder.Options{Recorder: "demo-operator", Encrypt: true, EpochSize: 100, Sync: recorder.SyncGroup})
	if err != nil {
		return err
	}
	go func() {
		for range r.Sealed() { // an anchorer would commit each root here
		}
	}()
	// Four agents record concurrently; group commit shares their fsyncs.
	events := workload.Generate(42, *n)
	start := time.Now()
	errs := make(chan error, 4)
	for a := 0; a < 4; a++ {
		go func(a int) {
			for i := a; i < len(events); i += 4 {
				if _, err := r.Record(ctx, events[i]); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(a)
	}
	for a := 0; a < 4; a++ {
		if err := <-errs; err != nil {
			r.Close()
			return err
		}
	}
	elapsed := time.Since(start)
	if err := r.Close(); err != nil {
		return err
	}
	say("   %d events from 4 concurrent agents, each durable (group-commit fsync) before it returned, in %s: %.0f events/s", *n, elapsed.Round(time.Millisecond), float64(*n)/elapsed.Seconds())

	l, err := recorder.OpenLog(logDir)
	if err != nil {
		return err
	}
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		return err
	}
	anchorsFile := filepath.Join(*dir, "anchors.json")
	if err := verifier.WriteAnchorsFile(anchorsFile, anchors); err != nil {
		return err
	}
	say("2. Sealed %d epochs; their roots R_t are the anchors (%s)", len(anchors), anchorsFile)
	say("   (the chain issue replaces this file with EpochAnchor on the embedded chain)")

	kr, err := recorder.OpenKeyring(filepath.Join(logDir, "keys"), l.Manifest.Session)
	if err != nil {
		return err
	}
	defer kr.Close()
	start = time.Now()
	rep, err := verifier.VerifyLog(ctx, l, verifier.AnchorList(anchors), verifier.Options{Payloads: verifier.PayloadsOpen, Keys: kr})
	if err != nil {
		return err
	}
	say("3. Verified the whole log with payloads decrypted: %s (%d events, %d anchored, %d payloads opened) in %s",
		rep.Verdict, rep.Events, rep.AnchoredEvents, rep.PayloadsOpened, time.Since(start).Round(time.Millisecond))

	seq := uint64(*n / 2)
	b, err := verifier.Disclose(l, []uint64{seq}, verifier.DiscloseOptions{Keys: kr})
	if err != nil {
		return err
	}
	data, _ := b.Encode()
	bundleFile := filepath.Join(*dir, fmt.Sprintf("event-%d.afrb", seq))
	if err := os.WriteFile(bundleFile, data, 0o600); err != nil {
		return err
	}
	br, err := verifier.VerifyBundle(ctx, b, verifier.AnchorList(anchors), verifier.PayloadsOpen)
	if err != nil {
		return err
	}
	p := br.Payloads[seq]
	what := "(no payload)"
	if p != nil && p.Intent != nil {
		j, _ := jsonMarshal(p.Intent)
		what = string(j)
	}
	say("4. Disclosed event %d alone (%d bytes: record, %d-hash proof, header, payload, its key): %s", seq, len(data), len(b.Events[0].Path), br.Verdict)
	say("   the third party reads: %s", what)

	ix, err := verifier.IndexLog(l, kr)
	if err != nil {
		return err
	}
	approvals := ix.Find(verifier.Query{Kind: recorder.KindApproval})
	dels := ix.Delegations("")
	last := ix.Find(verifier.Query{Tool: "db_query"})
	say("5. Forensic queries: %d approval gates, %d delegations, %d database queries", len(approvals), len(dels), len(last))
	if len(last) > 0 {
		chain, links, _ := ix.CausalChain(last[len(last)-1].Seq)
		say("   causal chain of event %d: %d events, %d links back to its origins", last[len(last)-1].Seq, len(chain), len(links))
	}

	img, err := tamper.Load(l)
	if err != nil {
		return err
	}
	victim := *n / 3
	if err := img.EditRecord(victim); err != nil {
		return err
	}
	trep, err := verifier.VerifyLog(ctx, img, verifier.AnchorList(anchors), verifier.Options{})
	if err != nil {
		return err
	}
	say("6. Edited one field of event %d in a copy: %s", victim, trep.Verdict)
	for i, f := range trep.Findings {
		if i == 2 {
			break
		}
		say("   - %s", f)
	}
	say("")
	say("Explore the log:  afr status --log %s", logDir)
	say("                  afr verify --log %s --anchors %s", logDir, anchorsFile)
	say("                  afr verify --bundle %s --anchors %s --level open", bundleFile, anchorsFile)
	say("                  afr query --log %s --tool db_query --where 'intent.args.sql~DELETE'", logDir)
	if rep.Verdict != verifier.Verified || br.Verdict != verifier.Verified || trep.Verdict != verifier.Tampered {
		return fmt.Errorf("demo: unexpected verdicts (%s, %s, %s)", rep.Verdict, br.Verdict, trep.Verdict)
	}
	return nil
}
