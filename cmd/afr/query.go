package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

func init() {
	register(&command{name: "query", summary: "forensic queries over a log or a bundle", run: runQuery, usage: `
Usage: afr query (--log DIR | --bundle FILE) [--keys DIR] [conditions] [--causal SEQ | --delegations [WHO]]

Finds events by structured fields. Conditions combine with AND:
  --tool NAME  --kind KIND  --group TAG  --since TIME  --until TIME (RFC 3339)
  --approver ID  --decision allow|deny|ask
  --where PATH=VALUE or PATH~SUBSTRING, on the payload's JSON (repeatable),
          e.g. intent.args.cmd~rm or effects.0.db_change.table=users
--causal SEQ follows context-provenance and delegation links from event SEQ
back to its origins; --delegations lists who delegated what to whom (to or
from WHO if given). Payload conditions need the payloads: --keys for an
encrypted log; a bundle carries its keys.

With --disclose FILE the answer is written as a disclosure bundle carrying
the proofs of every event in it, so the answer itself can be verified.

Examples:
  afr query --log ./afr-log --keys ./afr-log/keys --tool db_query --where 'intent.args.sql~DROP'
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

	var ix *verifier.Index
	var log *recorder.Log
	var keys *recorder.Keyring
	if *bundleFile != "" {
		b, err := readBundle(*bundleFile)
		if err != nil {
			return err
		}
		ix = verifier.IndexBundle(b)
	} else {
		var err error
		if log, err = recorder.OpenLog(*logDir); err != nil {
			return err
		}
		if *keyDir != "" || (log.Manifest.Encrypted && exists(*logDir+"/keys/master.key")) {
			if keys, err = openKeys(*keyDir, *logDir, log.Manifest.Session); err != nil {
				return err
			}
			defer keys.Close()
		}
		var ks verifier.Keys
		if keys != nil {
			ks = keys
		}
		if ix, err = verifier.IndexLog(log, ks); err != nil {
			return err
		}
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
	if *jsonOut {
		return writeJSON(e.stdout, struct {
			Events      []*verifier.Event     `json:"events,omitempty"`
			Links       []verifier.Link       `json:"links,omitempty"`
			Delegations []verifier.Delegation `json:"delegations,omitempty"`
		}{events, links, dels})
	}
	for _, d := range dels {
		fmt.Fprintf(e.stdout, "%6d  %s -> %s  scope %v\n", d.Seq, d.Delegator, d.Delegate, d.Scope)
	}
	for _, ev := range events {
		fmt.Fprintf(e.stdout, "%6d  %s  %-11s %-12s %s\n", ev.Seq, time.Unix(0, ev.Envelope.Time).UTC().Format(time.RFC3339), ev.Envelope.Kind, ev.Envelope.Tool, summary(ev))
	}
	for _, l := range links {
		fmt.Fprintf(e.stdout, "  %d -> %d (%s)\n", l.From, l.To, l.Via)
	}
	if len(events) == 0 && len(dels) == 0 {
		fmt.Fprintln(e.stderr, "afr query: no events matched")
	}
	return nil
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

func summary(ev *verifier.Event) string {
	p := ev.Payload
	if p == nil {
		return "(payload not available)"
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
