package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentflightrecorder/afr/report"
	"github.com/agentflightrecorder/afr/verifier"
)

func init() {
	register(&command{name: "report", summary: "write a self-contained HTML forensic report of a log or a bundle", run: runReport, usage: `
Usage: afr report (--log DIR | --bundle FILE) [anchors] [--keys DIR] [--causal SEQ] [-o FILE]

Verifies the log or bundle as "afr verify" does, against the anchors given
by the same flags (--anchors FILE, or a chain: --deployment, or --chain
or --rpc with --contract, and --operator), and writes what it found as one HTML page (default
report.html) that works offline in any browser: it loads nothing, and
every string an agent recorded is shown as text.

The page shows the verdict with every finding; each epoch with its anchor
status (anchored, unanchored, mismatch, unsealed); a timeline of the events
by time, filterable by kind, agent and text, or grouped by agent (the
concurrency group, else the recorder); each event expands to its payload,
when it could be opened, and its inclusion proof (record digest, leaf,
audit path, Merkle root and epoch root). --causal SEQ also draws the causal
graph of event SEQ: its context-provenance and delegation parents back to
the origins.

A log's payloads are opened with its keys (--keys, default <log>/keys when
present), and then checked at payload level open; without keys they are
checked by digest and not shown. A bundle shows the payloads its disclosed
keys open.

The path of the page is printed on standard output. The exit code is the
verdict's, as for afr verify: 0 verified, 3 tampered, 4 incomplete — the
page is written in every case; 1 means nothing could be verified (and no
page is written).

Examples:
  afr report --log ./afr-log --deployment deployment.json --operator 0x… --causal 812 -o incident.html
  afr report --log ./afr-log --anchors anchors.json --keys ./afr-log/keys
  afr report --bundle event-42.afrb --anchors anchors.json -o event-42.html`})
}

func runReport(e *env, args []string) error {
	fs := commands["report"].flags(e)
	logDir := fs.String("log", "", "log directory to report on")
	bundleFile := fs.String("bundle", "", "disclosure bundle to report on")
	keyDir := fs.String("keys", "", "key directory, or its copy s3://BUCKET/PREFIX made by afr replicate --keys-to (default <log>/keys if present)")
	causal := fs.String("causal", "", "draw the causal graph of this event")
	title := fs.String("title", "", "title of the page (default: names the log or bundle)")
	out := fs.String("o", "report.html", "HTML file to write")
	af := addAnchorFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*logDir == "") == (*bundleFile == "") {
		return usageError{"give exactly one of --log and --bundle"}
	}
	if *bundleFile != "" && *keyDir != "" {
		return usageError{"--keys is for a log: a bundle carries its own keys"}
	}
	var seq *uint64
	if *causal != "" {
		s, err := strconv.ParseUint(*causal, 10, 64)
		if err != nil {
			return usageError{"--causal: not a sequence number: " + *causal}
		}
		seq = &s
	}
	ctx := context.Background()
	anchors, execs, closeChain, err := af.sources(ctx, *logDir, *bundleFile)
	if err != nil {
		return err
	}
	defer closeChain()
	level := verifier.PayloadsDigest
	if *logDir != "" && (*keyDir != "" || exists(filepath.Join(*logDir, "keys", "master.key"))) {
		level = verifier.PayloadsOpen
	}
	v, done, err := verifyTarget(ctx, e, "report", *logDir, *bundleFile, *keyDir, level, 0, anchors, execs)
	if err != nil {
		return err
	}
	defer done()
	in := report.Input{Title: *title, Report: v.rep, Bundle: v.bundle, Causal: seq, Anchors: af.describe(), Generated: time.Now()}
	if in.Title == "" {
		in.Title = "AFR report: " + *logDir + *bundleFile
	}
	if v.log != nil {
		if in.Index, err = verifier.IndexLog(v.log, v.keys); err != nil {
			return verdictExit(v.rep.Verdict, fmt.Errorf("cannot read the events of this log: %w", err))
		}
	}
	var page bytes.Buffer
	if err := report.Write(&page, in); err != nil {
		return err
	}
	if err := os.WriteFile(*out, page.Bytes(), 0o600); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, *out)
	fmt.Fprintf(e.stderr, "afr report: %s, %d findings; %d bytes written\n", v.rep.Verdict, uint64(len(v.rep.Findings))+v.rep.Dropped, page.Len())
	return verdictExit(v.rep.Verdict, nil)
}
