package anchor

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/contracts/bindings"
	"github.com/agentflightrecorder/afr/format"
)

// step is one round against the chain: pending entries are walked one
// transaction at a time (a run of entries, or one), in order.
func (s *submitter) step(ctx context.Context) error {
	head, err := s.c.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("block number: %w", err)
	}
	if err := s.watchConfirmed(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	pending := append([]*Entry(nil), s.q.Pending...)
	s.mu.Unlock()
	allMined := true
	// Only this goroutine changes entries, so they are read here without
	// the lock.
	for i := 0; i < len(pending); {
		e := pending[i]
		n := max(e.Run, 1)
		switch e.State {
		case StateMined:
			if err := s.checkMined(ctx, e, i == 0, head); err != nil {
				return err
			}
		case StateSent:
			allMined = false
			if err := s.checkSent(ctx, e); err != nil {
				return err
			}
		case StateQueued:
			if !allMined {
				return nil
			}
			// Send it with the queued entries after it, up to maxRun.
			j := i + 1
			for j < len(pending) && j-i < s.maxRun && pending[j].State == StateQueued {
				j++
			}
			return s.submit(ctx, pending[i:j])
		}
		i += n
	}
	return nil
}

// watchConfirmed re-queues confirmed epochs that the chain no longer holds
// (a reorg deeper than the confirmation depth, or a chain reset). Epochs
// the queue has trimmed come back from their source (s.rebuild), checked
// against the trimmed root.
func (s *submitter) watchConfirmed(ctx context.Context) error {
	s.mu.Lock()
	confirmed, trimmed, troot := s.q.Confirmed(), s.q.Trimmed, s.q.TrimmedRoot
	s.mu.Unlock()
	if confirmed == 0 {
		return nil
	}
	next, err := s.nextEpoch(ctx)
	if err != nil {
		return err
	}
	if next >= confirmed {
		return nil
	}
	s.opts.Logf("anchor: DEEP REORG: the chain holds %s up to %d only, %d..%d were confirmed; re-anchoring them", s.units(), int64(next)-1, next, confirmed-1)
	var older []*Entry // the trimmed entries from next − 1 (when next > 0) on
	if next < trimmed {
		if older, err = s.rebuildTrimmed(next-min(next, 1), trimmed, troot); err != nil {
			return err
		}
	}
	return s.update(func() {
		back := older
		if next < trimmed {
			s.q.Trimmed, s.q.TrimmedRoot, s.q.TrimmedEvents = next, format.Digest{}, 0
			if next > 0 {
				s.q.TrimmedRoot, s.q.TrimmedEvents, back = older[0].Root, older[0].FirstSeq+older[0].Count, older[1:]
			}
		}
		var keep []Anchored
		for _, an := range s.q.Anchored {
			if an.Epoch < next {
				keep = append(keep, an)
				continue
			}
			back = append(back, &Entry{Epoch: an.Epoch, Root: an.Root, PrevRoot: an.PrevRoot, FirstSeq: an.FirstSeq, Count: an.Count,
				Sealed: an.Sealed, Queued: s.opts.Now(), State: StateQueued})
		}
		for _, e := range s.q.Pending {
			e.State, e.Run, e.Txs, e.Tx = StateQueued, 0, nil, common.Hash{}
		}
		s.q.Anchored, s.q.Pending = keep, append(back, s.q.Pending...)
	})
}

// rebuildTrimmed reads the trimmed entries from to to − 1 from their
// source: each linked to the one before it, the last with root last (the
// queue's trimmed_root). Anything else is an ErrDeepReorg.
func (s *submitter) rebuildTrimmed(from, to uint64, last format.Digest) ([]*Entry, error) {
	fail := func(f string, a ...any) error {
		return fmt.Errorf("%w: %s %d..%d: %s", ErrDeepReorg, s.units(), from, to-1, fmt.Sprintf(f, a...))
	}
	if s.rebuild == nil {
		return nil, fail("no source to read them from")
	}
	es, err := s.rebuild(from, to)
	if err != nil {
		return nil, fail("%v", err)
	}
	if uint64(len(es)) != to-from {
		return nil, fail("%d of %d read", len(es), to-from)
	}
	for i, e := range es {
		if e.Epoch != from+uint64(i) || (i > 0 && e.PrevRoot != es[i-1].Root) {
			return nil, fail("%s %d (prev_root %s) read where %s %d comes next", s.unit, e.Epoch, e.PrevRoot, s.unit, from+uint64(i))
		}
	}
	if r := es[len(es)-1].Root; r != last {
		return nil, fail("%s has root %s, the queue's trimmed_root is %s (re-sealed differently?)", s.name(to-1), r, last)
	}
	return es, nil
}

// checkMined checks the transaction of the run starting at e, mined: back
// to sent if its block left the chain, confirmed — every entry of the run —
// once deep enough, when first (nothing before it is pending).
func (s *submitter) checkMined(ctx context.Context, e *Entry, first bool, head uint64) error {
	rc, err := s.c.TransactionReceipt(ctx, e.Tx)
	if err != nil && !errors.Is(err, ethereum.NotFound) {
		return fmt.Errorf("receipt of %s: %w", s.name(e.Epoch), err)
	}
	canonical := false
	if rc != nil && rc.BlockHash == e.BlockHash {
		h, err := s.c.HeaderByNumber(ctx, new(big.Int).SetUint64(e.Block))
		if err != nil {
			return fmt.Errorf("header %d: %w", e.Block, err)
		}
		canonical = h.Hash() == e.BlockHash
	}
	if !canonical {
		s.opts.Logf("anchor: reorg: the anchor of %s (tx %s, block %d) left the chain; re-submitting", s.span(e), e.Tx, e.Block)
		return s.update(func() {
			for _, m := range s.runAt(e.Epoch) {
				m.State, m.Tx, m.Block, m.BlockHash, m.SentAt = StateSent, common.Hash{}, 0, common.Hash{}, time.Time{}
			}
		})
	}
	if !first || head+1 < e.Block+s.opts.Confirmations {
		return nil
	}
	return s.update(func() {
		now := s.opts.Now()
		run := s.runAt(e.Epoch)
		n := uint64(len(run))
		for i, m := range run {
			gas := e.GasUsed / n
			if i == 0 {
				gas += e.GasUsed % n
			}
			an := Anchored{Epoch: m.Epoch, Root: m.Root, PrevRoot: m.PrevRoot, FirstSeq: m.FirstSeq, Count: m.Count,
				Events: m.FirstSeq + m.Count, Tx: e.Tx, Block: e.Block, BlockHash: e.BlockHash, GasUsed: gas, Submissions: len(e.Txs),
				Sealed: m.Sealed, FirstSent: e.FirstSent, Mined: e.Mined, Confirmed: now}
			if n > 1 {
				an.Run = int(n)
			}
			s.q.Anchored = append(s.q.Anchored, an)
		}
		s.q.Pending = s.q.Pending[n:]
		s.opts.Logf("anchor: %s confirmed (%d blocks deep, tx %s, %d gas)", s.span(e), s.opts.Confirmations, e.Tx, e.GasUsed)
	})
}

// span names the entries of the run starting at e in messages: "epoch 5",
// "epochs 5..9".
func (s *submitter) span(e *Entry) string {
	if e.Run <= 1 {
		return s.name(e.Epoch)
	}
	return fmt.Sprintf("%s %d..%d", s.units(), e.Epoch, e.Epoch+uint64(e.Run)-1)
}

// runAt returns the pending entries one transaction anchors from epoch on:
// its entry and the Run − 1 after it, or nothing when epoch is no longer
// pending (callers hold s.mu).
func (s *submitter) runAt(epoch uint64) []*Entry {
	i := s.indexOf(epoch)
	if i < 0 {
		return nil
	}
	return s.q.Pending[i:min(i+max(s.q.Pending[i].Run, 1), len(s.q.Pending))]
}

// mined records that rc, a successful transaction, anchored the run that
// starts at epoch. What it anchored is read from its Anchored events of
// this operator and log, with their roots: a root that is not ours is a
// *ForeignAnchorError; entries of the run that rc does not hold (an earlier
// transaction of ours for a shorter run landed instead) go back to queued,
// and queued entries after the run that it does hold (one for a longer run)
// join it.
func (s *submitter) mined(epoch uint64, rc *types.Receipt) error {
	got := map[uint64]format.Digest{}
	for _, l := range rc.Logs {
		if l.Address != s.opts.Contract {
			continue
		}
		if ev, err := s.abi.UnpackAnchoredEvent(l); err == nil && ev.Operator == s.op && format.Digest(ev.LogId) == s.log {
			got[ev.Epoch] = format.Digest(ev.Root)
		}
	}
	s.mu.Lock()
	for _, m := range s.q.Pending {
		if r, ok := got[m.Epoch]; ok && r != m.Root {
			s.mu.Unlock()
			return &ForeignAnchorError{Operator: s.op, Log: s.log, Epoch: m.Epoch, Ours: m.Root, Theirs: r, Tx: rc.TxHash, Block: rc.BlockNumber.Uint64()}
		}
	}
	s.mu.Unlock()
	return s.update(func() {
		run := s.runAt(epoch)
		if len(run) == 0 {
			return // gone meanwhile
		}
		i, k := s.indexOf(epoch), 0
		for i+k < len(s.q.Pending) {
			m := s.q.Pending[i+k]
			if r, ok := got[m.Epoch]; !ok || r != m.Root || (k >= len(run) && m.State != StateQueued) {
				break
			}
			k++
		}
		if k == 0 {
			return // rc holds not this epoch: the next round asks the chain again
		}
		for _, m := range run[min(k, len(run)):] {
			m.State, m.Run, m.Txs, m.Tx, m.SentAt = StateQueued, 0, nil, common.Hash{}, time.Time{}
		}
		if k < len(run) {
			s.opts.Logf("anchor: tx %s anchored %s %d..%d only; sending %d..%d again", rc.TxHash, s.units(), epoch, epoch+uint64(k)-1, epoch+uint64(k), epoch+uint64(len(run))-1)
		}
		mined := s.q.Pending[i : i+k]
		for _, m := range mined {
			m.State, m.Run, m.Tx, m.Block, m.BlockHash, m.GasUsed, m.Mined = StateMined, 0, rc.TxHash, rc.BlockNumber.Uint64(), rc.BlockHash, rc.GasUsed, s.opts.Now()
			m.Nonce, m.FirstSent, m.SentAt = mined[0].Nonce, mined[0].FirstSent, mined[0].SentAt
			if m != mined[0] {
				m.Txs = nil
			}
		}
		if k > 1 {
			mined[0].Run = k
		}
	})
}

// indexOf returns the index of epoch among the pending entries, or −1
// (callers hold s.mu).
func (s *submitter) indexOf(epoch uint64) int {
	for i, e := range s.q.Pending {
		if e.Epoch == epoch {
			return i
		}
	}
	return -1
}

// resolve asks the chain what happened to an epoch whose transaction did not
// simply succeed: anchored by us after all, anchored by someone else, or not
// anchored (send it again).
func (s *submitter) resolve(ctx context.Context, e *Entry) error {
	next, err := s.nextEpoch(ctx)
	if err != nil {
		return err
	}
	if next > e.Epoch {
		ev, err := s.findAnchored(ctx, e.Epoch)
		if err != nil {
			return err
		}
		if ev == nil {
			return fmt.Errorf("%s: the chain's next %s is %d but no Anchored event was found yet", s.name(e.Epoch), s.unit, next)
		}
		if ev.Root != e.Root {
			return &ForeignAnchorError{Operator: s.op, Log: s.log, Epoch: e.Epoch, Ours: e.Root, Theirs: format.Digest(ev.Root),
				Tx: ev.Raw.TxHash, Block: ev.Raw.BlockNumber, ChainNext: next}
		}
		rc, err := s.c.TransactionReceipt(ctx, ev.Raw.TxHash)
		if err != nil {
			return fmt.Errorf("receipt of %s: %w", s.name(e.Epoch), err)
		}
		s.opts.Logf("anchor: %s is on chain from an earlier submission (tx %s)", s.name(e.Epoch), ev.Raw.TxHash)
		return s.mined(e.Epoch, rc)
	}
	s.opts.Logf("anchor: %s not on chain (chain expects %d); sending again with a fresh nonce", s.span(e), next)
	return s.update(func() {
		for _, m := range s.runAt(e.Epoch) {
			m.State, m.Run = StateQueued, 0
		}
	})
}

func (s *submitter) nextEpoch(ctx context.Context) (uint64, error) {
	out, err := s.c.CallContract(ctx, ethereum.CallMsg{To: &s.opts.Contract, Data: s.abi.PackNextEpoch(s.op, s.log)}, nil)
	if err != nil {
		return 0, fmt.Errorf("nextEpoch: %w", err)
	}
	if len(out) == 0 {
		return 0, fmt.Errorf("nextEpoch: no contract at %s (chain reset?)", s.opts.Contract)
	}
	return s.abi.UnpackNextEpoch(out)
}

// findAnchored returns the Anchored event of (operator, log, epoch), or nil.
func (s *submitter) findAnchored(ctx context.Context, epoch uint64) (*bindings.EpochAnchorAnchored, error) {
	id := [32]byte(s.log)
	evs, err := chain.FilterAnchored(ctx, s.c, chain.AnchoredQuery{Contract: s.opts.Contract, Operator: &s.op, LogID: &id, Epoch: &epoch, FromBlock: s.opts.FromBlock})
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 {
		return nil, nil
	}
	return evs[len(evs)-1], nil
}
