package evm

// Fetching a Fork's state over JSON-RPC: batching, deduplication of
// concurrent reads, retries and request counting.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

type fetchKind uint8

const (
	kindAccount fetchKind = iota
	kindStorage
	kindCode
	kindBlockHash
)

type fetchKey struct {
	kind fetchKind
	addr common.Address
	slot common.Hash // storage slot, or code hash
	num  uint64
}

type flight struct {
	done chan struct{}
	err  error
}

// batch sends elems as one JSON-RPC batch with the per-request timeout,
// retrying transport failures with exponential backoff. Errors of single
// calls are left in elems[i].Error.
func (f *Fork) batch(ctx context.Context, elems []rpc.BatchElem, what string) error {
	if f.client == nil {
		return errors.New("evm: fork has no endpoint (replay-only)")
	}
	wait := f.cfg.Backoff
	for attempt := 1; ; attempt++ {
		for i := range elems {
			elems[i].Error = nil
		}
		f.calls.Add(int64(len(elems)))
		rctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
		err := f.client.BatchCallContext(rctx, elems)
		timedOut := rctx.Err() == context.DeadlineExceeded
		cancel()
		if err == nil {
			return nil
		}
		if timedOut {
			err = fmt.Errorf("request timed out after %v: %w", f.cfg.Timeout, err)
		}
		if attempt > f.cfg.Retries || ctx.Err() != nil {
			return &RPCError{URL: f.cfg.URL, Method: elems[0].Method, What: what, Attempts: attempt, Err: err}
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return &RPCError{URL: f.cfg.URL, Method: elems[0].Method, What: what, Attempts: attempt, Err: ctx.Err()}
		}
		wait *= 2
	}
}

// Prefetch loads the given accounts (with code) and storage slots in as few
// batched requests as BatchSize allows, so that a later execution that reads
// them needs none. In ReplayOnly mode it reports the first item missing.
func (f *Fork) Prefetch(ctx context.Context, accounts []common.Address, slots map[common.Address][]common.Hash) error {
	var keys []fetchKey
	for _, a := range accounts {
		keys = append(keys, fetchKey{kind: kindAccount, addr: a})
	}
	for a, ss := range slots {
		for _, s := range ss {
			keys = append(keys, fetchKey{kind: kindStorage, addr: a, slot: s})
		}
	}
	return f.load(ctx, keys)
}

// has reports whether k is held; f.mu must be held.
func (f *Fork) has(k fetchKey) bool {
	switch k.kind {
	case kindAccount:
		_, ok := f.accounts[k.addr]
		return ok
	case kindStorage:
		_, ok := f.storage[k.addr][k.slot]
		return ok
	case kindCode:
		_, ok := f.codes[k.slot]
		return ok
	case kindBlockHash:
		_, ok := f.hashes[k.num]
		return ok
	}
	return false
}

func missFor(k fetchKey) *MissError {
	switch k.kind {
	case kindStorage:
		return &MissError{Kind: "storage", Address: k.addr, Slot: k.slot}
	case kindCode:
		return &MissError{Kind: "code", Address: k.addr, Hash: k.slot}
	case kindBlockHash:
		return &MissError{Kind: "block hash", Number: k.num}
	}
	return &MissError{Kind: "account", Address: k.addr}
}

// load makes sure every key is held: fetched now, or by a concurrent load of
// the same key (waited for, not fetched twice).
func (f *Fork) load(ctx context.Context, keys []fetchKey) error {
	f.mu.Lock()
	var mine []fetchKey
	var mineFl []*flight
	var waits []*flight
	for _, k := range keys {
		if f.has(k) {
			continue
		}
		if f.cfg.AbsentIsEmpty && (k.kind == kindAccount || k.kind == kindStorage) {
			continue // a pre-state cache holds every account and slot there is
		}
		if f.cfg.Mode == ReplayOnly {
			f.mu.Unlock()
			return missFor(k)
		}
		if fl, ok := f.inflight[k]; ok {
			waits = append(waits, fl)
			f.deduped.Add(1)
			continue
		}
		fl := &flight{done: make(chan struct{})}
		f.inflight[k] = fl
		mine = append(mine, k)
		mineFl = append(mineFl, fl)
	}
	f.mu.Unlock()

	var err error
	for start := 0; start < len(mine); {
		end, calls := start, 0
		for end < len(mine) && calls < f.cfg.BatchSize {
			calls += callsFor(mine[end].kind)
			end++
		}
		if ferr := f.fetch(ctx, mine[start:end], mineFl[start:end]); ferr != nil && err == nil {
			err = ferr
		}
		start = end
	}
	for _, fl := range waits {
		<-fl.done
		if fl.err != nil && err == nil {
			err = fl.err
		}
	}
	return err
}

func callsFor(k fetchKind) int {
	if k == kindAccount {
		return 3
	}
	return 1
}

type accountReply struct {
	balance hexutil.Big
	nonce   hexutil.Uint64
	code    hexutil.Bytes
}

// fetch sends one batch for keys and resolves their flights.
func (f *Fork) fetch(ctx context.Context, keys []fetchKey, fls []*flight) error {
	blk := f.blockArg()
	elems := make([]rpc.BatchElem, 0, len(keys)*2)
	accts := make([]*accountReply, len(keys))
	slots := make([]*common.Hash, len(keys))
	heads := make([]*rpcHeader, len(keys))
	for i, k := range keys {
		switch k.kind {
		case kindAccount, kindCode:
			r := new(accountReply)
			accts[i] = r
			if k.kind == kindAccount {
				elems = append(elems,
					rpc.BatchElem{Method: "eth_getBalance", Args: []any{k.addr, blk}, Result: &r.balance},
					rpc.BatchElem{Method: "eth_getTransactionCount", Args: []any{k.addr, blk}, Result: &r.nonce})
			}
			elems = append(elems, rpc.BatchElem{Method: "eth_getCode", Args: []any{k.addr, blk}, Result: &r.code})
		case kindStorage:
			slots[i] = new(common.Hash)
			elems = append(elems, rpc.BatchElem{Method: "eth_getStorageAt", Args: []any{k.addr, k.slot, blk}, Result: slots[i]})
		case kindBlockHash:
			elems = append(elems, rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.Uint64(k.num), false}, Result: &heads[i]})
		}
	}
	what := describe(keys[0])
	if len(keys) > 1 {
		what += fmt.Sprintf(" and %d more", len(keys)-1)
	}
	err := f.batch(f.ctx, elems, what)
	_ = ctx // requests run under the Fork's context and per-request timeout

	// Per-key errors.
	errs := make([]error, len(keys))
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
	} else {
		e := 0
		for i, k := range keys {
			n := callsFor(k.kind)
			for _, el := range elems[e : e+n] {
				if el.Error != nil && errs[i] == nil {
					errs[i] = &RPCError{URL: f.cfg.URL, Method: el.Method, What: describe(k), Attempts: 1, Err: el.Error}
				}
			}
			e += n
			if errs[i] == nil && k.kind == kindBlockHash && heads[i] == nil {
				errs[i] = fmt.Errorf("%w: block %d (for BLOCKHASH) at %s", ErrUnknownBlock, k.num, f.cfg.URL)
			}
			if errs[i] == nil && k.kind == kindCode {
				if h := crypto.Keccak256Hash(accts[i].code); h != k.slot {
					errs[i] = fmt.Errorf("evm: fork: code of %s hashes to %s, want %s", k.addr.Hex(), h.Hex(), k.slot.Hex())
				}
			}
		}
	}

	f.mu.Lock()
	for i, k := range keys {
		if errs[i] == nil {
			f.fetched.Add(1)
			f.dirty = true
			switch k.kind {
			case kindAccount:
				r := accts[i]
				if r.balance.ToInt().Sign() == 0 && r.nonce == 0 && len(r.code) == 0 {
					f.accounts[k.addr] = nil // does not exist
				} else {
					h := crypto.Keccak256Hash(r.code)
					f.codes[h] = r.code
					bal := r.balance
					f.accounts[k.addr] = &cacheAccount{Balance: &bal, Nonce: r.nonce, CodeHash: h}
				}
			case kindCode:
				f.codes[k.slot] = accts[i].code
			case kindStorage:
				m := f.storage[k.addr]
				if m == nil {
					m = map[common.Hash]common.Hash{}
					f.storage[k.addr] = m
				}
				m[k.slot] = *slots[i]
			case kindBlockHash:
				f.hashes[k.num] = heads[i].Hash
			}
		}
		fls[i].err = errs[i]
		delete(f.inflight, k)
		close(fls[i].done)
	}
	f.mu.Unlock()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func describe(k fetchKey) string {
	switch k.kind {
	case kindStorage:
		return "storage of " + k.addr.Hex() + " slot " + k.slot.Hex()
	case kindCode:
		return "code of " + k.addr.Hex()
	case kindBlockHash:
		return "hash of block " + strconv.FormatUint(k.num, 10)
	}
	return "account " + k.addr.Hex()
}
