package verifier

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/agentflightrecorder/afr/calldata"

	"github.com/agentflightrecorder/afr/format"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/recorder/segment"
)

// ChainReader is what the chain checks read: events, calls and
// transactions. go-ethereum's ethclient and simulated clients implement it.
type ChainReader interface {
	ethereum.BlockNumberReader
	ethereum.LogFilterer
	ethereum.ContractCaller
	ethereum.TransactionReader
	ethereum.ChainReader
	ethereum.ChainIDReader
}

// ChainAnchors is an AnchorSource reading one operator's anchors from an
// EpochAnchor contract: its Anchored events (operator indexed), cross-checked
// with the contract's current head for that operator, so a node that hides
// the latest events is noticed.
type ChainAnchors struct {
	Client   ChainReader
	Contract common.Address
	Operator common.Address
	// FromBlock is where the event search starts (the deployment block).
	FromBlock uint64
}

// Anchors implements AnchorSource. Source is "chain tx 0x… block N".
//
// Events and head are read at one block (the latest when the call starts),
// so an anchor mined meanwhile cannot make them disagree. Everything the
// node returns is checked: each event must come from the contract and name
// the operator, and the events must form the contract's chain — epochs 0..n
// without gaps, each prev_root the previous root, the last matching the
// head. A node that omits, invents or misfilters events is an error (with a
// hint), never a finding against the operator.
func (c ChainAnchors) Anchors(ctx context.Context) ([]Anchor, error) {
	ea := bindings.NewEpochAnchor()
	at, err := c.Client.BlockNumber(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain anchors: block number: %w", err)
	}
	block := new(big.Int).SetUint64(at)
	topic := ea.GetABI().Events["Anchored"].ID
	operator := common.BytesToHash(c.Operator[:])
	logs, err := chain.FilterLogs(ctx, c.Client, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(c.FromBlock), ToBlock: block,
		Addresses: []common.Address{c.Contract}, Topics: [][]common.Hash{{topic}, {operator}}})
	if err != nil {
		return nil, fmt.Errorf("chain anchors: %w", err)
	}
	out := make([]Anchor, 0, len(logs))
	for i := range logs {
		l := &logs[i]
		if l.Removed {
			continue
		}
		if l.Address != c.Contract || len(l.Topics) < 2 || l.Topics[0] != topic || l.Topics[1] != operator {
			return nil, fmt.Errorf("chain anchors: the node returned a log of another contract or operator (tx %s): it does not filter as asked (hint: use another node)", l.TxHash)
		}
		ev, err := ea.UnpackAnchoredEvent(l)
		if err != nil {
			return nil, fmt.Errorf("chain anchors: Anchored event in tx %s: %w", l.TxHash, err)
		}
		a := Anchor{Epoch: ev.Epoch, Root: format.Digest(ev.Root), PrevRoot: format.Digest(ev.PrevRoot),
			Source: fmt.Sprintf("chain tx %s block %d", l.TxHash, l.BlockNumber)}
		// EpochAnchor accepts epoch t only on top of t−1: its events are a
		// chain, and anything else is the node's doing.
		if want := uint64(len(out)); a.Epoch != want {
			return nil, fmt.Errorf("chain anchors: the node's events jump from epoch %d to %d: its event history is incomplete (hint: use an archive node or an earlier --from-block)", int64(want)-1, a.Epoch)
		}
		if n := len(out); n > 0 && out[n-1].Root != a.PrevRoot {
			return nil, fmt.Errorf("chain anchors: the node's event for epoch %d does not link to epoch %d: its event history is inconsistent (hint: use another node)", a.Epoch, n-1)
		}
		out = append(out, a)
	}
	res, err := c.Client.CallContract(ctx, ethereum.CallMsg{To: &c.Contract, Data: ea.PackHead(c.Operator)}, block)
	if err != nil {
		return nil, fmt.Errorf("chain anchors: head: %w", err)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("chain anchors: no EpochAnchor at %s", c.Contract)
	}
	head, err := ea.UnpackHead(res)
	if err != nil {
		return nil, fmt.Errorf("chain anchors: head: %w", err)
	}
	n := len(out)
	switch {
	case !head.Anchored && n == 0:
	case head.Anchored != (n > 0) || head.Epoch != out[n-1].Epoch || head.Commitment != bindings.AnchorCommitment(out[n-1].Epoch, out[n-1].Root):
		found := "no events"
		if n > 0 {
			found = fmt.Sprintf("events up to epoch %d", out[n-1].Epoch)
		}
		return nil, fmt.Errorf("chain anchors: the contract's head for %s at block %d (anchored %v, epoch %d) does not match its %s: the node's event history is incomplete (hint: use an archive node or an earlier --from-block)",
			c.Operator, at, head.Anchored, head.Epoch, found)
	}
	return out, nil
}

// Executions configures the on-chain completeness check of a
// PaceSmartAccount: every Executed event of the account must name (by event
// id) a chain_tx event of the log whose recorded intent matches the call.
//
// The event id bound in a PDR is the record digest (format.RecordDigest)
// of the event that recorded the intent: the agent records the intent,
// then has the PDR signed for that digest (docs/SPEC.md, "On-chain
// completeness").
type Executions struct {
	Client  ChainReader
	Account common.Address
	// FromBlock is where the event search starts.
	FromBlock uint64
	// Registry decodes calldata for the intent comparison; nil means one
	// with the PaceSmartAccount and EpochAnchor ABIs. It must know the ABIs
	// the agent decoded its intents with, or functions and arguments differ.
	Registry *calldata.Registry
	// Keys open encrypted payloads; without them only the event ids of an
	// encrypted log are checked (a notice says so).
	Keys Keys
	// Slack is the clock tolerance between block timestamps and seal times
	// (default 60s): an execution counts as before an epoch's seal only if
	// its block is older than the seal by more than Slack.
	Slack time.Duration
}

// ExecutionReport summarises a completeness check.
type ExecutionReport struct {
	Executions int `json:"executions"` // Executed events read
	Recorded   int `json:"recorded"`   // whose event id is in the log
	Matched    int `json:"matched"`    // whose recorded intent matches the call
	Unchecked  int `json:"unchecked"`  // found by event id, payload not readable
}

// DefaultRegistry returns a registry with AFR's contract ABIs.
func DefaultRegistry() *calldata.Registry {
	r := calldata.NewRegistry()
	_ = r.Add("PaceSmartAccount", "", bindings.NewPaceSmartAccount().GetABI())
	_ = r.Add("EpochAnchor", "", bindings.NewEpochAnchor().GetABI())
	return r
}

// CheckExecutions runs the completeness check of x against the log src and
// adds its findings to rep (which must come from VerifyLog of the same log
// against the chain's anchors), updating the verdict.
func CheckExecutions(ctx context.Context, src Source, x Executions, rep *Report) (*ExecutionReport, error) {
	if x.Slack == 0 {
		x.Slack = time.Minute
	}
	reg := x.Registry
	if reg == nil {
		reg = DefaultRegistry()
	}
	_ = reg.Bind(x.Account, "PaceSmartAccount")
	chainID, err := x.Client.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("executions: %w", err)
	}
	logs, err := chain.FilterLogs(ctx, x.Client, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(x.FromBlock),
		Addresses: []common.Address{x.Account}, Topics: [][]common.Hash{{pdr.ExecutedTopic}}})
	if err != nil {
		return nil, fmt.Errorf("executions: %w", err)
	}
	// Index the log: record digest → event, and the seal time of the last
	// anchored epoch.
	type rec struct {
		seq   uint64
		epoch uint64
		env   *format.Envelope
		p     *format.Payload
		read  bool
	}
	byID := map[common.Hash]*rec{}
	bySeq := map[uint64]*rec{}
	var headers []*format.EpochHeader
	if err := src.Epochs(func(_ uint64, raw []byte) error {
		if h, err := format.DecodeEpochHeader(raw); err == nil {
			headers = append(headers, h)
		}
		return nil
	}); err != nil && !isStreamEnd(err) {
		return nil, err
	}
	epochOf := func(seq uint64) uint64 {
		return uint64(sort.Search(len(headers), func(i int) bool { return headers[i].FirstSeq+headers[i].Count > seq }))
	}
	if err := src.Records(func(seq uint64, raw []byte) error {
		e, err := format.DecodeEnvelope(raw)
		if err != nil {
			return nil
		}
		r := &rec{seq: seq, epoch: epochOf(seq), env: e}
		byID[common.Hash(format.RecordDigest(raw))] = r
		bySeq[seq] = r
		return nil
	}); err != nil && !isStreamEnd(err) {
		return nil, err
	}
	var sealedAt time.Time // seal time of the last anchored epoch
	if rep.AnchoredEpochs > 0 && int(rep.AnchoredEpochs) <= len(headers) {
		sealedAt = time.Unix(0, headers[rep.AnchoredEpochs-1].Time)
	}
	type exec struct {
		ev  *pdr.Executed
		log types.Log
		r   *rec
	}
	var execs []exec
	for i := range logs {
		if logs[i].Removed {
			continue
		}
		ev, err := pdr.ParseExecuted(&logs[i])
		if err != nil {
			return nil, fmt.Errorf("executions: tx %s: %w", logs[i].TxHash, err)
		}
		r := byID[ev.EventID]
		if r != nil {
			r.read = true
		}
		execs = append(execs, exec{ev, logs[i], r})
	}
	// Read the payloads of the events executions point at.
	if err := src.Payloads(func(seq uint64, frame []byte) error {
		r := bySeq[seq]
		if r == nil || !r.read || format.PayloadFrameDigest(frame) != r.env.Payload {
			return nil
		}
		pt, plain := format.PlainText(frame)
		switch {
		case plain:
		case x.Keys != nil:
			k, err := x.Keys.EventKey(r.epoch, seq)
			if err != nil {
				return nil
			}
			if pt, err = format.OpenPayload(&k, r.env.Session, seq, frame); err != nil {
				return nil
			}
		}
		if pt != nil {
			r.p, _ = format.DecodePayload(pt)
		}
		return nil
	}); err != nil && !isStreamEnd(err) {
		return nil, err
	}
	c := &collector{max: 1000, findings: rep.Findings, verdict: rep.Verdict}
	out := &ExecutionReport{Executions: len(execs)}
	blockTimes := map[uint64]time.Time{}
	// One recorded intent authorises one execution: an event id executed
	// under two PDRs is an action done twice and recorded once. Several
	// Executed events of one transaction under one PDR are a batch.
	pdrsOf := map[common.Hash]map[common.Hash]bool{}
	perTx := map[[2]common.Hash]int{}
	for _, e := range execs {
		if pdrsOf[e.ev.EventID] == nil {
			pdrsOf[e.ev.EventID] = map[common.Hash]bool{}
		}
		pdrsOf[e.ev.EventID][e.ev.PDRHash] = true
		perTx[[2]common.Hash{e.log.TxHash, e.ev.EventID}]++
	}
	for _, e := range execs {
		where := fmt.Sprintf("Executed in tx %s (block %d): event id %s, pdr %s", e.log.TxHash, e.log.BlockNumber, e.ev.EventID, e.ev.PDRHash)
		if n := len(pdrsOf[e.ev.EventID]); n > 1 {
			f := Finding{Kind: KindExecMismatch, Expected: "one PDR per recorded intent", Found: fmt.Sprintf("%d PDRs", n),
				Detail: where + ": this event id was executed under several PDRs, so one recorded intent covers more than one execution"}
			if e.r != nil {
				f.Seq, f.Epoch = u64(e.r.seq), u64(e.r.epoch)
			}
			c.add(f)
			continue
		}
		if e.r == nil {
			bt, ok := blockTimes[e.log.BlockNumber]
			if !ok {
				h, err := x.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(e.log.BlockNumber))
				if err != nil {
					return nil, fmt.Errorf("executions: block %d: %w", e.log.BlockNumber, err)
				}
				bt = time.Unix(int64(h.Time), 0)
				blockTimes[e.log.BlockNumber] = bt
			}
			if !sealedAt.IsZero() && bt.Add(x.Slack).Before(sealedAt) {
				c.add(Finding{Kind: KindExecUnrecorded, Detail: where + fmt.Sprintf(": no event of the log has this id, yet the log was anchored through an epoch sealed at %s, after this execution (%s)",
					sealedAt.UTC().Format(time.RFC3339), bt.UTC().Format(time.RFC3339))})
			} else {
				c.add(Finding{Kind: KindExecAfterLog, Detail: where + ": no event of the log has this id; the execution is after the last anchored epoch"})
			}
			continue
		}
		out.Recorded++
		seq := e.r.seq
		if e.r.env.Kind != format.KindChainTx {
			c.add(Finding{Kind: KindExecMismatch, Seq: u64(seq), Epoch: u64(e.r.epoch), Expected: format.KindChainTx.String(), Found: e.r.env.Kind.String(),
				Detail: where + ": the event with this id is not a chain_tx event"})
			continue
		}
		if e.r.p == nil {
			out.Unchecked++
			continue
		}
		if e.r.p.Intent == nil {
			c.add(Finding{Kind: KindExecMismatch, Seq: u64(seq), Epoch: u64(e.r.epoch), Detail: where + ": the event records no intent"})
			continue
		}
		if perTx[[2]common.Hash{e.log.TxHash, e.ev.EventID}] > 1 {
			// A batch under one PDR: the log records one intent, the chain
			// several calls; there is no batch intent to compare them with.
			out.Unchecked++
			continue
		}
		obs, decoded, err := observed(ctx, x.Client, reg, chainID.Uint64(), x.Account, e.log.TxHash, e.ev)
		if err != nil {
			return nil, err
		}
		var diffs []calldata.Difference
		if decoded {
			diffs = calldata.CompareIntent(*e.r.p.Intent, obs)
		} else {
			diffs = compareShallow(*e.r.p.Intent, e.ev)
		}
		if len(diffs) > 0 {
			c.add(Finding{Kind: KindExecMismatch, Seq: u64(seq), Epoch: u64(e.r.epoch), Expected: diffs[0].Recorded, Found: diffs[0].Observed,
				Detail: fmt.Sprintf("%s: the recorded intent differs from the execution in %d field(s), first %s", where, len(diffs), diffs[0].Field)})
			continue
		}
		out.Matched++
	}
	if out.Unchecked > 0 {
		c.add(Finding{Kind: KindExecUnchecked, Detail: fmt.Sprintf("%d executions found by event id, their intents not compared: calls of a batch, or encrypted payloads and no keys (hint: --keys)", out.Unchecked)})
	}
	rep.Findings, rep.Verdict = c.findings, c.verdict
	rep.Dropped += c.dropped
	return out, nil
}

// observed rebuilds the executed call as an intent: decoded from the
// transaction's calldata when it called the account through a known entry
// point, else from the Executed event alone (target, selector, value).
func observed(ctx context.Context, cl ChainReader, reg *calldata.Registry, chainID uint64, account common.Address, txHash common.Hash, ev *pdr.Executed) (calldata.Intent, bool, error) {
	tx, _, err := cl.TransactionByHash(ctx, txHash)
	if err != nil {
		return calldata.Intent{}, false, fmt.Errorf("executions: transaction %s: %w", txHash, err)
	}
	if to := tx.To(); to != nil && *to == account && len(tx.Data()) >= 4 && [4]byte(tx.Data()[:4]) == pdr.CompactSelector {
		// The compact entry point: decode its packed layout, then the call.
		_, call, err := pdr.ParseCompactCalldata(pdr.Domain{ChainID: chainID, Account: account}, tx.Data())
		if err != nil || call.Target != ev.Target || call.Value.Cmp(ev.Value) != 0 {
			return calldata.Intent{}, false, nil
		}
		return calldata.IntentOf(reg, chainID, account, &call.Target, call.Value, call.Data), true, nil
	}
	if to := tx.To(); to != nil && *to == account {
		from, _ := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
		in := calldata.IntentOf(reg, chainID, from, to, tx.Value(), tx.Data())
		for _, inner := range in.Inner() {
			if inner.Target != nil && *inner.Target == ev.Target && inner.Value.Big().Cmp(ev.Value) == 0 && selectorOf(inner) == ev.Selector {
				return inner, true, nil
			}
		}
	}
	return calldata.Intent{}, false, nil
}

// compareShallow compares a recorded intent with what an Executed event
// says (target, selector, value), for calls whose calldata is not decodable
// (another entry point of the account, or a relayer contract).
func compareShallow(rec format.Intent, ev *pdr.Executed) []calldata.Difference {
	var d []calldata.Difference
	add := func(f, r, o string) {
		d = append(d, calldata.Difference{Field: f, Recorded: r, Observed: o, Level: "event"})
	}
	if common.BytesToAddress(rec.Target) != ev.Target || len(rec.Target) != 20 {
		add("target", fmt.Sprintf("0x%x", []byte(rec.Target)), ev.Target.Hex())
	}
	if rv := new(big.Int).SetBytes(rec.Value); rv.Cmp(ev.Value) != 0 {
		add("value", rv.String(), ev.Value.String())
	}
	var sel [4]byte
	if len(rec.Data) >= 4 {
		copy(sel[:], rec.Data)
	}
	if sel != ev.Selector {
		add("selector", fmt.Sprintf("0x%x", sel), fmt.Sprintf("0x%x", ev.Selector))
	}
	return d
}

func selectorOf(in calldata.Intent) [4]byte {
	var s [4]byte
	if in.Call != nil && len(in.Call.Data) >= 4 {
		copy(s[:], in.Call.Data)
	}
	return s
}

// isStreamEnd reports a damaged stream end, which VerifyLog reports itself.
func isStreamEnd(err error) bool {
	var corrupt *segment.CorruptError
	var torn *segment.TornTailError
	return errors.As(err, &corrupt) || errors.As(err, &torn)
}
