package verifier_test

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
)

// incident records a small prompt-injection incident among benign noise:
// a retrieval returns injected text (3), the lead delegates to the ops
// agent citing it (5), ops runs a shell command (7), asks for approval (8),
// and drops a table (10). Events 0–2, 4, 6, 9, 11 are unrelated.
func incident(t *testing.T) (*testLog, map[uint64]bool) {
	t.Helper()
	d := func(b byte) format.Bytes { return format.Bytes{b, b, b} }
	p3, p7, p8 := uint64(3), uint64(7), uint64(8)
	shell := func(cmd string, parents ...uint64) format.Event {
		return format.Event{Tool: "shell", Kind: format.KindToolCall, Payload: format.Payload{
			Intent:  &format.Intent{Tool: "shell", Args: map[string]any{"cmd": cmd}},
			Context: &format.ContextProvenance{Parents: parents}}}
	}
	evs := []format.Event{
		shell("ls"), shell("git status"), shell("make build", 1),
		{Tool: "retrieval", Kind: format.KindObservation, Payload: format.Payload{
			Intent:  &format.Intent{Tool: "retrieval", Args: map[string]any{"query": "runbook"}},
			Context: &format.ContextProvenance{Inputs: []format.Input{{Source: "web:evil.example", Digest: d(1)}}}}},
		shell("go test ./...", 2),
		{Tool: "delegate", Kind: format.KindDelegation, Payload: format.Payload{
			Delegation: &format.DelegationProvenance{Delegator: "agent:lead", Delegate: "agent:ops", Scope: []string{"shell", "db"}, Token: d(2), Parent: &p3},
			Context:    &format.ContextProvenance{Parents: []uint64{3}}}},
		shell("cat README.md", 4),
		shell("psql -c '\\dt'", 5),
		{Tool: "approval", Kind: format.KindApproval, Payload: format.Payload{
			Policy:   &format.PolicyEvaluation{PolicyID: "prod-db", Decision: format.DecisionAsk},
			Approval: &format.Approval{Approver: "alice", Decision: format.DecisionAllow, Signature: d(3)},
			Context:  &format.ContextProvenance{Parents: []uint64{p7}}}},
		shell("echo done", 6),
		{Tool: "db_query", Kind: format.KindToolCall, Payload: format.Payload{
			Intent:    &format.Intent{Tool: "db_query", Args: map[string]any{"sql": "DROP TABLE users"}},
			Policy:    &format.PolicyEvaluation{PolicyID: "prod-db", Decision: format.DecisionAllow},
			Effects:   []format.Effect{{DBChange: &format.DBChange{Database: "prod", Table: "users", Operation: "ddl"}}},
			Context:   &format.ContextProvenance{Parents: []uint64{p7, p8}},
			Execution: &format.Execution{Status: format.StatusOK},
			Ext:       map[string]any{format.ExtGasUsed: uint64(21000), "rows_max": uint64(math.MaxUint64)}}},
		shell("ls -la", 9),
	}
	l := logtest.Write(t, recorder.Options{Recorder: "incident", Encrypt: true, EpochSize: 4, EpochMaxAge: -1, Sync: recorder.SyncNone}, evs)
	kr, err := recorder.OpenKeyring(l.Dir+"/keys", l.Manifest.Session)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close() })
	lg := &testLog{dir: l.Dir, keys: kr, man: l.Manifest}
	return lg, map[uint64]bool{3: true, 5: true, 7: true, 8: true, 10: true}
}

func TestQueries(t *testing.T) {
	lg, truth := incident(t)
	l, _ := recorder.OpenLog(lg.dir)
	ix, err := verifier.IndexLog(l, lg.keys)
	if err != nil {
		t.Fatal(err)
	}
	seqs := func(evs []*verifier.Event) []uint64 { return verifier.Seqs(evs) }
	check := func(name string, got, want []uint64) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	check("tool", seqs(ix.Find(verifier.Query{Tool: "db_query"})), []uint64{10})
	check("kind", seqs(ix.Find(verifier.Query{Kind: format.KindApproval})), []uint64{8})
	check("approver", seqs(ix.Find(verifier.Query{Approver: "alice"})), []uint64{8})
	check("decision", seqs(ix.Find(verifier.Query{Decision: format.DecisionAsk})), []uint64{8})
	check("field=", seqs(ix.Find(verifier.Query{Fields: []verifier.FieldMatch{{Path: "intent.args.cmd", Value: "ls"}}})), []uint64{0})
	check("field~", seqs(ix.Find(verifier.Query{Fields: []verifier.FieldMatch{{Path: "intent.args.sql", Op: verifier.OpContains, Value: "DROP"}}})), []uint64{10})
	check("nested field", seqs(ix.Find(verifier.Query{Fields: []verifier.FieldMatch{{Path: "effects.0.db_change.table", Value: "users"}}})), []uint64{10})
	check("input source", seqs(ix.Find(verifier.Query{Fields: []verifier.FieldMatch{{Path: "context.inputs.0.source", Op: verifier.OpContains, Value: "web:"}}})), []uint64{3})
	all := ix.Find(verifier.Query{})
	mid := time.Unix(0, all[6].Envelope.Time)
	check("time range", seqs(ix.Find(verifier.Query{Tool: "shell", Since: mid})), []uint64{6, 7, 9, 11})
	check("combined", seqs(ix.Find(verifier.Query{Tool: "shell", Until: mid})), []uint64{0, 1, 2, 4})

	// Causal chain from the destructive action: precision and recall 1.0
	// against the incident's ground truth.
	evs, links, err := ix.CausalChain(10)
	if err != nil {
		t.Fatal(err)
	}
	var tp int
	for _, ev := range evs {
		if truth[ev.Seq] {
			tp++
		}
	}
	if precision, recall := float64(tp)/float64(len(evs)), float64(tp)/float64(len(truth)); precision != 1 || recall != 1 {
		t.Fatalf("causal chain %v: precision %.2f recall %.2f", seqs(evs), precision, recall)
	}
	if len(links) != 6 { // 3→5 twice: as context and as the delegation's parent
		t.Fatalf("links %v", links)
	}
	chain, _ := ix.DelegationChain(10)
	if len(chain) != 1 || chain[0].Delegator != "agent:lead" || chain[0].Delegate != "agent:ops" || chain[0].Seq != 5 {
		t.Fatalf("delegation chain %+v", chain)
	}
	if ds := ix.Delegations("agent:ops"); len(ds) != 1 {
		t.Fatalf("delegations of agent:ops: %+v", ds)
	}
	if _, _, err := ix.CausalChain(99); err == nil {
		t.Fatal("causal chain of an unknown event")
	}

	// A query answer carries its proofs: disclose the causal chain and
	// verify the bundle; the same queries run over the bundle.
	b, err := verifier.Disclose(l, seqs(evs), verifier.DiscloseOptions{Keys: lg.keys})
	if err != nil {
		t.Fatal(err)
	}
	anchors, _ := verifier.AnchorsFromLog(l)
	rep, err := verifier.VerifyBundle(context.Background(), b, verifier.AnchorList(anchors), verifier.Options{Payloads: verifier.PayloadsOpen})
	if err != nil || rep.Verdict != verifier.Verified {
		t.Fatalf("answer bundle: %v %v", err, rep.Findings)
	}
	bx := verifier.IndexBundle(b)
	bevs, _, _ := bx.CausalChain(10)
	check("causal chain over the bundle", seqs(bevs), seqs(evs))
	check("approver over the bundle", seqs(bx.Find(verifier.Query{Approver: "alice"})), []uint64{8})

	// Without keys an encrypted log's payloads are unknown: payload
	// conditions match nothing, envelope conditions still work.
	nokeys, _ := verifier.IndexLog(l, nil)
	check("no keys: approver", seqs(nokeys.Find(verifier.Query{Approver: "alice"})), []uint64{})
	check("no keys: tool", seqs(nokeys.Find(verifier.Query{Tool: "db_query"})), []uint64{10})
}

// The conditions an incident responder combines: OR, ranges, wildcards
// into lists, numeric comparisons, context around matches.
func TestQueryConditions(t *testing.T) {
	lg, _ := incident(t)
	l, _ := recorder.OpenLog(lg.dir)
	ix, err := verifier.IndexLog(l, lg.keys)
	if err != nil {
		t.Fatal(err)
	}
	conds := func(ss ...string) []verifier.FieldMatch {
		var out []verifier.FieldMatch
		for _, s := range ss {
			f, err := verifier.ParseFieldMatch(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, f)
		}
		return out
	}
	seqRange := func(s string) *verifier.SeqRange {
		r, err := verifier.ParseSeqRange(s)
		if err != nil {
			t.Fatal(err)
		}
		return &r
	}
	for _, c := range []struct {
		name string
		q    verifier.Query
		want []uint64
	}{
		{"or", verifier.Query{Any: conds("intent.args.cmd=ls", "intent.args.sql~DROP")}, []uint64{0, 10}},
		{"or and and", verifier.Query{Tool: "shell", Any: conds("intent.args.cmd=ls", "intent.args.sql~DROP")}, []uint64{0}},
		{"where and or", verifier.Query{Fields: conds("context.parents.*>=5"), Any: conds("intent.args.cmd~psql", "intent.args.cmd~echo")}, []uint64{7, 9}},
		{"seq range", verifier.Query{Tool: "shell", Seq: seqRange("3..7")}, []uint64{4, 6, 7}},
		{"seq from", verifier.Query{Seq: seqRange("10..")}, []uint64{10, 11}},
		{"seq to", verifier.Query{Seq: seqRange("..1")}, []uint64{0, 1}},
		{"one seq", verifier.Query{Seq: seqRange("5")}, []uint64{5}},
		{"times beyond int64 nanoseconds", verifier.Query{Seq: seqRange("5"), Since: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)}, []uint64{5}},
		{"wildcard into a list", verifier.Query{Fields: conds("effects.*.db_change.table=users")}, []uint64{10}},
		{"wildcard, any element", verifier.Query{Fields: conds("context.parents.*=7")}, []uint64{8, 10}},
		{"wildcard into a map", verifier.Query{Fields: conds("intent.args.*~runbook")}, []uint64{3}},
		{">=", verifier.Query{Fields: conds("context.parents.*>=8")}, []uint64{10, 11}},
		{"<", verifier.Query{Fields: conds("context.parents.*<2")}, []uint64{2}},
		{"<=, > together", verifier.Query{Fields: conds("context.parents.0>2", "context.parents.0<=4")}, []uint64{5, 6}},
		{"!= on numbers", verifier.Query{Fields: conds("context.parents.0!=7.0")}, []uint64{2, 4, 5, 6, 7, 9, 11}},
		{"!= on text", verifier.Query{Fields: conds("intent.args.cmd!=ls")}, []uint64{1, 2, 4, 6, 7, 9, 11}},
		{"= stays exact", verifier.Query{Fields: conds("context.parents.0=7.0")}, []uint64{}},
		{"< on text matches nothing", verifier.Query{Fields: conds("intent.args.cmd<5")}, []uint64{}},
		{"dotted ext key", verifier.Query{Fields: conds("ext.chain.gas_used>20999")}, []uint64{10}},
		{"uint64 exactly", verifier.Query{Fields: conds("ext.rows_max>18446744073709551614", "ext.rows_max=18446744073709551615")}, []uint64{10}},
		{"uint64 exactly, not rounded", verifier.Query{Fields: conds("ext.rows_max<18446744073709551616", "ext.rows_max!=18446744073709551616")}, []uint64{10}},
	} {
		if got := verifier.Seqs(ix.Find(c.q)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}

	// Context around matches, as grep -B1 -A1: each event once, in order,
	// matches unmarked.
	hits := ix.Around(ix.Find(verifier.Query{Any: conds("intent.args.query=runbook", "intent.args.sql~DROP")}), 1, 1)
	var got []string
	for _, h := range hits {
		s := strconv.FormatUint(h.Seq, 10)
		if h.Context {
			s += "-"
		}
		got = append(got, s)
	}
	if want := "2- 3 4- 9- 10 11-"; strings.Join(got, " ") != want {
		t.Errorf("around: got %v, want %s", got, want)
	}
	hits = ix.Around(ix.Find(verifier.Query{Seq: seqRange("0..1")}), 3, 0)
	if len(hits) != 2 || hits[0].Context || hits[1].Context {
		t.Errorf("around at the start of the log: %+v", hits)
	}
}

// A condition that names a field the payload cannot have is an error that
// names it and the fields known there, not a query that matches nothing.
func TestFieldMatchErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"intent.cmd=ls", `intent.cmd: unknown field (want one of tool, args, chain_id, target, value, data)`},
		{"intnet.args.cmd=ls", `intnet: unknown field (want one of intent, policy, approval, execution, effects, context, code, delegation, ext, content)`},
		{"effects.*.file_write.pth~/etc", `effects.*.file_write.pth: unknown field (want one of path, before, after)`},
		{"effects.first.file_write.path=a", `effects.first: effects is a list: name an element by its index (0, 1, …) or * (any element)`},
		{"intent.tool.name=x", `intent.tool.name: intent.tool is a string, it has no fields`},
		{"execution.exit_code>zero", `> compares numbers, and "zero" is not one`},
		{"execution.exit_code<0x10", `< compares numbers, and "0x10" is not one`},
		{"intent..tool=x", `empty part in the field path`},
		{"intent.tool!x", `"!" is not an operator`},
		{"intent.tool", `want PATH=VALUE`},
		{"=ls", `want PATH=VALUE`},
	} {
		_, err := verifier.ParseFieldMatch(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want …%s…", c.in, err, c.want)
		}
	}
	for _, ok := range []string{"intent.args.anything=1", "ext.x.y.z~a", "effects.3.chain_log.topics.*=0x01", "execution.exit_code>=-1.5e2", "intent.args.cmd=a=b<c"} {
		if _, err := verifier.ParseFieldMatch(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"5..3", "is empty"}, {"..", "is empty"}, {"a..3", `"a" is not a sequence number`}, {"3..-1", `"-1" is not`}, {"", "is empty"},
	} {
		_, err := verifier.ParseSeqRange(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("seq range %q: got %v, want …%s…", c.in, err, c.want)
		}
	}
}
