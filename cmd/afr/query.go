package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

func init() {
	register(&command{name: "query", summary: "forensic queries over a log or a bundle", run: runQuery, usage: `
Usage: afr query (--log DIR | --bundle FILE) [--keys DIR] [anchors] [conditions] [--causal SEQ | --delegations [WHO]]

Finds events by structured fields. Conditions combine with AND:
  --tool NAME  --kind KIND  --group TAG  --run ID  --approver ID
  --decision allow|deny|ask
  --seq RANGE    sequence numbers: N, A..B (both included), A.. or ..B
  --since TIME   --until TIME: RFC 3339 (2026-01-02T15:04:05Z) or a
                 duration back from now (90m, 2h), of the recorder's time,
                 or with --by event of the event_time the caller gave
                 (events without one then do not match)
  --where COND   a payload field condition (repeatable; every one holds)
  --or COND      a payload field condition (repeatable; at least one holds)
A condition is PATH OP VALUE on the payload's JSON, OP one of
  =   exact text         ~   contains the text   != differs
  <  <=  >  >=  numbers (exact, also for 64-bit integers)
PATH names fields with dots; a list element by its index or * (any
element): intent.args.cmd~rm, effects.*.file_write.path~/etc,
execution.exit_code!=0, context.parents.*>=800. A field an event lacks
matches no condition. A path the payload cannot have is an error that
lists the fields known there (inside intent.args and ext any name goes).
Quote conditions for the shell: '<' and '>' redirect otherwise.

Output: --limit N keeps the first N matches; --before N and --after N add
N neighbouring events around each match, as grep -B/-A do (marked with '-'
after the sequence number, '--' between groups). Lines are cut to the
terminal's width (or $COLUMNS); --full prints them whole. --json writes
everything, context events with "context": true.

--causal SEQ follows context-provenance and delegation links from event SEQ
back to its origins, by sequence number (context.parents) and by id
(context.parent_ids, resolved within the event's run; an id no event of
the run carries is shown as unresolved); --delegations lists who delegated what to whom (to or
from WHO if given). Payload conditions need the payloads: --keys for an
encrypted log; a bundle carries its keys.

Before answering, the log (or bundle) is verified as "afr verify" does, at
payload level open with keys and digest without, against the anchors given
by the same flags (--anchors FILE, or a chain: --deployment, or --chain
or --rpc with --contract, and --operator). The verdict is printed on stderr and, with --json, as the field
"verification". Without anchors the log can only be checked against itself:
the answer says it is not verified against anchors. Answers from a log that
fails are still printed, but not as fact: each event a finding names is
marked "[TAMPERED: kind]" (with --json, in its "findings"), and the exit
code is the verdict's: 3 tampered, 4 incomplete (without anchors, only for
reasons other than the missing anchors). A payload that cannot be shown
says why (with --json, in "payload_unavailable"): no keys, key erased, payload missing, digest mismatch (the stored
payload is not the one its record commits to), or it does not open with
its key.

With --disclose FILE the answer is written as a disclosure bundle carrying
the proofs of every event in it, so the answer itself can be verified.

Examples:
  afr query --log ./afr-log --anchors anchors.json --keys ./afr-log/keys --tool db_query --where 'intent.args.sql~DROP'
  afr query --log ./afr-log --keys ./afr-log/keys --causal 812 --disclose incident.afrb
  afr query --bundle incident.afrb --approver alice --json
  afr query --log ./afr-log --since 2h --or 'intent.args.cmd~rm' --or 'effects.*.file_write.path~/etc' --after 3
  afr query --log ./afr-log --seq 100..200 --where 'execution.exit_code!=0' --limit 10`})
}

// queryFieldFlags are the flags that take the value of an event field of
// the same name, which a stray "kind=tool_call" argument meant.
var queryFieldFlags = []string{"tool", "kind", "group", "run", "approver", "decision", "seq"}

// checkQueryArgs refuses positional arguments: only --delegations takes one
// (the principal). A condition given without a flag would otherwise be
// ignored and the query answer every event, so the error names the flag
// that does what the argument asked.
func checkQueryArgs(args []string, delegations bool) error {
	if delegations && len(args) <= 1 || len(args) == 0 {
		return nil
	}
	if delegations {
		return usageError{fmt.Sprintf("unexpected argument %q: --delegations takes one principal", args[1])}
	}
	arg := args[0]
	hint := "conditions are flags (afr query --help)"
	if i := strings.IndexAny(arg, "=~!<>"); i > 0 {
		name, value := arg[:i], strings.TrimLeft(arg[i:], "=~!<>")
		hint = fmt.Sprintf("a payload condition is --where '%s'", arg)
		if arg[i] == '=' && slices.Contains(queryFieldFlags, name) {
			hint = fmt.Sprintf("did you mean --%s %s?", name, value)
		}
	}
	return usageError{fmt.Sprintf("unexpected argument %q: %s", arg, hint)}
}

// queryFlags are afr query's flags.
type queryFlags struct {
	logDir, bundleFile, keyDir                                                 *string
	tool, kind, group, run, by, seqs, since, until, approver, decision, causal *string
	where, or                                                                  repeated
	before, after, limit                                                       *int
	full, delegations, jsonOut                                                 *bool
	discloseTo                                                                 *string
	anchors                                                                    *anchorFlags
}

func addQueryFlags(fs *flag.FlagSet) *queryFlags {
	f := &queryFlags{
		logDir:     fs.String("log", "", "log directory"),
		bundleFile: fs.String("bundle", "", "disclosure bundle"),
		keyDir:     fs.String("keys", "", "key directory, or its copy s3://BUCKET/PREFIX made by afr replicate --keys-to (default <log>/keys if present)"),
		tool:       fs.String("tool", "", "tool name"),
		kind:       fs.String("kind", "", "event kind: tool_call, approval, delegation, chain_tx, policy, observation, response, reasoning"),
		group:      fs.String("group", "", "concurrency group"),
		run:        fs.String("run", "", "run or session tag"),
		by:         fs.String("by", "recorded", "which time --since and --until compare: recorded (the recorder's) or event (the caller's event_time)"),
		seqs:       fs.String("seq", "", "sequence numbers: N, A..B (both included), A.. or ..B"),
		since:      fs.String("since", "", "events at or after this recorder time (RFC 3339, or a duration back from now: 2h)"),
		until:      fs.String("until", "", "events before this recorder time (RFC 3339, or a duration back from now: 30m)"),
		approver:   fs.String("approver", "", "approver id"),
		decision:   fs.String("decision", "", "policy decision: allow, deny or ask"),
	}
	fs.Var(&f.where, "where", "payload field condition PATH OP VALUE that must hold (repeatable; OP: = ~ != < <= > >=)")
	fs.Var(&f.or, "or", "payload field condition of which at least one must hold (repeatable)")
	f.before = fs.Int("before", 0, "also show `N` events before each match")
	f.after = fs.Int("after", 0, "also show `N` events after each match")
	f.limit = fs.Int("limit", 0, "show at most `N` matches (0: all)")
	f.full = fs.Bool("full", false, "do not cut lines to the terminal's width")
	f.causal = fs.String("causal", "", "follow the causal chain back from this event")
	f.delegations = fs.Bool("delegations", false, "list delegations (optionally of the principal given as argument)")
	f.discloseTo = fs.String("disclose", "", "write the answer as a disclosure bundle (log only)")
	f.jsonOut = fs.Bool("json", false, "write the answer as JSON")
	f.anchors = addAnchorFlags(fs)
	return f
}

func runQuery(e *env, args []string) error {
	fs := commands["query"].flags(e)
	f := addQueryFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkQueryArgs(fs.Args(), *f.delegations); err != nil {
		return err
	}
	q, err := f.query(time.Now())
	if err != nil {
		return err
	}
	ctx := context.Background()
	anchors, execs, closeChain, err := f.anchors.sources(ctx, *f.logDir, *f.bundleFile)
	if err != nil {
		return err
	}
	defer closeChain()
	a, err := openAnswer(ctx, e, f, anchors, execs)
	if a != nil && a.keys != nil {
		defer a.keys.Close()
	}
	if err != nil {
		return err
	}
	if err := a.find(e, f, q, fs.Arg(0)); err != nil {
		return err
	}
	if *f.discloseTo != "" {
		if err := a.disclose(e, *f.discloseTo); err != nil {
			return err
		}
	}
	exit := queryExit(a.rep, a.anchored)
	if *f.jsonOut {
		if err := a.writeJSON(e); err != nil {
			return err
		}
		return exit
	}
	a.print(e, *f.full, *f.before > 0 || *f.after > 0)
	return exit
}

// query checks the flags and builds the structured query they give, with
// times back from now.
func (f *queryFlags) query(now time.Time) (verifier.Query, error) {
	q := verifier.Query{Tool: *f.tool, Group: *f.group, Run: *f.run, Approver: *f.approver}
	switch {
	case (*f.logDir == "") == (*f.bundleFile == ""):
		return q, usageError{"give exactly one of --log and --bundle"}
	case *f.discloseTo != "" && *f.logDir == "":
		return q, usageError{"--disclose needs --log"}
	}
	switch *f.by {
	case "recorded":
	case "event":
		q.ByEventTime = true
	default:
		return q, usageError{fmt.Sprintf("--by %q: want recorded or event", *f.by)}
	}
	if *f.kind != "" {
		if err := q.Kind.UnmarshalText([]byte(*f.kind)); err != nil {
			return q, usageError{err.Error()}
		}
	}
	if *f.decision != "" {
		if err := q.Decision.UnmarshalText([]byte(*f.decision)); err != nil {
			return q, usageError{err.Error()}
		}
	}
	for _, s := range []struct {
		flag, in string
		out      *time.Time
	}{{"--since", *f.since, &q.Since}, {"--until", *f.until, &q.Until}} {
		if s.in == "" {
			continue
		}
		t, err := parseQueryTime(s.in, now)
		if err != nil {
			return q, usageError{s.flag + ": " + err.Error()}
		}
		*s.out = t
	}
	if *f.seqs != "" {
		r, err := verifier.ParseSeqRange(*f.seqs)
		if err != nil {
			return q, usageError{"--seq: " + err.Error()}
		}
		q.Seq = &r
	}
	for _, c := range []struct {
		flag  string
		in    repeated
		conds *[]verifier.FieldMatch
	}{{"--where", f.where, &q.Fields}, {"--or", f.or, &q.Any}} {
		for _, w := range c.in {
			m, err := verifier.ParseFieldMatch(w)
			if err != nil {
				return q, usageError{c.flag + ": " + err.Error()}
			}
			*c.conds = append(*c.conds, m)
		}
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"--before", *f.before}, {"--after", *f.after}, {"--limit", *f.limit}} {
		if n.v < 0 {
			return q, usageError{fmt.Sprintf("%s %d: want a count of 0 or more", n.flag, n.v)}
		}
	}
	return q, nil
}

// answer is the answer to a query: the verification of the log or bundle
// and its index, then (find) the events, links and delegations found.
type answer struct {
	rep      *verifier.Report
	anchored bool // verified against anchors
	ix       *verifier.Index
	log      *recorder.Log     // when the answer is from a log
	keys     *recorder.Keyring // the log's keys, when they opened
	notes    verifier.Notes

	events []*verifier.Event
	hits   []verifier.Hit // events with their context (--before, --after)
	links  []verifier.Link
	dels   []verifier.Delegation
}

// openAnswer verifies the log or the bundle of the flags against anchors
// (payload level open with the log's keys, digest without) and indexes it,
// saying on stderr how far the answer can be trusted. The keys, if opened,
// are in the answer even when it fails.
func openAnswer(ctx context.Context, e *env, f *queryFlags, anchors verifier.AnchorSource, execs *onchain.Executions) (*answer, error) {
	a := &answer{anchored: anchors != nil, notes: verifier.Notes{NoKey: "no keys"}}
	subject := "bundle"
	if *f.bundleFile != "" {
		b, err := readBundle(*f.bundleFile)
		if err != nil {
			return nil, err
		}
		br, err := verifier.VerifyBundle(ctx, b, anchors, verifier.Options{Payloads: verifier.PayloadsDigest})
		if err != nil {
			return nil, err
		}
		a.rep, a.ix, a.notes.NoKey = &br.Report, verifier.IndexBundle(b), "payload or key not disclosed"
	} else {
		subject = "log"
		var err error
		if a.log, err = openLog(e, "query", *f.logDir); err != nil {
			return nil, err
		}
		opts := verifier.Options{Payloads: verifier.PayloadsDigest}
		if execs != nil {
			opts.Completeness = *execs
		}
		if *f.keyDir != "" || exists(filepath.Join(*f.logDir, "keys", "master.key")) {
			if a.keys, err = logKeys(e, "query", *f.keyDir, a.log); err != nil {
				fmt.Fprintf(e.stderr, "afr query: warning: %v; encrypted payloads are not shown\n", err)
			} else {
				opts.Payloads, opts.Keys = verifier.PayloadsOpen, a.keys
				a.notes.NoKey = "payload missing or unreadable"
			}
		}
		if a.rep, err = verifier.VerifyLog(ctx, a.log, anchors, opts); err != nil {
			return a, err
		}
		if a.ix, err = verifier.IndexLog(a.log, opts.Keys); err != nil {
			printVerdict(e, subject, a.rep, a.anchored)
			return a, verdictExit(a.rep.Verdict, fmt.Errorf("cannot answer from this log: %w", err))
		}
	}
	printVerdict(e, subject, a.rep, a.anchored)
	a.notes.Findings = a.rep.Findings
	return a, nil
}

// find answers the query: the delegations (of principal, if given), the
// causal chain of --causal filtered by q, or the events q matches; at most
// --limit of them, with their context.
func (a *answer) find(e *env, f *queryFlags, q verifier.Query, principal string) error {
	switch {
	case *f.delegations:
		a.dels = a.ix.Delegations(principal)
	case *f.causal != "":
		seq, err := strconv.ParseUint(*f.causal, 10, 64)
		if err != nil {
			return usageError{"--causal: not a sequence number: " + *f.causal}
		}
		if a.events, a.links, err = a.ix.CausalChain(seq); err != nil {
			return err
		}
		a.events = q.Filter(a.events)
	default:
		a.events = a.ix.Find(q)
	}
	if *f.limit > 0 && len(a.events) > *f.limit {
		fmt.Fprintf(e.stderr, "afr query: showing the first %d of %d matches (--limit)\n", *f.limit, len(a.events))
		a.events = a.events[:*f.limit]
	}
	a.hits = a.ix.Around(a.events, *f.before, *f.after)
	return nil
}

// disclose writes the answer's events and delegations, with their proofs,
// as a disclosure bundle to path.
func (a *answer) disclose(e *env, path string) error {
	seqs := verifier.Seqs(a.events)
	for _, d := range a.dels {
		seqs = append(seqs, d.Seq)
	}
	if len(seqs) == 0 {
		return fmt.Errorf("nothing matched: no bundle written")
	}
	opts := verifier.DiscloseOptions{Payloads: true}
	if a.keys != nil {
		opts.Keys = a.keys
	}
	_, n, err := writeDisclosure(path, a.log, seqs, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "afr query: answer with proofs written to %s (%d bytes); check it with afr verify --bundle\n", path, n)
	return nil
}

// writeJSON writes the answer as afr query --json does.
func (a *answer) writeJSON(e *env) error {
	type event struct {
		verifier.Hit
		verifier.Note
	}
	out := make([]event, len(a.hits))
	for i, h := range a.hits {
		out[i] = event{h, a.notes.Of(h.Event)}
	}
	return writeJSON(e.stdout, struct {
		Verification queryVerification     `json:"verification"`
		Events       []event               `json:"events,omitempty"`
		Links        []verifier.Link       `json:"links,omitempty"`
		Delegations  []verifier.Delegation `json:"delegations,omitempty"`
	}{queryVerification{a.rep, a.anchored}, out, a.links, a.dels})
}

// print writes the answer as text, a line per delegation, event and link,
// cut to the terminal's width unless full; groups of events are separated
// by "--" when grouped (shown with context).
func (a *answer) print(e *env, full, grouped bool) {
	width := 0
	if !full {
		width = outputWidth(e.stdout)
	}
	for _, d := range a.dels {
		fmt.Fprintln(e.stdout, cut(fmt.Sprintf("%6d  %s -> %s  scope %v", d.Seq, d.Delegator, d.Delegate, d.Scope), "", width))
	}
	for i, h := range a.hits {
		if i > 0 && grouped && h.Seq != a.hits[i-1].Seq+1 {
			fmt.Fprintln(e.stdout, "--")
		}
		ev, n := h.Event, a.notes.Of(h.Event)
		mark := " "
		if h.Context {
			mark = "-"
		}
		sum := summary(ev, n.Unavailable)
		if r := ev.Envelope.Run; r != "" {
			sum = "run=" + r + " " + sum
		}
		line := fmt.Sprintf("%6d%s %s  %-11s %-12s %s", ev.Seq, mark, time.Unix(0, ev.Envelope.Time).UTC().Format(time.RFC3339), ev.Envelope.Kind, ev.Envelope.Tool, sum)
		tail := ""
		if len(n.Findings) > 0 {
			tail = fmt.Sprintf("  [%s: %s]", strings.ToUpper(verifier.Tampered.String()), joinKinds(n.Findings))
		}
		fmt.Fprintln(e.stdout, cut(line, tail, width))
	}
	for _, l := range a.links {
		switch {
		case l.Unresolved:
			fmt.Fprintf(e.stdout, "  ? -> %d (%s %q: unresolved, no event of the run has this id)\n", l.To, l.Via, l.ID)
		case l.ID != "":
			fmt.Fprintf(e.stdout, "  %d -> %d (%s %q)\n", l.From, l.To, l.Via, l.ID)
		default:
			fmt.Fprintf(e.stdout, "  %d -> %d (%s)\n", l.From, l.To, l.Via)
		}
	}
	if len(a.events) == 0 && len(a.dels) == 0 {
		fmt.Fprintln(e.stderr, "afr query: no events matched")
	}
}

// queryVerification is the verdict in the answer of query --json.
type queryVerification struct {
	*verifier.Report
	AgainstAnchors bool `json:"against_anchors"`
}

// printVerdict says on stderr how far the answer can be trusted.
func printVerdict(e *env, subject string, rep *verifier.Report, anchored bool) {
	switch {
	case rep.Verdict == verifier.Verified:
		fmt.Fprintf(e.stderr, "afr query: %s verified against the anchors (%d events)\n", subject, rep.Events)
		return
	case queryExit(rep, anchored) == nil:
		fmt.Fprintf(e.stderr, "afr query: %s consistent in itself but NOT verified against anchors: the answer is not evidence (hint: give --anchors FILE or a chain, as for afr verify)\n", subject)
		return
	}
	const shown = 5
	fmt.Fprintf(e.stderr, "afr query: %s %s (%d findings): the answers are not evidence; events a finding names are marked (hint: afr verify lists every finding)\n",
		subject, strings.ToUpper(rep.Verdict.String()), uint64(len(rep.Findings))+rep.Dropped)
	for i, f := range rep.Findings {
		if i == shown {
			fmt.Fprintf(e.stderr, "  …\n")
			break
		}
		fmt.Fprintf(e.stderr, "  - %s\n", f)
	}
}

// queryExit is the exit of a query: the verdict's, except that without
// anchors a log incomplete only for the lack of them (unanchored or
// unsealed epochs) exits 0 — the stderr line says it is not verified.
func queryExit(rep *verifier.Report, anchored bool) error {
	if !anchored && rep.OnlyUnanchored() {
		return nil
	}
	return verdictExit(rep.Verdict, nil)
}

func joinKinds(ks []verifier.FindingKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func summary(ev *verifier.Event, unavailable string) string {
	p := ev.Payload
	if p == nil {
		return "(payload not available: " + unavailable + ")"
	}
	var parts []string
	if p.Intent != nil && len(p.Intent.Args) > 0 {
		b, _ := jsonMarshal(p.Intent.Args)
		parts = append(parts, string(b))
	}
	if p.Policy != nil {
		parts = append(parts, "policy="+p.Policy.Decision.String())
	}
	if p.Approval != nil {
		parts = append(parts, fmt.Sprintf("approved-by=%s(%s)", p.Approval.Approver, p.Approval.Decision))
	}
	if p.Delegation != nil {
		parts = append(parts, fmt.Sprintf("delegation %s->%s", p.Delegation.Delegator, p.Delegation.Delegate))
	}
	if p.Execution != nil {
		parts = append(parts, "status="+p.Execution.Status.String())
		if o := p.Execution.Output; o != nil && o.Text != "" {
			b, _ := jsonMarshal(o.Text)
			parts = append(parts, "output="+string(b))
		}
	}
	if c := p.Content; c != nil && c.Text != "" {
		b, _ := jsonMarshal(c.Text)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, " ")
}

// parseQueryTime reads a time as RFC 3339 or as a duration back from now.
func parseQueryTime(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("time %q: want RFC 3339 (2026-01-02T15:04:05Z) or a duration back from now (90s, 15m, 2h)", s)
}

// outputWidth is the width to cut text lines to: $COLUMNS when set, else
// the terminal's, 0 (do not cut) when w is not a terminal.
func outputWidth(w any) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return termWidth(w)
}

// cut shortens line so that line+tail fits width columns (0: no limit),
// ending it with "…"; tail (a TAMPERED marker) is always kept whole.
func cut(line, tail string, width int) string {
	r := []rune(line)
	if room := width - utf8.RuneCountInString(tail); width > 0 && len(r) > room {
		line = string(r[:max(room-1, 0)]) + "…"
	}
	return line + tail
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
