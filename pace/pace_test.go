package pace_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/chain/backend"
	"github.com/agentflightrecorder/afr/chain/backend/embedded"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/logtest"
	"github.com/agentflightrecorder/afr/pace"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

var (
	vendor   = common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	stranger = common.HexToAddress("0x0000000000000000000000000000000000BadBad")
)

func milliEther(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e15)) }

// fixture is an embedded chain with a funded PaceSmartAccount (one approver,
// threshold 1), a plaintext recorder in dir and an Agent paying the vendor:
// allowed up to 10 ETH, with approval above 1 ETH; anything else denied.
type fixture struct {
	agent     *pace.Agent
	rec       *recorder.Recorder
	dir       string
	relayer   *ecdsa.PrivateKey
	approver  *ecdsa.PrivateKey
	fromBlock uint64
}

func newFixture(t testing.TB, ctx context.Context) *fixture {
	t.Helper()
	em, err := embedded.New(backend.EmbeddedOptions{BlockPeriod: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { em.Close() })
	c, keys := em.Client(), em.Keys()
	policyKey, _ := crypto.GenerateKey()
	approver, _ := crypto.GenerateKey()
	dep, err := chain.Deploy(ctx, c, keys[0], &chain.PaceConfig{Owner: chain.Address(keys[1]), PolicySigner: chain.Address(policyKey),
		Approvers: []common.Address{chain.Address(approver)}, Threshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chain.Transact(ctx, c, keys[1], dep.Pace, milliEther(5000), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := logtest.Open(t, dir, recorder.Options{Recorder: "pace-test", EpochSize: 4, Sync: recorder.SyncNone})
	a := &pace.Agent{Recorder: r, Client: c, Domain: pdr.Domain{ChainID: backend.EmbeddedChainID, Account: *dep.Pace},
		Registry: onchain.DefaultRegistry(), PolicySigner: policyKey, Name: "treasury-agent/1.0", Group: "treasury",
		Policy: &pdr.Policy{Name: "treasury", Rules: []pdr.Rule{
			{Name: "pay-vendor", Effect: format.DecisionAllow, Targets: []common.Address{vendor}, MaxValue: milliEther(10000).String(), ApprovalAbove: milliEther(1000).String()},
		}}}
	return &fixture{agent: a, rec: r, dir: dir, relayer: keys[2], approver: approver, fromBlock: dep.Block}
}

// verify closes the recorder and verifies the log with the on-chain
// completeness check, anchored by the log's own roots.
func (f *fixture) verify(t *testing.T, ctx context.Context) (*verifier.Report, *verifier.Index) {
	t.Helper()
	if err := f.rec.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := recorder.OpenLog(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := verifier.AnchorsFromLog(l)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verifier.VerifyLog(ctx, l, verifier.AnchorList(anchors), verifier.Options{
		Completeness: onchain.Executions{Client: f.agent.Client, Account: f.agent.Domain.Account, FromBlock: f.fromBlock}})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := verifier.IndexLog(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep, ix
}

func payload(t *testing.T, ix *verifier.Index, rc recorder.Receipt) *format.Payload {
	t.Helper()
	ev, ok := ix.Event(rc.Seq)
	if !ok || ev.Payload == nil {
		t.Fatalf("event %d not in the log, or no payload", rc.Seq)
	}
	if ev.Envelope.Group != "treasury" {
		t.Errorf("event %d: group %q, want treasury", rc.Seq, ev.Envelope.Group)
	}
	return ev.Payload
}

// linked reports whether the event's context names the proposal's intent.
func linked(p *pace.Proposal, pl *format.Payload) bool {
	return pl.Context != nil && len(pl.Context.Parents) > 0 && pl.Context.Parents[0] == p.IntentEvent.Seq
}

func TestAgentFlow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := newFixture(t, ctx)
	a := f.agent

	// An allowed payment executes; its outcome is recorded with the
	// receipt's logs as effects.
	allowed, err := a.Propose(ctx, pdr.Call{Target: vendor, Value: milliEther(50)})
	if err != nil {
		t.Fatal(err)
	}
	if !allowed.Evaluation.Allowed() || allowed.Evaluation.ApprovalRequired || pace.DecisionOf(&allowed.Evaluation) != format.DecisionAllow {
		t.Fatalf("evaluation %+v, want allow without approval", allowed.Evaluation)
	}
	res := a.Execute(ctx, allowed, f.relayer)
	if !res.Succeeded() || len(res.Receipt.Logs) == 0 {
		t.Fatalf("execution: %+v", res)
	}
	okOut, err := a.RecordOutcome(ctx, allowed, res)
	if err != nil {
		t.Fatal(err)
	}

	// A payment to a stranger is denied: the account refuses its PDR (in
	// simulation, nothing is sent) and the agent records the denial.
	denied, err := a.Propose(ctx, pdr.Call{Target: stranger, Value: milliEther(1000)}, allowed.IntentEvent.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if denied.Evaluation.Allowed() || pace.DecisionOf(&denied.Evaluation) != format.DecisionDeny {
		t.Fatalf("evaluation %+v, want deny", denied.Evaluation)
	}
	refused := a.Execute(ctx, denied, f.relayer)
	if refused.Receipt != nil || !refused.Reverted || !strings.HasPrefix(refused.Revert, "DecisionNotAllow(") {
		t.Fatalf("denied PDR: receipt %v, reverted %v, revert %q; want refused with DecisionNotAllow", refused.Receipt, refused.Reverted, refused.Revert)
	}
	deniedOut, err := a.RecordOutcome(ctx, denied, nil)
	if err != nil {
		t.Fatal(err)
	}

	// A payment over 1 ETH asks for approval: the approval is recorded and
	// the approved PDR executes.
	asked, err := a.Propose(ctx, pdr.Call{Target: vendor, Value: milliEther(2000)})
	if err != nil {
		t.Fatal(err)
	}
	if !asked.Evaluation.ApprovalRequired || pace.DecisionOf(&asked.Evaluation) != format.DecisionAsk {
		t.Fatalf("evaluation %+v, want ask", asked.Evaluation)
	}
	if res := a.Execute(ctx, asked, f.relayer); res.Succeeded() || !res.Reverted || res.Revert == "" {
		t.Fatalf("the PDR executed without its approval, or was not refused with a decoded error: %+v", res)
	}
	approval, err := a.Approve(ctx, asked, f.approver)
	if err != nil {
		t.Fatal(err)
	}
	approved := a.Execute(ctx, asked, f.relayer)
	if !approved.Succeeded() {
		t.Fatalf("approved PDR: %+v", approved)
	}
	askedOut, err := a.RecordOutcome(ctx, asked, approved)
	if err != nil {
		t.Fatal(err)
	}

	rep, ix := f.verify(t, ctx)
	if rep.Verdict != verifier.Verified {
		t.Fatalf("verdict %s: %v", rep.Verdict, rep.Findings)
	}
	if xr := rep.Executions; xr == nil || xr.Executions != 2 || xr.Recorded != 2 || xr.Matched != 2 || xr.Unchecked != 0 {
		t.Fatalf("executions %+v, want 2 executed, recorded and matched", xr)
	}

	// What the log says, event by event.
	in := payload(t, ix, allowed.IntentEvent)
	if in.Intent == nil || in.Code == nil || in.Code.AgentVersion != a.Name {
		t.Errorf("intent event: %+v", in)
	}
	pol := payload(t, ix, allowed.Events[1]).Policy
	if pol == nil || pol.Decision != format.DecisionAllow || pol.Rule != "pay-vendor" || len(pol.Reasons) == 0 || !strings.HasPrefix(pol.Reasons[0], "pay-vendor: ") {
		t.Errorf("policy event: %+v", pol)
	}
	if digest := allowed.PDR.PDR.Digest(); pol == nil || string(pol.PDRHash) != string(digest[:]) {
		t.Errorf("policy event does not carry the PDR digest")
	}
	out := payload(t, ix, okOut)
	if ex := out.Execution; ex == nil || ex.Status != format.StatusOK || common.BytesToHash(ex.TxHash) != res.Receipt.TxHash || ex.Block != res.Receipt.BlockNumber.Uint64() {
		t.Errorf("ok outcome: %+v", out.Execution)
	}
	if gas := out.Ext[format.ExtGasUsed]; gas != res.Receipt.GasUsed {
		t.Errorf("ok outcome records gas %v, the receipt %d", gas, res.Receipt.GasUsed)
	}
	if len(out.Effects) != len(res.Receipt.Logs) || out.Effects[0].ChainLog == nil ||
		common.BytesToAddress(out.Effects[0].ChainLog.Address) != a.Domain.Account || !linked(allowed, out) {
		t.Errorf("ok outcome effects %+v (receipt has %d logs), context %+v", out.Effects, len(res.Receipt.Logs), out.Context)
	}
	dIn := payload(t, ix, denied.IntentEvent)
	if dIn.Context == nil || len(dIn.Context.Parents) != 1 || dIn.Context.Parents[0] != allowed.IntentEvent.Seq {
		t.Errorf("denied intent's context %+v, want parent %d", dIn.Context, allowed.IntentEvent.Seq)
	}
	if pl := payload(t, ix, denied.Events[1]); pl.Policy == nil || pl.Policy.Decision != format.DecisionDeny || pl.Policy.Rule != "" {
		t.Errorf("denied policy event: %+v", pl.Policy)
	}
	if pl := payload(t, ix, deniedOut); pl.Execution == nil || pl.Execution.Status != format.StatusDenied || !linked(denied, pl) || len(pl.Effects) != 0 {
		t.Errorf("denied outcome: %+v", pl)
	}
	if pl := payload(t, ix, asked.Events[1]); pl.Policy == nil || pl.Policy.Decision != format.DecisionAsk {
		t.Errorf("asked policy event: %+v", pl.Policy)
	}
	ap := payload(t, ix, approval)
	if ap.Approval == nil || ap.Approval.Approver != chain.Address(f.approver).Hex() || ap.Approval.Decision != format.DecisionAllow || !linked(asked, ap) {
		t.Fatalf("approval event: %+v", ap)
	}
	if signer, err := pdr.Signature(ap.Approval.Signature[:64]).Recover(asked.PDR.PDR.Digest()); err != nil || signer != chain.Address(f.approver) {
		t.Errorf("approval signature recovers to %s (%v), want the approver", signer, err)
	}
	if pl := payload(t, ix, askedOut); pl.Execution == nil || pl.Execution.Status != format.StatusOK || len(pl.Effects) == 0 {
		t.Errorf("approved outcome: %+v", pl)
	}
	if n := len(asked.Events); n != 4 {
		t.Errorf("asked proposal has %d events, want intent, policy, approval, outcome", n)
	}
}

// A reverted attempt is recorded with the decoded error, and an execution
// the agent never recorded makes the log incomplete or tampered.
func TestAgentRecordsRefusalAndVerifierSeesUnrecorded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := newFixture(t, ctx)
	a := f.agent
	p, err := a.Propose(ctx, pdr.Call{Target: vendor, Value: milliEther(10)})
	if err != nil {
		t.Fatal(err)
	}
	// The agent tries the PDR for another call: the account refuses it.
	swapped := pdr.Call{Target: stranger, Value: milliEther(10)}
	bad := a.Submit(ctx, f.relayer, &p.PDR, swapped)
	if bad.Succeeded() || !bad.Reverted {
		t.Fatalf("swapped call: %+v", bad)
	}
	badOut, err := a.RecordOutcome(ctx, p, bad)
	if err != nil {
		t.Fatal(err)
	}
	// A PDR signed outside the flow, bound to no recorded event.
	terms, err := a.NextTerms(ctx, crypto.Keccak256Hash([]byte("never recorded")))
	if err != nil {
		t.Fatal(err)
	}
	terms.Decision = format.DecisionAllow
	s, err := pdr.SignPDR(a.PolicySigner, pdr.ForCall(a.Domain, swapped, terms))
	if err != nil {
		t.Fatal(err)
	}
	if res := a.Submit(ctx, f.relayer, &s, swapped); !res.Succeeded() {
		t.Fatalf("rogue execution: %+v", res)
	}
	rep, ix := f.verify(t, ctx)
	if rep.Verdict == verifier.Verified || rep.Executions == nil || rep.Executions.Executions != 1 || rep.Executions.Recorded != 0 {
		t.Fatalf("verdict %s, executions %+v; want the unrecorded execution found", rep.Verdict, rep.Executions)
	}
	pl := payload(t, ix, badOut)
	if pl.Execution == nil || pl.Execution.Status != format.StatusReverted || pl.Execution.Error != bad.Revert || bad.Revert == "" || !linked(p, pl) {
		t.Fatalf("refused outcome: %+v (revert %q)", pl.Execution, bad.Revert)
	}
}

// Example runs one payment through the flow on go-ethereum's embedded
// chain: propose (intent and decision recorded), execute, record the
// outcome.
func Example() {
	ctx := context.Background()
	em, err := embedded.New(backend.EmbeddedOptions{BlockPeriod: 50 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer em.Close()
	c, keys := em.Client(), em.Keys()
	policyKey, _ := crypto.GenerateKey()
	dep, err := chain.Deploy(ctx, c, keys[0], &chain.PaceConfig{Owner: chain.Address(keys[1]), PolicySigner: chain.Address(policyKey)})
	if err != nil {
		panic(err)
	}
	if _, err := chain.Transact(ctx, c, keys[1], dep.Pace, big.NewInt(1e18), nil); err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "pace-example-")
	defer os.RemoveAll(dir)
	r, err := recorder.Open(dir, recorder.Options{Recorder: "example"})
	if err != nil {
		panic(err)
	}
	defer r.Close()

	agent := &pace.Agent{Recorder: r, Client: c, Domain: pdr.Domain{ChainID: backend.EmbeddedChainID, Account: *dep.Pace},
		Registry: onchain.DefaultRegistry(), PolicySigner: policyKey, Name: "example-agent/1",
		Policy: &pdr.Policy{Name: "vendor-only", Rules: []pdr.Rule{{Name: "pay-vendor", Effect: format.DecisionAllow, Targets: []common.Address{vendor}}}}}
	p, err := agent.Propose(ctx, pdr.Call{Target: vendor, Value: big.NewInt(1e15)})
	if err != nil {
		panic(err)
	}
	res := agent.Execute(ctx, p, keys[2])
	if _, err := agent.RecordOutcome(ctx, p, res); err != nil {
		panic(err)
	}
	fmt.Println("decision:", pace.DecisionOf(&p.Evaluation), "executed:", res.Succeeded(), "events:", len(p.Events))
	// Output: decision: allow executed: true events: 3
}
