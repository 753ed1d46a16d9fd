package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

func init() {
	register(&command{name: "query", summary: "forensic queries over a log or a bundle", run: runQuery, usage: `
Usage: afr query (--log DIR | --bundle FILE) [--keys DIR] [anchors] [conditions] [--causal SEQ | --delegations [WHO]]

Finds events by structured fields. Conditions combine with AND:
  --tool NAME  --kind KIND  --group TAG  --since TIME  --until TIME (RFC 3339)
  --approver ID  --decision allow|deny|ask
  --where PATH=VALUE or PATH~SUBSTRING, on the payload's JSON (repeatable),
          e.g. intent.args.cmd~rm or effects.0.db_change.table=users
--causal SEQ follows context-provenance and delegation links from event SEQ
back to its origins; --delegations lists who delegated what to whom (to or
from WHO if given). Payload conditions need the payloads: --keys for an
encrypted log; a bundle carries its keys.

Before answering, the log (or bundle) is verified as "afr verify" does, at
payload level open with keys and digest without, against the anchors given
by the same flags (--anchors FILE, or a chain: --rpc/--deployment with
--operator). The verdict is printed on stderr and, with --json, as the field
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
  afr query --bundle incident.afrb --approver alice --json`})
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func runQuery(e *env, args []string) error {
	fs := commands["query"].flags(e)
	logDir := fs.String("log", "", "log directory")
	bundleFile := fs.String("bundle", "", "disclosure bundle")
	keyDir := fs.String("keys", "", "key directory (default <log>/keys if present)")
	tool := fs.String("tool", "", "tool name")
	kind := fs.String("kind", "", "event kind: tool_call, approval, delegation, chain_tx, policy, observation")
	group := fs.String("group", "", "concurrency group")
	since := fs.String("since", "", "events at or after this time (RFC 3339)")
	until := fs.String("until", "", "events before this time (RFC 3339)")
	approver := fs.String("approver", "", "approver id")
	decision := fs.String("decision", "", "policy decision: allow, deny or ask")
	var where multi
	fs.Var(&where, "where", "payload field condition PATH=VALUE or PATH~SUBSTRING (repeatable)")
	causal := fs.String("causal", "", "follow the causal chain back from this event")
	delegations := fs.Bool("delegations", false, "list delegations (optionally of the principal given as argument)")
	discloseTo := fs.String("disclose", "", "write the answer as a disclosure bundle (log only)")
	jsonOut := fs.Bool("json", false, "write the answer as JSON")
	af := addAnchorFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*logDir == "") == (*bundleFile == "") {
		return usageError{"give exactly one of --log and --bundle"}
	}
	if *discloseTo != "" && *logDir == "" {
		return usageError{"--disclose needs --log"}
	}
	q := verifier.Query{Tool: *tool, Group: *group, Approver: *approver}
	if *kind != "" {
		if err := q.Kind.UnmarshalText([]byte(*kind)); err != nil {
			return usageError{err.Error()}
		}
	}
	if *decision != "" {
		if err := q.Decision.UnmarshalText([]byte(*decision)); err != nil {
			return usageError{err.Error()}
		}
	}
	for _, s := range []struct {
		in  string
		out *time.Time
	}{{*since, &q.Since}, {*until, &q.Until}} {
		if s.in == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s.in)
		if err != nil {
			return usageError{fmt.Sprintf("time %q: want RFC 3339, e.g. 2026-01-02T15:04:05Z", s.in)}
		}
		*s.out = t
	}
	for _, w := range where {
		f, err := verifier.ParseFieldMatch(w)
		if err != nil {
			return usageError{err.Error()}
		}
		q.Fields = append(q.Fields, f)
	}

	ctx := context.Background()
	anchors, execs, closeChain, err := af.sources(ctx, *logDir, *bundleFile)
	if err != nil {
		return err
	}
	defer closeChain()
	var ix *verifier.Index
	var rep *verifier.Report
	var log *recorder.Log
	var keys *recorder.Keyring
	subject := "bundle"
	if *bundleFile != "" {
		b, err := readBundle(*bundleFile)
		if err != nil {
			return err
		}
		br, err := verifier.VerifyBundle(ctx, b, anchors, verifier.Options{Payloads: verifier.PayloadsDigest})
		if err != nil {
			return err
		}
		rep, ix = &br.Report, verifier.IndexBundle(b)
	} else {
		subject = "log"
		if log, err = recorder.OpenLog(*logDir); err != nil {
			return err
		}
		opts := verifier.Options{Payloads: verifier.PayloadsDigest}
		if execs != nil {
			opts.Completeness = *execs
		}
		if *keyDir != "" || exists(filepath.Join(*logDir, "keys", "master.key")) {
			if keys, err = logKeys(e, "query", *keyDir, log); err != nil {
				fmt.Fprintf(e.stderr, "afr query: warning: %v; encrypted payloads are not shown\n", err)
			} else {
				defer keys.Close()
				opts.Payloads, opts.Keys = verifier.PayloadsOpen, keys
			}
		}
		if rep, err = verifier.VerifyLog(ctx, log, anchors, opts); err != nil {
			return err
		}
		if ix, err = verifier.IndexLog(log, opts.Keys); err != nil {
			printVerdict(e, subject, rep, anchors != nil)
			return verdictExit(rep.Verdict, fmt.Errorf("cannot answer from this log: %w", err))
		}
	}
	printVerdict(e, subject, rep, anchors != nil)
	notes := notes{rep.Findings, "no keys"}
	switch {
	case *bundleFile != "":
		notes.noKey = "payload or key not disclosed"
	case keys != nil:
		notes.noKey = "payload missing or unreadable"
	}

	var events []*verifier.Event
	var links []verifier.Link
	var dels []verifier.Delegation
	switch {
	case *delegations:
		dels = ix.Delegations(fs.Arg(0))
	case *causal != "":
		seq, err := strconv.ParseUint(*causal, 10, 64)
		if err != nil {
			return usageError{"--causal: not a sequence number: " + *causal}
		}
		if events, links, err = ix.CausalChain(seq); err != nil {
			return err
		}
		events = filter(events, q)
	default:
		events = ix.Find(q)
	}
	if *discloseTo != "" {
		seqs := verifier.Seqs(events)
		for _, d := range dels {
			seqs = append(seqs, d.Seq)
		}
		if len(seqs) == 0 {
			return fmt.Errorf("nothing matched: no bundle written")
		}
		opts := verifier.DiscloseOptions{Payloads: true}
		if keys != nil {
			opts.Keys = keys
		}
		_, n, err := writeDisclosure(*discloseTo, log, seqs, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "afr query: answer with proofs written to %s (%d bytes); check it with afr verify --bundle\n", *discloseTo, n)
	}
	exit := queryExit(rep, anchors != nil)
	if *jsonOut {
		type event struct {
			*verifier.Event
			note
		}
		out := make([]event, len(events))
		for i, ev := range events {
			out[i] = event{ev, notes.of(ev)}
		}
		if err := writeJSON(e.stdout, struct {
			Verification queryVerification     `json:"verification"`
			Events       []event               `json:"events,omitempty"`
			Links        []verifier.Link       `json:"links,omitempty"`
			Delegations  []verifier.Delegation `json:"delegations,omitempty"`
		}{queryVerification{rep, anchors != nil}, out, links, dels}); err != nil {
			return err
		}
		return exit
	}
	for _, d := range dels {
		fmt.Fprintf(e.stdout, "%6d  %s -> %s  scope %v\n", d.Seq, d.Delegator, d.Delegate, d.Scope)
	}
	for _, ev := range events {
		n := notes.of(ev)
		line := fmt.Sprintf("%6d  %s  %-11s %-12s %s", ev.Seq, time.Unix(0, ev.Envelope.Time).UTC().Format(time.RFC3339), ev.Envelope.Kind, ev.Envelope.Tool, summary(ev, n.Unavailable))
		if len(n.Findings) > 0 {
			line += fmt.Sprintf("  [%s: %s]", strings.ToUpper(verifier.Tampered.String()), joinKinds(n.Findings))
		}
		fmt.Fprintln(e.stdout, line)
	}
	for _, l := range links {
		fmt.Fprintf(e.stdout, "  %d -> %d (%s)\n", l.From, l.To, l.Via)
	}
	if len(events) == 0 && len(dels) == 0 {
		fmt.Fprintln(e.stderr, "afr query: no events matched")
	}
	return exit
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
	if rep.Verdict != verifier.Incomplete || anchored || rep.Dropped > 0 {
		return verdictExit(rep.Verdict, nil)
	}
	for _, f := range rep.Findings {
		if f.Class == verifier.ClassIncomplete && f.Kind != verifier.KindUnanchored && f.Kind != verifier.KindUnsealed {
			return verdictExit(rep.Verdict, nil)
		}
	}
	return nil
}

// note is what an answer says about an event beyond the log's contents.
type note struct {
	Unavailable string                 `json:"payload_unavailable,omitempty"` // why the payload is not shown
	Findings    []verifier.FindingKind `json:"findings,omitempty"`            // tampered findings naming the event or its epoch
}

// notes derive each event's note from a verification report.
type notes struct {
	findings []verifier.Finding
	noKey    string // why a payload is missing that no finding explains
}

// unavailable says why a payload is not shown, by the finding about it.
var unavailable = map[verifier.FindingKind]string{
	verifier.KindPayloadMismatch: "digest mismatch",
	verifier.KindPayloadErased:   "key erased",
	verifier.KindPayloadLost:     "payload missing",
	verifier.KindPayloadMissing:  "payload missing",
	verifier.KindPayloadDecrypt:  "does not open with its key",
	verifier.KindPayloadCommit:   "does not open with its key",
	verifier.KindPayloadDecode:   "does not open with its key",
}

func (n notes) of(ev *verifier.Event) note {
	var out note
	for _, f := range n.findings {
		if f.Seq != nil && (ev.Seq < *f.Seq || ev.Seq >= *f.Seq+max(f.Count, 1)) || f.Seq == nil && (f.Epoch == nil || *f.Epoch != ev.Epoch) {
			continue
		}
		if f.Class == verifier.ClassTampered && !slices.Contains(out.Findings, f.Kind) {
			out.Findings = append(out.Findings, f.Kind)
		}
		if why, ok := unavailable[f.Kind]; ok && out.Unavailable == "" {
			out.Unavailable = why
		}
	}
	switch {
	case ev.Payload != nil:
		out.Unavailable = ""
	case out.Unavailable == "":
		out.Unavailable = n.noKey
	}
	return out
}

func joinKinds(ks []verifier.FindingKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func filter(events []*verifier.Event, q verifier.Query) []*verifier.Event {
	var out []*verifier.Event
	for _, ev := range events {
		if q.Match(ev) {
			out = append(out, ev)
		}
	}
	return out
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
	}
	return strings.Join(parts, " ")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
