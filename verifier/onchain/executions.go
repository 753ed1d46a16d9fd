package onchain

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/calldata"
	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/verifier"
)

// Executions is the on-chain completeness check of a PaceSmartAccount, a
// verifier.Completeness: every Executed event of the account must name (by
// event id) a chain_tx event of the log whose recorded intent matches the
// call.
//
// The event id bound in a PDR is the record digest (format.RecordDigest)
// of the event that recorded the intent: the agent records the intent,
// then has the PDR signed for that digest (docs/SPEC.md, "On-chain
// completeness"). Encrypted payloads are read with verifier.Options.Keys;
// without them only the event ids of an encrypted log are checked (a
// notice says so).
type Executions struct {
	Client  ChainReader
	Account common.Address
	// FromBlock is where the event search starts.
	FromBlock uint64
	// Registry decodes calldata for the intent comparison; nil means one
	// with the PaceSmartAccount and EpochAnchor ABIs. It must know the ABIs
	// the agent decoded its intents with, or functions and arguments differ.
	Registry *calldata.Registry
	// Slack is the clock tolerance between block timestamps and seal times
	// (default 60s): an execution counts as before an epoch's seal only if
	// its block is older than the seal by more than Slack.
	Slack time.Duration
}

// DefaultRegistry returns a registry with AFR's contract ABIs.
func DefaultRegistry() *calldata.Registry {
	r := calldata.NewRegistry()
	_ = r.Add("PaceSmartAccount", "", bindings.NewPaceSmartAccount().GetABI())
	_ = r.Add("EpochAnchor", "", bindings.NewEpochAnchor().GetABI())
	return r
}

// Check implements verifier.Completeness.
func (x Executions) Check(ctx context.Context, ix *verifier.Index, rep *verifier.Report) (*verifier.ExecutionReport, []verifier.Finding, error) {
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
		return nil, nil, fmt.Errorf("executions: %w", err)
	}
	// Topics 1 and 2 (the PDR hash and the event id) are any; a log of
	// another account or event is the node's error.
	logs, err := chain.FilterEvent(ctx, x.Client, x.Account, pdr.ExecutedTopic, []*common.Hash{nil, nil}, x.FromBlock, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("executions: %w", err)
	}
	var sealedAt time.Time // seal time of the last anchored epoch
	if hs := ix.Headers(); rep.AnchoredEpochs > 0 && int(rep.AnchoredEpochs) <= len(hs) {
		sealedAt = time.Unix(0, hs[rep.AnchoredEpochs-1].Time)
	}
	type exec struct {
		ev  *pdr.Executed
		log types.Log
		r   *verifier.Event // nil: no event of the log has its id
	}
	var execs []exec
	for i := range logs {
		ev, err := pdr.ParseExecuted(&logs[i])
		if err != nil {
			return nil, nil, fmt.Errorf("executions: tx %s: %w", logs[i].TxHash, err)
		}
		r, _ := ix.ByDigest(format.Digest(ev.EventID))
		execs = append(execs, exec{ev, logs[i], r})
	}
	var fs []verifier.Finding
	add := func(f verifier.Finding) { fs = append(fs, f) }
	out := &verifier.ExecutionReport{Executions: len(execs)}
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
			f := verifier.Finding{Kind: verifier.KindExecMismatch, Expected: "one PDR per recorded intent", Found: fmt.Sprintf("%d PDRs", n),
				Detail: where + ": this event id was executed under several PDRs, so one recorded intent covers more than one execution"}
			if e.r != nil {
				f.Seq, f.Epoch = u64(e.r.Seq), u64(e.r.Epoch)
			}
			add(f)
			continue
		}
		if e.r == nil {
			bt, ok := blockTimes[e.log.BlockNumber]
			if !ok {
				h, err := x.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(e.log.BlockNumber))
				if err != nil {
					return nil, nil, fmt.Errorf("executions: block %d: %w", e.log.BlockNumber, err)
				}
				bt = time.Unix(int64(h.Time), 0)
				blockTimes[e.log.BlockNumber] = bt
			}
			if !sealedAt.IsZero() && bt.Add(x.Slack).Before(sealedAt) {
				add(verifier.Finding{Kind: verifier.KindExecUnrecorded, Detail: where + fmt.Sprintf(": no event of the log has this id, yet the log was anchored through an epoch sealed at %s, after this execution (%s)",
					sealedAt.UTC().Format(time.RFC3339), bt.UTC().Format(time.RFC3339))})
			} else {
				add(verifier.Finding{Kind: verifier.KindExecAfterLog, Detail: where + ": no event of the log has this id; the execution is after the last anchored epoch"})
			}
			continue
		}
		out.Recorded++
		seq, epoch := u64(e.r.Seq), u64(e.r.Epoch)
		if e.r.Envelope.Kind != format.KindChainTx {
			add(verifier.Finding{Kind: verifier.KindExecMismatch, Seq: seq, Epoch: epoch, Expected: format.KindChainTx.String(), Found: e.r.Envelope.Kind.String(),
				Detail: where + ": the event with this id is not a chain_tx event"})
			continue
		}
		if e.r.Payload == nil {
			out.Unchecked++
			continue
		}
		if e.r.Payload.Intent == nil {
			add(verifier.Finding{Kind: verifier.KindExecMismatch, Seq: seq, Epoch: epoch, Detail: where + ": the event records no intent"})
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
			return nil, nil, err
		}
		var diffs []calldata.Difference
		if decoded {
			diffs = calldata.CompareIntent(*e.r.Payload.Intent, obs)
		} else {
			diffs = compareShallow(*e.r.Payload.Intent, e.ev)
		}
		if len(diffs) > 0 {
			add(verifier.Finding{Kind: verifier.KindExecMismatch, Seq: seq, Epoch: epoch, Expected: diffs[0].Recorded, Found: diffs[0].Observed,
				Detail: fmt.Sprintf("%s: the recorded intent differs from the execution in %d field(s), first %s", where, len(diffs), diffs[0].Field)})
			continue
		}
		out.Matched++
	}
	if out.Unchecked > 0 {
		add(verifier.Finding{Kind: verifier.KindExecUnchecked, Detail: fmt.Sprintf("%d executions found by event id, their intents not compared: calls of a batch, or encrypted payloads and no keys (hint: --keys)", out.Unchecked)})
	}
	return out, fs, nil
}

func u64(v uint64) *uint64 { return &v }

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
