package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/readlimit"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/replica"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

func init() {
	register(&command{name: "verify", summary: "verify a log or a disclosure bundle against anchored roots", run: runVerify, usage: `
Usage: afr verify (--log DIR... | --logs DIR | --bundle FILE) [--anchors FILE] [--show] [--workers N] [flags]

Checks every record, the hash chain, each epoch's Merkle root and chain head,
the epoch chain, and every epoch root against the anchored roots, then the
payloads at the chosen level:

  skip    hashes, proofs and anchors only
  digest  also every stored payload against its record (default; no keys)
  open    also decrypt each payload with its event key and check it against
          its commitment (--keys for a log, default <log>/keys; a bundle
          carries its keys)

The verdict is verified (exit 0), tampered (exit 3) or incomplete (exit 4),
with a finding per problem: kind, epoch, event, expected and found. Exit 1
means the verification could not run (an unreadable file, an unreachable
chain), never a verdict: a missing or damaged MANIFEST, a segment of a newer
format version, a segment path that is no regular file (a directory, a
looping or dangling symlink) and keys that cannot be read are findings. The key
directory is only read: its master key is used (with a warning) even if
others can read it, and a missing epoch-salts file means every epoch's key
is erased. Keys are derived for the session the records commit to, never
the MANIFEST's.

A log's epochs are verified on --workers N goroutines in parallel (default
0: one per core): each epoch's records are decoded and hashed, its Merkle
root computed and its payloads checked (and opened) by a worker, while the
hash chain, the epoch chain and the findings are checked in order, so the
report is the same for any N. --workers 1 verifies on one core. The log is
read a window at a time and nothing per event is kept in memory (the
payload commitments of a long log go to a temporary file, under $TMPDIR):
memory grows with the number of epochs, not events. A replica (s3://) is
read whole into memory.

--log may be repeated, and --logs DIR names every log in DIR (each of its
subdirectories holding a MANIFEST): each log is verified against its own
anchors (from the chain or --batches, by its log id; keys from <log>/keys at
--level open), as many logs side by side as there are workers when there
are that many, its report printed under "== DIR" in the order given (with
--json, one JSON object per line, "path" the log's directory), then one
summary line (on standard error with --json). A log that cannot be verified
is reported and the others still are; the exit is 3 if any log is tampered,
else 1 if any could not be verified, else 4 if any is incomplete. --anchors,
--checkpoint, --keys, --replica and --show take one log.

--show prints the payloads a bundle's keys open (with --json, as the field
"payloads"); without it only the report is printed.

Anchors come from the chain — the Anchored events of EpochAnchor for the
operator and this log's id (docs/SPEC.md, "Log id"), checked against the
contract's current head (--deployment FILE --operator ADDR, or
--chain FILE or --rpc URL with --contract ADDR --operator ADDR; the
endpoint must serve the file's chain), together with the log's entries in
the operator's aggregate batches, whose contents come from the chain or
from the operator's batches file (--batches FILE, or the deployment file's
"batches_file"): a batch whose contents are missing makes the verdict at
best incomplete (batch_withheld). Without a chain, --batches FILE alone
takes the file as a trusted copy, like an anchors file: every line is a
batch, its root must be the batch root of its entries, the batches must be
0, 1, … linked by their back-pointers, and this log's entries in them are
its anchors. An operator with no anchors for this log
makes it incomplete, never tampered, and the report lists the addresses
that anchored its log id (leads to check with the log's owner: anyone can
anchor under any log id). Anchors also come from --anchors, a JSON file
{"anchors":[{"epoch":0,"root":"0x…","prev_root":"0x…"},…]}; without anchors
nothing ties the log to an external commitment and the verdict is at best
incomplete. Checkpoints cosigned by witnesses are anchors too, alone or
beside the chain's (--checkpoint, --checkpoint-key, --witness,
--min-witnesses; see afr help checkpoint).

With a PaceSmartAccount (--pace, or from --deployment), a log is also
checked for completeness of on-chain actions: every Executed event of the
account must name a chain_tx event of the log (its event id is the record
digest of the event that recorded the intent) whose intent matches the
executed call (docs/SPEC.md, "On-chain completeness"). Encrypted intents are
compared only with --keys.

A log's replica in object storage (afr replicate) is a log: --log
s3://BUCKET/PREFIX verifies it as it was copied, reached as the
environment says (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, …). --replica
s3://BUCKET/PREFIX with a local --log adds the replica's epoch roots to the
anchors: a log rewritten or cut since it was copied is tampered against
them, even for epochs not yet anchored on chain.

Examples:
  afr verify --log ./afr-log --deployment deployment.json --operator 0x… --keys ./afr-log/keys
  afr verify --log ./afr-log --rpc http://127.0.0.1:8545 --contract 0x… --operator 0x… --pace none
  afr verify --log ./agent-7 --deployment deployment.json --operator 0x… --batches batches.jsonl
  afr verify --log ./afr-log --anchors anchors.json
  afr verify --log ./logs/agent-1 --log ./logs/agent-2 --batches batches.jsonl --json
  afr verify --logs ./logs --batches batches.jsonl
  afr verify --log s3://audit/agents/ops-1 --deployment deployment.json --operator 0x…
  afr verify --log ./afr-log --replica s3://audit/agents/ops-1
  afr verify --log ./afr-log --anchors anchors.json --keys ./afr-log/keys --level open --json
  afr verify --bundle event-42.afrb --anchors anchors.json --level open --show`})

	register(&command{name: "disclose", summary: "export a disclosure bundle for chosen events", run: runDisclose, usage: `
Usage: afr disclose --log DIR --seq LIST -o FILE [--keys DIR] [--no-payloads]

Writes a bundle (docs/SPEC.md, "Disclosure bundle") with the records of the
chosen events, their inclusion proofs and the epoch headers that tie them to
the anchored roots, their stored payloads and — with --keys — their per-event
keys, so a third party can read exactly those payloads and nothing else.
LIST is comma-separated sequence numbers and ranges: 3,7,10-12.

Examples:
  afr disclose --log ./afr-log --seq 42 --keys ./afr-log/keys -o event-42.afrb
  afr disclose --log ./afr-log --seq 0-99 --no-payloads -o epoch0.afrb`})

	register(&command{name: "anchors", summary: "write the anchors an honest operator commits for a log", run: runAnchors, usage: `
Usage: afr anchors --log DIR [-o FILE]

Writes, as an anchors file, the epoch roots of the log as they are now: what
"afr anchor" commits on chain. A verifier must get anchors from a party it
trusts (the chain); this file is for local use and for tests.

Example:
  afr anchors --log ./afr-log -o anchors.json`})
}

func parseLevel(s string) (verifier.PayloadLevel, error) {
	switch s {
	case "skip":
		return verifier.PayloadsSkip, nil
	case "digest":
		return verifier.PayloadsDigest, nil
	case "open":
		return verifier.PayloadsOpen, nil
	}
	return 0, usageError{fmt.Sprintf("--level %q: want skip, digest or open", s)}
}

func runVerify(e *env, args []string) error {
	fs := commands["verify"].flags(e)
	var logs repeated
	fs.Var(&logs, "log", "log directory (or s3://BUCKET/PREFIX) to verify; repeat it to verify many logs in one run")
	logsDir := fs.String("logs", "", "a directory of logs: each of its subdirectories that holds a MANIFEST is verified, as if given with --log")
	bundleFile := fs.String("bundle", "", "disclosure bundle to verify")
	keyDir := fs.String("keys", "", "key directory, or its copy s3://BUCKET/PREFIX made by afr replicate --keys-to, for --level open on a log (default <log>/keys)")
	levelName := fs.String("level", "digest", "payload checks: skip, digest or open")
	show := fs.Bool("show", false, "print the payloads a bundle discloses (text and --json)")
	jsonOut := fs.Bool("json", false, "write the report as JSON")
	workers := fs.Int("workers", 0, "goroutines verifying a log's epochs in parallel (0: one per core)")
	replicaURL := fs.String("replica", "", "the log's replica, s3://BUCKET/PREFIX: its epoch roots are anchors too (--log DIR only)")
	af := addAnchorFlags(fs)
	cf := addCheckpointFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *logsDir != "" {
		found, err := logsIn(*logsDir)
		if err != nil {
			return err
		}
		logs = append(logs, found...)
	}
	if (len(logs) == 0) == (*bundleFile == "") {
		return usageError{"give --log (once or more), --logs DIR or --bundle"}
	}
	many := len(logs) > 1 || *logsDir != ""
	if many {
		switch {
		case *af.file != "":
			return usageError{"--anchors holds one log's anchors: with several --log, take anchors from a chain or --batches"}
		case *keyDir != "":
			return usageError{"--keys names one log's keys: with several --log, each log's keys are read from <log>/keys"}
		case *replicaURL != "", *show:
			return usageError{"--replica and --show take one log"}
		case len(cf.files) > 0:
			return usageError{"--checkpoint names one log's checkpoints: with several --log, take anchors from a chain or --batches"}
		}
	}
	var logDir string
	if len(logs) > 0 {
		logDir = logs[0]
	}
	if *replicaURL != "" && (logDir == "" || replica.IsURL(logDir)) {
		return usageError{"--replica compares a local log with its replica: give --log DIR"}
	}
	level, err := parseLevel(*levelName)
	if err != nil {
		return err
	}
	if *workers < 0 {
		return usageError{fmt.Sprintf("--workers %d: want 0 (one per core) or more", *workers)}
	}
	if many {
		return verifyMany(e, logs, level, *workers, *jsonOut, af, cf)
	}
	ctx := context.Background()
	anchors, execs, closeChain, err := af.sources(ctx, logDir, *bundleFile)
	if err != nil {
		return err
	}
	defer closeChain()
	if anchors, err = cf.anchors(ctx, anchors, logDir, *bundleFile); err != nil {
		return err
	}
	if *replicaURL != "" {
		if anchors, err = replicaAnchors(e, *replicaURL, anchors); err != nil {
			return err
		}
	}
	v, done, err := verifyTarget(ctx, e, "verify", logDir, *bundleFile, *keyDir, level, *workers, anchors, execs)
	if err != nil {
		return err
	}
	defer done()
	rep := v.rep
	var payloads map[uint64]*format.Payload
	if *show {
		payloads = v.payloads
	}
	if *jsonOut {
		if err := writeJSON(e.stdout, struct {
			*verifier.Report
			Log      *format.Digest             `json:"log,omitempty"`
			Payloads map[uint64]*format.Payload `json:"payloads,omitempty"`
		}{rep, af.logID, payloads}); err != nil {
			return err
		}
	} else {
		printReport(e, rep, payloads)
		if af.logID != nil {
			fmt.Fprintf(e.stdout, "  log %s: %s\n", af.logID, af.describe())
		}
		if *replicaURL != "" {
			fmt.Fprintf(e.stdout, "  anchors include the epoch roots of the replica %s\n", *replicaURL)
		}
		if x := rep.Executions; x != nil {
			fmt.Fprintf(e.stdout, "  on-chain executions %d: %d recorded, %d with matching intent, %d not compared (no keys)\n",
				x.Executions, x.Recorded, x.Matched, x.Unchecked)
		}
	}
	return verdictExit(rep.Verdict, nil)
}

// logsIn returns the logs in dir: its subdirectories that hold a
// MANIFEST, by name.
func logsIn(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var logs []string
	for _, ent := range ents {
		p := filepath.Join(dir, ent.Name())
		if fi, err := os.Stat(p); err == nil && fi.IsDir() && exists(filepath.Join(p, "MANIFEST")) {
			logs = append(logs, p)
		}
	}
	if len(logs) == 0 {
		return nil, usageError{fmt.Sprintf("--logs %s: no log in it (a log is a directory holding a MANIFEST)", dir)}
	}
	return logs, nil
}

// verifyMany verifies logs with verifier.VerifyLogs, each with its own
// anchors (from the chain, or the batches file, by its log id), and prints
// each report in the order given — with --json one JSON object per line,
// its "path" the log — then a summary line. It goes on past a log that
// cannot be verified. The exit is the worst outcome: tampered, then an
// error, then incomplete.
func verifyMany(e *env, logs []string, level verifier.PayloadLevel, workers int, jsonOut bool, af *anchorFlags, cf *checkpointFlags) error {
	ctx := context.Background()
	// Each log's anchors, keys and completeness check are set up in turn
	// (they may read a chain), then the logs are verified side by side.
	type target struct {
		id  *format.Digest
		err error // could not be set up
		at  int   // its place in todo
	}
	targets := make([]target, len(logs))
	var todo []verifier.LogToVerify
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for i, dir := range logs {
		lv, closeLog, err := prepareLog(ctx, e, dir, level, af, cf)
		var u usageError
		if errors.As(err, &u) {
			return err
		}
		targets[i] = target{id: af.logID, err: err, at: len(todo)}
		if err == nil {
			todo = append(todo, lv)
			closers = append(closers, closeLog)
		}
	}
	start := time.Now()
	stop := progress(e, fmt.Sprintf("verifying %d logs", len(todo)))
	reports, errs := verifier.VerifyLogs(ctx, todo, verifier.Options{Payloads: level, Workers: workers})
	stop(time.Since(start))
	count := map[verifier.Verdict]int{}
	failed := 0
	for i, dir := range logs {
		t := targets[i]
		var rep *verifier.Report
		err := t.err
		if err == nil {
			rep, err = reports[t.at], errs[t.at]
		}
		if err != nil {
			failed++
		} else {
			count[rep.Verdict]++
		}
		switch {
		case jsonOut:
			line := struct {
				Path string `json:"path"`
				*verifier.Report
				Log   *format.Digest `json:"log,omitempty"`
				Error string         `json:"error,omitempty"`
			}{Path: dir, Report: rep, Log: t.id}
			if err != nil {
				line.Report, line.Error = nil, err.Error()
			}
			b, merr := json.Marshal(line)
			if merr != nil {
				return merr
			}
			fmt.Fprintf(e.stdout, "%s\n", b)
		case err != nil:
			fmt.Fprintf(e.stdout, "== %s\n  cannot be verified: %v\n", dir, err)
		default:
			fmt.Fprintf(e.stdout, "== %s\n", dir)
			printReport(e, rep, nil)
			if t.id != nil {
				fmt.Fprintf(e.stdout, "  log %s: %s\n", t.id, af.describe())
			}
		}
	}
	summary := fmt.Sprintf("%d logs: %d verified, %d tampered, %d incomplete, %d not verified", len(logs),
		count[verifier.Verified], count[verifier.Tampered], count[verifier.Incomplete], failed)
	if jsonOut {
		fmt.Fprintln(e.stderr, summary)
	} else {
		fmt.Fprintln(e.stdout, summary)
	}
	switch {
	case count[verifier.Tampered] > 0:
		return verdictExit(verifier.Tampered, nil)
	case failed > 0:
		return fmt.Errorf("%d of %d logs could not be verified", failed, len(logs))
	case count[verifier.Incomplete] > 0:
		return verdictExit(verifier.Incomplete, nil)
	}
	return nil
}

// prepareLog sets up the verification of the log at dir among many: its
// anchors (af.logID set to its log id when they are read by it), the keys
// in <log>/keys at level open, and the completeness check of a chain.
// done releases what it opened.
func prepareLog(ctx context.Context, e *env, dir string, level verifier.PayloadLevel, af *anchorFlags, cf *checkpointFlags) (lv verifier.LogToVerify, done func(), err error) {
	af.logID = nil
	anchors, execs, closeChain, err := af.sources(ctx, dir, "")
	if err != nil {
		return lv, nil, err
	}
	if anchors, err = cf.anchors(ctx, anchors, dir, ""); err != nil {
		closeChain()
		return lv, nil, err
	}
	l, err := openLog(e, "verify", dir)
	if err != nil {
		closeChain()
		return lv, nil, err
	}
	lv = verifier.LogToVerify{Source: l, Anchors: anchors}
	done = closeChain
	if execs != nil {
		lv.Completeness = *execs
	}
	if level == verifier.PayloadsOpen {
		keys, closeKeys := readKeys(e, "verify", "", l)
		lv.Keys, done = keys, func() { closeKeys(); closeChain() }
	}
	return lv, done, nil
}

// replicaAnchors adds the epoch roots of the replica at url to anchors:
// a log rewritten since it was copied differs from them (anchor_mismatch),
// one cut short lacks epochs they hold (docs/REPLICA.md).
func replicaAnchors(e *env, url string, anchors verifier.AnchorSource) (verifier.AnchorSource, error) {
	l, err := openLog(e, "verify --replica", url)
	if err != nil {
		return nil, err
	}
	roots, err := verifier.AnchorsFromLog(l)
	if err != nil {
		return nil, fmt.Errorf("the replica's epoch headers: %w (hint: afr verify --log %s verifies the replica itself)", err, url)
	}
	if anchors == nil {
		return verifier.AnchorList(roots), nil
	}
	return verifier.AnchorSources{anchors, verifier.AnchorList(roots)}, nil
}

// verification is a log or a bundle verified as afr verify does it.
type verification struct {
	rep      *verifier.Report
	payloads map[uint64]*format.Payload // a bundle's payloads its keys opened
	bundle   *verifier.Bundle           // when a bundle was verified
	log      *recorder.Log              // when a log was verified
	keys     verifier.Keys              // the log's keys, when they were read
}

// verifyTarget verifies the log logDir or the bundle bundleFile (exactly
// one is given) at payload level against anchors, with the completeness
// check execs for a log; the keys (keyDir, default <log>/keys) are read for
// level open, and for the completeness check when keyDir is given. done
// releases the keys.
func verifyTarget(ctx context.Context, e *env, cmd, logDir, bundleFile, keyDir string, level verifier.PayloadLevel, workers int,
	anchors verifier.AnchorSource, execs *onchain.Executions) (v *verification, done func(), err error) {
	done = func() {}
	if bundleFile != "" {
		b, err := readBundle(bundleFile)
		if err != nil {
			return nil, done, err
		}
		br, err := verifier.VerifyBundle(ctx, b, anchors, verifier.Options{Payloads: level})
		if err != nil {
			return nil, done, err
		}
		return &verification{rep: &br.Report, payloads: br.Payloads, bundle: b}, done, nil
	}
	l, err := openLog(e, cmd, logDir)
	if err != nil {
		return nil, done, err
	}
	v = &verification{log: l}
	opts := verifier.Options{Payloads: level, Workers: workers}
	// The completeness check reads encrypted intents with the keys at
	// any payload level.
	if level == verifier.PayloadsOpen || (execs != nil && keyDir != "") {
		v.keys, done = readKeys(e, cmd, keyDir, l)
		opts.Keys = v.keys
	}
	if execs != nil {
		opts.Completeness = *execs
	}
	start := time.Now()
	stop := progress(e, "verifying "+logDir)
	v.rep, err = verifier.VerifyLog(ctx, l, anchors, opts)
	stop(time.Since(start))
	if err != nil {
		done()
		return nil, func() {}, err
	}
	return v, done, nil
}

// verdictExit returns the exit of a verdict, with err to print: err when
// verified, else a codeError with exit 3 (tampered) or 4 (incomplete).
func verdictExit(v verifier.Verdict, err error) error {
	switch v {
	case verifier.Tampered:
		return codeError{code: exitTampered, err: err}
	case verifier.Incomplete:
		return codeError{code: exitIncomplete, err: err}
	}
	return err
}

// anchorFlags say where the anchors come from, and which account to check
// for completeness: the same flags for verify, query and report.
type anchorFlags struct {
	file, operator, pace, batches *string
	from                          *uint64
	chain                         *chainFlags
	// rpc and logID are the endpoint and the log whose anchors were read
	// from a chain (set by sources).
	rpc   string
	logID *format.Digest
}

func addAnchorFlags(fs *flag.FlagSet) *anchorFlags {
	return &anchorFlags{
		file:     fs.String("anchors", "", "anchors file (JSON)"),
		batches:  fs.String("batches", "", "the operator's batches file, for anchors in aggregate batches (default: from --deployment)"),
		chain:    addChainFlags(fs),
		operator: fs.String("operator", "", "operator address whose anchors to read (required with a chain)"),
		pace:     fs.String("pace", "", "PaceSmartAccount to check for completeness (default: from --deployment; \"none\" skips)"),
		from:     fs.Uint64("from-block", 0, "first block to search for events (default: the deployment block)"),
	}
}

// sources returns the anchor source of the log in logDir or the bundle in
// bundleFile (nil when no anchors are given), the completeness check (nil
// without an account) and a function releasing the chain connection.
func (a *anchorFlags) sources(ctx context.Context, logDir, bundleFile string) (verifier.AnchorSource, *onchain.Executions, func(), error) {
	onChain := a.chain.given()
	switch {
	case *a.file != "" && onChain:
		return nil, nil, nil, usageError{"--anchors and a chain (--chain, --rpc, --deployment, --contract) exclude each other"}
	case *a.batches != "" && *a.file != "" && !onChain:
		return nil, nil, nil, usageError{"--batches without a chain and --anchors exclude each other: give the anchors of one trusted copy"}
	case *a.batches != "" && !onChain:
		// The offline form (docs/SPEC.md, "Batches file"): the file is the
		// operator's own copy, as strong as an anchors file.
		id, err := targetLogID(logDir, bundleFile)
		if err != nil {
			return nil, nil, nil, err
		}
		a.logID = &id
		return verifier.BatchAnchors{Batches: verifier.BatchesFile(*a.batches), Log: id}, nil, func() {}, nil
	case *a.file != "":
		return verifier.AnchorsFile(*a.file), nil, func() {}, nil
	case onChain:
		id, err := targetLogID(logDir, bundleFile)
		if err != nil {
			return nil, nil, nil, err
		}
		a.logID = &id
		return a.chainSources(ctx, id)
	}
	return nil, nil, func() {}, nil
}

// chainSources reads the anchors of log logID and the completeness check
// from the chain the flags name (onchain.ForDeployment).
func (a *anchorFlags) chainSources(ctx context.Context, logID format.Digest) (verifier.AnchorSource, *onchain.Executions, func(), error) {
	t, dep, err := a.chain.deployment()
	if err != nil {
		return nil, nil, nil, err
	}
	if *a.operator == "" {
		return nil, nil, nil, usageError{"--operator ADDR is required with a chain (the address that anchors the log)"}
	}
	op, err := parseAddress("--operator", *a.operator)
	if err != nil {
		return nil, nil, nil, err
	}
	if *a.from != 0 {
		dep.Block = *a.from
	}
	switch *a.pace {
	case "":
	case "none":
		dep.Pace = nil
	default:
		acct, err := parseAddress("--pace", *a.pace)
		if err != nil {
			return nil, nil, nil, err
		}
		dep.Pace = &acct
	}
	batches := *a.batches
	if batches == "" {
		batches = dep.BatchesPath(filepath.Dir(*a.chain.depFile))
	}
	b, err := a.chain.dial(ctx, t)
	if err != nil {
		return nil, nil, nil, err
	}
	a.rpc = t.RPC
	d := onchain.ForDeployment(b.Client(), &dep, op, logID, batches)
	return d.Anchors, d.Executions, func() { b.Close() }, nil
}

// targetLogID returns the log id whose anchors a verification of the log
// in logDir or the bundle in bundleFile reads: that of the recorder and
// session the log's evidence (or the bundle) declares.
func targetLogID(logDir, bundleFile string) (format.Digest, error) {
	if bundleFile != "" {
		b, err := readBundle(bundleFile)
		if err != nil {
			return format.Digest{}, err
		}
		return b.LogID(), nil
	}
	l, err := openLog(nil, "", logDir)
	if err != nil {
		return format.Digest{}, err
	}
	id, err := l.LogID()
	if err != nil {
		return format.Digest{}, fmt.Errorf("no log id to read anchors for: %w", err)
	}
	return id, nil
}

// describe says where the anchors come from, for a reader of the result.
func (a *anchorFlags) describe() string {
	switch {
	case *a.file != "":
		return "the anchors file " + *a.file + " (not read from the chain by this report)"
	case *a.batches != "" && !a.chain.given():
		return "this log's entries in the batches file " + *a.batches + ", read as a trusted copy (its batch roots are not checked against the chain by this report)"
	case a.chain.given():
		where := a.rpc
		if *a.chain.depFile != "" {
			where = "the chain of deployment " + *a.chain.depFile
		}
		what := fmt.Sprintf("EpochAnchor's Anchored events of operator %s for this log, per log and in its batches", *a.operator)
		if *a.batches != "" {
			what += " (contents from " + *a.batches + " or the chain)"
		}
		return what + ", read from " + where
	}
	return ""
}

func printReport(e *env, rep *verifier.Report, payloads map[uint64]*format.Payload) {
	fmt.Fprintf(e.stdout, "%s\n", strings.ToUpper(rep.Verdict.String()))
	fmt.Fprintf(e.stdout, "  events %d, epochs %d; anchored: %d epochs, %d events; payloads checked %d, opened %d\n",
		rep.Events, rep.Epochs, rep.AnchoredEpochs, rep.AnchoredEvents, rep.PayloadsChecked, rep.PayloadsOpened)
	for _, f := range rep.Findings {
		fmt.Fprintf(e.stdout, "  - %s\n", findingLine(f))
	}
	if rep.Dropped > 0 {
		fmt.Fprintf(e.stdout, "  … and %d more findings (the verdict counts them)\n", rep.Dropped)
	}
	seqs := make([]uint64, 0, len(payloads))
	for s := range payloads {
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	for _, s := range seqs {
		b, _ := jsonMarshal(payloads[s])
		fmt.Fprintf(e.stdout, "  payload %d: %s\n", s, b)
	}
}

// progress prints a line on stderr for long work and returns a function to
// finish it; it stays silent for work under a second.
func progress(e *env, what string) func(time.Duration) {
	done := make(chan struct{})
	shown := make(chan bool, 1)
	go func() {
		select {
		case <-done:
			shown <- false
		case <-time.After(time.Second):
			fmt.Fprintf(e.stderr, "afr: %s…\n", what)
			shown <- true
		}
	}()
	return func(d time.Duration) {
		close(done)
		if <-shown {
			fmt.Fprintf(e.stderr, "afr: %s: done in %s\n", what, d.Round(time.Millisecond))
		}
	}
}

func openKeys(keyDir, logDir string, session format.SessionID) (*recorder.Keyring, error) {
	if keyDir == "" && replica.IsURL(logDir) {
		return nil, errors.New("a replica holds no keys (hint: give the key directory, or the copy afr replicate --keys-to made of it, with --keys)")
	}
	if keyDir == "" {
		keyDir = filepath.Join(logDir, "keys")
	}
	if replica.IsURL(keyDir) {
		return fetchKeyring(keyDir, session)
	}
	return recorder.OpenKeyring(keyDir, session)
}

// fetchKeyring opens the copy of a key directory that afr replicate
// --keys-to keeps at url: read into a private directory that is gone once
// the keyring has opened its files.
func fetchKeyring(url string, session format.SessionID) (*recorder.Keyring, error) {
	s, err := replica.Dial(url, replica.Config{})
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "afr-keys-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := replica.FetchKeys(context.Background(), s, tmp); err != nil {
		return nil, err
	}
	return recorder.OpenKeyring(tmp, session)
}

// logKeys opens the key directory (default <log>/keys) read-only for the
// session l's records commit to, warning on stderr if the master key is
// accessible to others.
func logKeys(e *env, cmd, keyDir string, l *recorder.Log) (*recorder.Keyring, error) {
	_, session, err := l.Identity()
	if err != nil {
		return nil, fmt.Errorf("no session to derive keys for: %w", err)
	}
	kr, err := openKeys(keyDir, l.Dir, session)
	if err != nil {
		return nil, err
	}
	if err := kr.Exposed(); err != nil {
		fmt.Fprintf(e.stderr, "afr %s: warning: %v\n", cmd, err)
	}
	return kr, nil
}

// readKeys is logKeys for verification: keys that cannot be opened are
// not an error but a warning, and every event's key is then unavailable,
// so the payloads that need one become findings.
func readKeys(e *env, cmd, keyDir string, l *recorder.Log) (verifier.Keys, func()) {
	kr, err := logKeys(e, cmd, keyDir, l)
	if err != nil {
		fmt.Fprintf(e.stderr, "afr %s: warning: %v; payloads that need keys cannot be opened\n", cmd, err)
		return keysUnavailable{err}, func() {}
	}
	return kr, func() { kr.Close() }
}

// keysUnavailable is the Keys of a key directory that could not be opened.
type keysUnavailable struct{ err error }

func (k keysUnavailable) EventKey(int, uint64, uint64) (format.EventKey, error) {
	return format.EventKey{}, fmt.Errorf("key directory unavailable: %w", k.err)
}

// writeDisclosure writes the bundle of events seqs of src to path, in its
// canonical encoding (mode 0600: it may hold payloads and their keys), and
// returns it with its size in bytes.
func writeDisclosure(path string, src verifier.Source, seqs []uint64, opts verifier.DiscloseOptions) (*verifier.Bundle, int, error) {
	b, err := verifier.Disclose(src, seqs, opts)
	if err != nil {
		return nil, 0, err
	}
	data, err := b.Encode()
	if err != nil {
		return nil, 0, err
	}
	return b, len(data), os.WriteFile(path, data, 0o600)
}

func readBundle(path string) (*verifier.Bundle, error) {
	data, err := readlimit.ReadFile(path, verifier.MaxBundleSize)
	if err != nil {
		return nil, err
	}
	return verifier.DecodeBundle(data)
}

// parseSeqList parses "3,7,10-12".
func parseSeqList(s string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seq: %q is not a sequence number", lo)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("--seq: bad range %q", part)
			}
			if b-a > 10_000_000 {
				return nil, fmt.Errorf("--seq: range %q too large", part)
			}
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--seq: no events")
	}
	return out, nil
}

func runDisclose(e *env, args []string) error {
	fs := commands["disclose"].flags(e)
	logDir := fs.String("log", "", "log directory (required)")
	seqList := fs.String("seq", "", "events to disclose: 3,7,10-12 (required)")
	out := fs.String("o", "", "bundle file to write (required)")
	keyDir := fs.String("keys", "", "key directory, or its copy s3://BUCKET/PREFIX (afr replicate --keys-to): include each event's key")
	noPayloads := fs.Bool("no-payloads", false, "leave payloads out (hash-level disclosure)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *logDir == "" || *seqList == "" || *out == "" {
		return usageError{"--log, --seq and -o are required"}
	}
	seqs, err := parseSeqList(*seqList)
	if err != nil {
		return usageError{err.Error()}
	}
	l, err := openLog(e, "disclose", *logDir)
	if err != nil {
		return err
	}
	opts := verifier.DiscloseOptions{Payloads: !*noPayloads}
	if *keyDir != "" {
		if *noPayloads {
			return usageError{"--keys and --no-payloads exclude each other"}
		}
		kr, err := logKeys(e, "disclose", *keyDir, l)
		if err != nil {
			return err
		}
		defer kr.Close()
		opts.Keys = kr
	}
	b, n, err := writeDisclosure(*out, l, seqs, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "afr disclose: %d events, %d epoch headers, %d bytes written to %s\n", len(b.Events), len(b.Headers), n, *out)
	return nil
}

func runAnchors(e *env, args []string) error {
	fs := commands["anchors"].flags(e)
	logDir := fs.String("log", "", "log directory (required)")
	out := fs.String("o", "", "file to write (default: standard output)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *logDir == "" {
		return usageError{"--log is required"}
	}
	l, err := openLog(e, "anchors", *logDir)
	if err != nil {
		return err
	}
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		return err
	}
	if *out == "" {
		b, err := format.MarshalAnchors(anchors)
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(b)
		return err
	}
	return format.WriteAnchorsFile(*out, anchors)
}
