package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/world"
)

// ChainEvent is one event of the rebuilt causal chain.
type ChainEvent struct {
	Seq     uint64 `json:"seq"`
	Tool    string `json:"tool"`
	Kind    string `json:"kind"`
	InTruth bool   `json:"in_incident"`
}

// rq4 records the incident scenario on a chain and scores the structured
// reconstruction and the grep baselines.
func rq4(ctx context.Context, r *run) (*Table, error) {
	r.progress(0, 3, "starting a World on the %s chain", r.cfg.Backend)
	kind, err := backend.ParseKind(r.cfg.Backend)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(r.tmp, "rq4")
	w, err := world.New(ctx, world.Config{Backend: kind, EpochSize: 32, Dir: dir})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	r.progress(1, 3, "recording the incident")
	inc, err := world.RecordIncident(ctx, w)
	if err != nil {
		return nil, err
	}
	if inc.Verification.Verdict != verifier.Verified {
		return nil, fmt.Errorf("the incident's log is %s against the chain: %v", inc.Verification.Verdict, inc.Verification.Findings)
	}
	r.progress(2, 3, "investigating")
	ix, err := w.Index()
	if err != nil {
		return nil, err
	}
	plain := filepath.Join(dir, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		return nil, err
	}
	inv, err := inc.Investigate(ix, plain)
	if err != nil {
		return nil, err
	}
	t := &Table{ID: "rq4", Title: "RQ4 — forensics: the incident, from the log alone",
		About: fmt.Sprintf("The incident scenario of package world (RecordIncident, also the specs/incident spec): a support agent reads a web page carrying a prompt injection, "+
			"delegates a \"migration\" to the treasury agent, which tries twice to send the account's funds to the attacker (refused by the policy's PDR, then by the delegation's scope), "+
			"among %d events of unrelated work — recorded on the %s chain through the PACE account, anchored, and verified against the chain (%s). "+
			"The investigator starts from the last refused transfer and rebuilds its causal chain from the log alone; the baselines grep the plain JSON log of the same events. "+
			"Each is scored against the %d events of the incident, known by construction.",
			inv.Events-len(inc.Truth), r.cfg.Backend, inc.Verification.Verdict, len(inc.Truth))}
	sec := Section{Title: "Queries (the prompt-injection scenario)", Header: []string{"query", "retrieved", "relevant", "precision", "recall", "paper"}}
	add := func(s world.Score, paper string) {
		sec.Rows = append(sec.Rows, []string{s.Query, fmt.Sprint(s.Retrieved), fmt.Sprintf("%d of %d", s.Relevant, s.Truth),
			fmt.Sprintf("%.3f", s.Precision), fmt.Sprintf("%.3f", s.Recall), paper})
	}
	add(inv.Structured, "1.000 / 1.000 (structured lookups)")
	for _, g := range inv.Grep {
		paper := "—"
		if strings.Contains(g.Query, `"delegat"`) {
			paper = "0.077 / — (delegation keyword)"
		}
		add(g, paper)
	}
	chainSec := Section{Title: "The causal chain rebuilt", Header: []string{"seq", "tool", "kind", "in the incident"}}
	var chainEvents []ChainEvent
	for _, ev := range inv.Chain {
		in := slices.Contains(inc.Truth, ev.Seq)
		chainEvents = append(chainEvents, ChainEvent{Seq: ev.Seq, Tool: ev.Envelope.Tool, Kind: ev.Envelope.Kind.String(), InTruth: in})
		chainSec.Rows = append(chainSec.Rows, []string{fmt.Sprint(ev.Seq), ev.Envelope.Tool, ev.Envelope.Kind.String(), yesNo(in)})
	}
	t.Sections = []Section{sec, chainSec}
	var delegs []string
	for _, d := range inv.Delegations {
		delegs = append(delegs, d.Delegator+" → "+d.Delegate)
	}
	t.Notes = []string{
		fmt.Sprintf("%d causal links followed; delegation chain of the refused transfer: %s.", len(inv.Links), strings.Join(delegs, ", ")),
		"The paper's figures, on its own scenarios: structured lookups precision and recall 1.000; grep for the guardrail text 79 hits, 1 relevant (precision 0.013); " +
			"grep for delegation 13 hits (precision 0.077); the baseline rebuilds no causal chain (0.0 / 0.0); scenario B grep precision 0.5.",
	}
	t.Data = struct {
		Backend     string                `json:"backend"`
		Events      int                   `json:"events"`
		Truth       []uint64              `json:"incident"`
		Start       uint64                `json:"start"`
		Structured  world.Score           `json:"structured"`
		Grep        []world.Score         `json:"grep"`
		Chain       []ChainEvent          `json:"chain"`
		Links       []verifier.Link       `json:"links"`
		Delegations []verifier.Delegation `json:"delegations"`
	}{r.cfg.Backend, inv.Events, inc.Truth, inv.Start, inv.Structured, inv.Grep, chainEvents, inv.Links, inv.Delegations}
	names, prec, rec := []string{"structured"}, []float64{inv.Structured.Precision}, []float64{inv.Structured.Recall}
	for i, q := range inc.GrepQueries() {
		name := q[0]
		if len(name) > 14 {
			name = name[:12] + "…"
		}
		if len(q) > 1 {
			name += " +"
		}
		names, prec, rec = append(names, "grep "+name), append(prec, inv.Grep[i].Precision), append(rec, inv.Grep[i].Recall)
	}
	p, err := barPlot("Incident reconstruction: structured query vs grep", "score", names, []bars{{"precision", prec}, {"recall", rec}})
	if err != nil {
		return nil, err
	}
	if err := t.savePlot(p, r.cfg.Out, "rq4-precision-recall"); err != nil {
		return nil, err
	}
	return t, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
