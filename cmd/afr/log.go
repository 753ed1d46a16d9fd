package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/anchor"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/replica"
	"github.com/agentflightrecorder/afr/serve"
)

func init() {
	register(&command{name: "record", summary: "append events (JSON Lines) to a log", run: runRecord, usage: `
Usage: afr record (--log DIR | --serve URL --token-file FILE) [flags] [FILE]

Reads events as JSON Lines from FILE (or standard input) and appends them to
the log in DIR, creating it if needed (--recorder is then required). Each
line is one event in AFR's event JSON (docs/SPEC.md, "Event JSON"):

  {"tool":"shell","kind":"tool_call","payload":{"intent":{"tool":"shell","args":{"cmd":"ls"}}}}

An invalid line stops the command with its line number; every line before it
is recorded and durable. With --json, a receipt per event is written to
standard output: {"seq":…,"clock":…,"epoch":…,"digest":"0x…"}.

A log has one writer at a time: while another afr record or afr seal (or a
program using the recorder) has it open, afr record fails at once and names
that writer (pid, host, since when). Reading commands (status, verify,
query, proof, disclose) need no lock. An event over a limit of
docs/SPEC.md "Limits" (size, nesting, items; the recorder id at most 854
bytes) is refused with the limit it breaks.

When afr serve holds the log, write through it instead: --serve URL
--token-file LOG/serve.token in place of --log (never both: the daemon is
the log's one writer).

Examples:
  afr record --log ./afr-log --recorder ops-1 --encrypt events.jsonl
  my-agent | afr record --log ./afr-log --json > receipts.jsonl`})

	register(&command{name: "seal", summary: "seal the open epoch of a log", run: runSeal, usage: `
Usage: afr seal --log DIR [--json]

Seals the log's open epoch (if it holds any event) and makes it durable, so
its root can be anchored. Opening the log also repairs a torn tail left by a
crash; what was repaired is reported. Other damage at the end of a stream is
refused unless --repair is given: a machine crash can leave it in writes that
were never acknowledged, but it can also be corruption of acknowledged
events, which --repair then cuts — run afr verify on a copy first. Like
afr record, it fails at once while another writer has the log open.

Examples:
  afr seal --log ./afr-log
  cp -r ./afr-log /tmp/copy && afr verify --log /tmp/copy --anchors anchors.json; afr seal --log ./afr-log --repair`})

	register(&command{name: "status", summary: "show a log's events, epochs and unsealed tail", run: runStatus, usage: `
Usage: afr status --log DIR [--json]

Reads the log without changing it and reports its recorder, session, number
of events and epochs, the last epoch root, the events not yet sealed in an
epoch, and — from the anchor queue that afr anchor keeps in the log
directory — the anchoring state and the unanchored window: how many events
are not covered by a confirmed anchor and for how long (since the last
confirmed anchor).

It exits 0 when the whole log was read, and 1 when part of it could not be
(a damaged or torn stream, an undecodable epoch header, an unreadable anchor
queue): what was read is still shown, the problem is written to standard
error (and to "problem" with --json), and afr verify gives the verdict.

Example:
  afr status --log ./afr-log --json`})

	register(&command{name: "proof", summary: "print the inclusion proof of one event", run: runProof, usage: `
Usage: afr proof --log DIR --seq N [--json]

Builds the RFC 6962 inclusion proof of event N: the record, the header of its
epoch and the audit path, and checks it. Anyone holding the proof can verify
it against the anchored root of that epoch (docs/SPEC.md).

Example:
  afr proof --log ./afr-log --seq 42 --json`})
}

func openFlags(fs interface {
	String(string, string, string) *string
}) *string {
	return fs.String("log", "", "log directory (required)")
}

func runRecord(e *env, args []string) error {
	fs := commands["record"].flags(e)
	dir := openFlags(fs)
	wf := writerFlags(fs)
	df := addDaemonFlags(fs)
	jsonOut := fs.Bool("json", false, "write a JSON receipt per event to standard output")
	if err := parse(fs, args); err != nil {
		return err
	}
	var in io.Reader = e.stdin
	name := "standard input"
	switch fs.NArg() {
	case 0:
	case 1:
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, fs.Arg(0)
	default:
		return usageError{"at most one input file"}
	}
	r, err := df.writer(e, wf, *dir)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), format.MaxPayloadSize*3)
	ctx := context.Background()
	var n int
	var first, last recorder.Receipt
	var failure error
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if format.BlankLine(b) {
			continue
		}
		ev, err := format.ParseEventJSON(b)
		if err != nil {
			failure = fmt.Errorf("%s:%d: %w", name, line, err)
			break
		}
		rc, err := r.Record(ctx, ev)
		if err != nil {
			failure = fmt.Errorf("%s:%d: %w", name, line, err)
			break
		}
		if n == 0 {
			first = rc
		}
		last = rc
		n++
		if *jsonOut {
			writeJSONLine(e.stdout, rc)
		}
	}
	if err := sc.Err(); err != nil && failure == nil {
		failure = fmt.Errorf("%s: %w", name, err)
	}
	var we *recorder.WriteError
	if err := r.Close(); err != nil {
		if errors.As(failure, &we) && errors.Is(err, we) {
			return failure // the recorder's failure, which Close reports again
		}
		return errors.Join(failure, err)
	}
	if !*jsonOut {
		if n == 0 {
			fmt.Fprintln(e.stderr, "afr record: no events")
		} else {
			fmt.Fprintf(e.stderr, "afr record: %d events recorded (seq %d..%d), %s\n", n, first.Seq, last.Seq, closedNote(r))
		}
	}
	return failure
}

// recorderFlags are the flags of the commands that write events into a
// log (afr record, afr import).
type recorderFlags struct {
	rec, syncName *string
	encrypt       *bool
	epochSize     *int
}

func writerFlags(fs *flag.FlagSet) recorderFlags {
	return recorderFlags{
		rec:       fs.String("recorder", "", "recorder (operator) id, required when creating the log"),
		encrypt:   fs.Bool("encrypt", false, "encrypt payloads with per-event keys (fixed when the log is created)"),
		syncName:  fs.String("sync", "group", "durability: group, event, write or none (see docs/ARCHITECTURE.md)"),
		epochSize: fs.Int("epoch-size", 100, "seal an epoch after this many events"),
	}
}

// options checks the flags for the log in dir and returns the recorder's
// options (afr serve opens the log itself).
func (f recorderFlags) options(dir string) (recorder.Options, error) {
	if dir == "" {
		return recorder.Options{}, usageError{"--log is required"}
	}
	if *f.rec == "" {
		// Only a log that does not exist yet needs --recorder; one that
		// cannot be looked into is an error saying why.
		switch _, err := os.Stat(filepath.Join(dir, "MANIFEST")); {
		case errors.Is(err, fs.ErrNotExist):
			return recorder.Options{}, usageError{fmt.Sprintf("--recorder (the operator id) is required to create a log (%s has none yet)", dir)}
		case err != nil:
			return recorder.Options{}, fmt.Errorf("opening the log: %w", err)
		}
	}
	policy, err := recorder.ParseSyncPolicy(*f.syncName)
	if err != nil {
		return recorder.Options{}, usageError{"--sync: " + err.Error()}
	}
	return recorder.Options{Recorder: *f.rec, Encrypt: *f.encrypt, Sync: policy, EpochSize: *f.epochSize}, nil
}

// open opens the log in dir for writing (creating it if needed) and
// reports what its recovery repaired.
func (f recorderFlags) open(e *env, dir string) (*recorder.Recorder, error) {
	opts, err := f.options(dir)
	if err != nil {
		return nil, err
	}
	r, err := recorder.Open(dir, opts)
	if err != nil {
		return nil, err
	}
	reportRecovery(e, r.Recovery())
	return r, nil
}

// daemonFlags let a writing command go through a running afr serve, which
// holds the log, instead of opening the log itself: one writer per log,
// whichever path the events take.
type daemonFlags struct {
	url, tokenFile *string
}

func addDaemonFlags(fs *flag.FlagSet) daemonFlags {
	return daemonFlags{
		url:       fs.String("serve", "", "append through the recorder daemon at this URL (afr serve, e.g. http://127.0.0.1:8787) instead of opening --log"),
		tokenFile: fs.String("token-file", "", "the daemon's bearer token file (with --serve; afr serve writes LOG/serve.token)"),
	}
}

// eventLog is where a command writes events: the log itself, or the
// daemon that holds it.
type eventLog interface {
	recorder.EventWriter
	Close() error
}

// writer returns the daemon's client with --serve, else the log in dir
// opened with wf; never both.
func (d daemonFlags) writer(e *env, wf recorderFlags, dir string) (eventLog, error) {
	if *d.url == "" {
		if *d.tokenFile != "" {
			return nil, usageError{"--token-file needs --serve"}
		}
		return wf.open(e, dir)
	}
	if dir != "" {
		return nil, usageError{"--log and --serve exclude each other: the daemon is the log's one writer (give the daemon's URL and token only)"}
	}
	if *d.tokenFile == "" {
		return nil, usageError{"--serve needs --token-file (the daemon's bearer token file, LOG/serve.token)"}
	}
	b, err := os.ReadFile(*d.tokenFile)
	if err != nil {
		return nil, err
	}
	token := strings.TrimSpace(string(b))
	if token == "" || strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, fmt.Errorf("%s does not hold a bearer token (one line, as afr serve writes LOG/serve.token)", *d.tokenFile)
	}
	return serve.NewClient(*d.url, token), nil
}

// closedNote says what closing a writer did to the log.
func closedNote(w eventLog) string {
	if _, ok := w.(*serve.Client); ok {
		return "the daemon keeps the log open"
	}
	return "open epoch sealed on close"
}

func reportRecovery(e *env, rec recorder.Recovery) {
	for _, rp := range rec.Repairs {
		fmt.Fprintf(e.stderr, "afr: recovered after a crash: %s\n", rp)
	}
	if rec.DroppedRecords+rec.DroppedPayloads+rec.DroppedHeaders > 0 {
		fmt.Fprintf(e.stderr, "afr: recovered after a crash: cut %d records, %d payloads, %d epoch headers that were never acknowledged\n",
			rec.DroppedRecords, rec.DroppedPayloads, rec.DroppedHeaders)
	}
}

func runSeal(e *env, args []string) error {
	fs := commands["seal"].flags(e)
	dir := openFlags(fs)
	jsonOut := fs.Bool("json", false, "write the sealed epoch as JSON")
	repair := fs.Bool("repair", false, "cut damage of any kind at the end of the log's streams (after verifying a copy), not only a torn write")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageError{"--log is required"}
	}
	if _, err := recorder.ReadManifest(*dir); err != nil {
		return fmt.Errorf("%w (hint: is %s an AFR log?)", err, *dir)
	}
	r, err := recorder.Open(*dir, recorder.Options{RepairTail: *repair})
	if err != nil {
		return err
	}
	reportRecovery(e, r.Recovery())
	s, ok, err := r.Seal()
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	type out struct {
		Sealed bool                `json:"sealed"`
		Epoch  *format.EpochHeader `json:"epoch,omitempty"`
		Root   *format.Digest      `json:"root,omitempty"`
	}
	if *jsonOut {
		o := out{Sealed: ok}
		if ok {
			o.Epoch, o.Root = &s.Header, &s.Root
		}
		return writeJSON(e.stdout, o)
	}
	if !ok {
		fmt.Fprintln(e.stdout, "nothing to seal: the open epoch is empty")
		return nil
	}
	fmt.Fprintf(e.stdout, "sealed epoch %d: events %d..%d, root %s\n", s.Header.Epoch, s.Header.FirstSeq, s.Header.FirstSeq+s.Header.Count-1, s.Root)
	return nil
}

// logStatus is the JSON of afr status.
type logStatus struct {
	Dir        string           `json:"dir"`
	Recorder   string           `json:"recorder"`
	Session    format.SessionID `json:"session"`
	LogID      format.Digest    `json:"log_id"` // what its anchors are filed under (docs/SPEC.md, "Log id")
	Encrypted  bool             `json:"encrypted"`
	Events     uint64           `json:"events"`
	Epochs     uint64           `json:"epochs"`
	Sealed     uint64           `json:"sealed_events"`
	Unsealed   uint64           `json:"unsealed_events"`
	LastRoot   *format.Digest   `json:"last_root,omitempty"`
	LastRecord *format.Digest   `json:"last_record,omitempty"`
	Anchoring  *anchorStatus    `json:"anchoring,omitempty"`
	// Replica is what the log's replicator last wrote in its status file,
	// with the lag against the log as it is now.
	Replica *replica.Status `json:"replica,omitempty"`
	Problem string          `json:"problem,omitempty"`
}

// anchorStatus is the anchoring part of afr status (from the anchor queue).
type anchorStatus struct {
	ChainID  uint64         `json:"chain_id"`
	Contract common.Address `json:"contract"`
	Operator common.Address `json:"operator"`
	Anchored int            `json:"anchored_epochs"`
	recorder.AnchorWindow
	Age string `json:"age"`
	// OldestAge is AnchorWindow.Oldest, readable: the backlog's age.
	OldestAge string `json:"oldest_unanchored_age"`
}

func runStatus(e *env, args []string) error {
	fs := commands["status"].flags(e)
	dir := openFlags(fs)
	jsonOut := fs.Bool("json", false, "write the status as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageError{"--log is required"}
	}
	l, err := openLog(e, "status", *dir)
	if err != nil {
		return err
	}
	st := logStatus{Dir: *dir, Recorder: l.Manifest.Recorder, Session: l.Manifest.Session, Encrypted: l.Manifest.Encrypted}
	var problems []error
	// The identity the records commit to is the log's; the MANIFEST only
	// names it (docs/SPEC.md, "Log: store layout").
	if rec, session, err := l.Identity(); err == nil {
		if mrec, msession, merr := l.ManifestIdentity(); merr == nil && (mrec != rec || msession != session) {
			problems = append(problems, fmt.Errorf("the MANIFEST names %s/%s, the records %s/%s (hint: afr verify reports it)", mrec, msession, rec, session))
		}
		st.Recorder, st.Session = rec, session
	}
	st.LogID = format.LogID(st.Recorder, st.Session)
	if err := l.Records(func(seq uint64, raw []byte) error {
		st.Events = seq + 1
		d := format.RecordDigest(raw)
		st.LastRecord = &d
		return nil
	}); err != nil {
		problems = append(problems, err)
	}
	if err := l.Epochs(func(t uint64, raw []byte) error {
		h, err := format.DecodeEpochHeader(raw)
		if err != nil {
			return err
		}
		st.Epochs = t + 1
		st.Sealed = h.FirstSeq + h.Count
		r := format.EpochRoot(raw)
		st.LastRoot = &r
		return nil
	}); err != nil {
		problems = append(problems, err)
	}
	if st.Events > st.Sealed {
		st.Unsealed = st.Events - st.Sealed
	}
	if q, err := anchor.ReadQueue(*dir); err == nil {
		w := q.Window(st.Events, time.Now())
		if n := int(st.Epochs) - int(q.Confirmed()); n > w.Epochs {
			w.Epochs = n // sealed since the last afr anchor, not queued yet
		}
		st.Anchoring = &anchorStatus{ChainID: q.ChainID, Contract: q.Contract, Operator: q.Operator, Anchored: int(q.Confirmed()), AnchorWindow: w,
			Age: w.Age.Round(time.Millisecond).String(), OldestAge: w.Oldest.Round(time.Millisecond).String()}
	} else if !errors.Is(err, os.ErrNotExist) {
		problems = append(problems, err)
	}
	if rs, ok, err := replica.ReadStatus(*dir); err != nil {
		problems = append(problems, err)
	} else if ok {
		// The lag against the log as it is now: the replicator may have
		// stopped since it wrote the file.
		rs.LagEpochs, rs.LagEvents = max(st.Epochs, rs.Epochs)-rs.Epochs, max(st.Events, rs.Events)-rs.Events
		st.Replica = &rs
	}
	if len(problems) > 0 {
		st.Problem = errors.Join(problems...).Error() + " (hint: afr verify explains; afr seal repairs a torn tail)"
	}
	if *jsonOut {
		if err := writeJSON(e.stdout, st); err != nil {
			return err
		}
		return statusProblem(st)
	}
	fmt.Fprintf(e.stdout, "log        %s\nrecorder   %s\nsession    %s\nlog id     %s\nencrypted  %v\nevents     %d\nepochs     %d (events 0..%d sealed)\nunsealed   %d\n",
		st.Dir, st.Recorder, st.Session, st.LogID, st.Encrypted, st.Events, st.Epochs, int64(st.Sealed)-1, st.Unsealed)
	if st.LastRoot != nil {
		fmt.Fprintf(e.stdout, "last root  %s\n", st.LastRoot)
	}
	if a := st.Anchoring; a != nil {
		last := "none"
		if a.LastConfirmed != nil {
			last = fmt.Sprintf("epoch %d", *a.LastConfirmed)
		}
		fmt.Fprintf(e.stdout, "anchored   %d epochs on chain %d, contract %s, operator %s; last confirmed: %s\n", a.Anchored, a.ChainID, a.Contract, a.Operator, last)
		fmt.Fprintf(e.stdout, "window     %d events in %d sealed epochs not yet anchored (+ unsealed), open for %s\n", a.Events, a.Epochs, a.Age)
		if a.Epochs > 0 {
			fmt.Fprintf(e.stdout, "backlog    %d sealed epochs wait for their anchors, the oldest queued sealed %s ago\n", a.Epochs, a.OldestAge)
		}
	} else {
		fmt.Fprintf(e.stdout, "window     never anchored: all %d events (hint: afr anchor)\n", st.Events)
	}
	if r := st.Replica; r != nil {
		fmt.Fprintf(e.stdout, "replica    %s: %s; last looked at %s\n", r.URL, describeReplica(*r), r.Checked.Format(time.RFC3339))
	}
	return statusProblem(st)
}

// statusProblem is afr status's error: exit 1 when part of the log could
// not be read.
func statusProblem(st logStatus) error {
	if st.Problem == "" {
		return nil
	}
	return codeError{code: exitError, err: errors.New(st.Problem)}
}

func runProof(e *env, args []string) error {
	fs := commands["proof"].flags(e)
	dir := openFlags(fs)
	seqStr := fs.String("seq", "", "sequence number of the event (required)")
	jsonOut := fs.Bool("json", false, "write the proof as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" || *seqStr == "" {
		return usageError{"--log and --seq are required"}
	}
	seq, err := strconv.ParseUint(*seqStr, 10, 64)
	if err != nil {
		return usageError{"--seq: not a sequence number: " + *seqStr}
	}
	l, err := openLog(e, "proof", *dir)
	if err != nil {
		return err
	}
	pr, err := serve.Prove(l, seq)
	if err != nil {
		return err
	}
	if *jsonOut {
		return writeJSON(e.stdout, pr)
	}
	p, root := pr.InclusionProof, pr.Root
	h, _ := format.DecodeEpochHeader(p.Header)
	fmt.Fprintf(e.stdout, "event %d is leaf %d of %d in epoch %d\nrecord digest %s\nepoch root    %s (compare with the anchored root)\naudit path    %d hashes\n",
		seq, p.Index, h.Count, h.Epoch, format.RecordDigest(p.Record), root, len(p.Path))
	return nil
}

func writeJSONLine(w io.Writer, v any) {
	b, _ := jsonMarshal(v)
	w.Write(append(b, '\n'))
}
