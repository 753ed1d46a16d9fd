package evm

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/chain/backend/anvil"
)

// scenario is an anvil chain with a Store and a Caller deployed and mutated
// after block A.
type scenario struct {
	*chain
	store, caller   common.Address
	storeC, callerC compiled
	a               uint64 // the block forks are pinned to
	firstTx         ethereum.CallMsg
	firstGas        uint64
	firstLogs       int
}

const filled = 40 // Store.data[0..filled) are set at block A

func newScenario(t *testing.T, args ...string) *scenario {
	t.Helper()
	c := startChain(t, anvil.Options{Args: args})
	s := &scenario{chain: c, storeC: contract(t, "Store"), callerC: contract(t, "Caller")}
	acct := c.node.Accounts()
	r := c.send(acct[0], nil, s.storeC.Bytecode, big.NewInt(12345))
	s.store = r.ContractAddress
	r = c.send(acct[0], nil, s.callerC.Bytecode, nil)
	s.caller = r.ContractAddress
	c.send(acct[1], &s.store, s.storeC.pack(t, "fill", big.NewInt(filled), big.NewInt(1000)), nil)
	s.a = c.blockNumber()

	// Mutations after A: the fork must not see them.
	s.firstTx = ethereum.CallMsg{From: acct[2], To: &s.store, Data: s.storeC.pack(t, "set", big.NewInt(3), big.NewInt(999)), Gas: 5_000_000}
	r = c.send(s.firstTx.From, s.firstTx.To, s.firstTx.Data, nil)
	s.firstGas, s.firstLogs = r.GasUsed, len(r.Logs)
	c.send(acct[1], &s.caller, s.callerC.pack(t, "forward", s.store, big.NewInt(4), big.NewInt(7)), nil)
	c.send(acct[3], &s.store, nil, big.NewInt(5e17))
	c.send(acct[1], &s.store, s.storeC.pack(t, "fill", big.NewInt(filled+10), big.NewInt(5)), nil)
	return s
}

// checkAgainstAnvil compares e (a fork at s.a) with anvil's answers at s.a.
func (s *scenario) checkAgainstAnvil(t *testing.T, e *Env) {
	t.Helper()
	ctx := context.Background()
	blk := hexutil.Uint64(s.a)
	addrs := append([]common.Address{s.store, s.caller, common.HexToAddress("0xdead")}, s.node.Accounts()[:4]...)
	for _, a := range addrs {
		var bal hexutil.Big
		var nonce hexutil.Uint64
		var code hexutil.Bytes
		s.call(&bal, "eth_getBalance", a, blk)
		s.call(&nonce, "eth_getTransactionCount", a, blk)
		s.call(&code, "eth_getCode", a, blk)
		if got, err := e.Balance(a); err != nil || got.Cmp(bal.ToInt()) != 0 {
			t.Fatalf("balance of %s: fork %v (%v), anvil %v", a.Hex(), got, err, bal.ToInt())
		}
		if got, err := e.Nonce(a); err != nil || got != uint64(nonce) {
			t.Fatalf("nonce of %s: fork %d (%v), anvil %d", a.Hex(), got, err, nonce)
		}
		if got, err := e.Code(a); err != nil || !bytes.Equal(got, code) {
			t.Fatalf("code of %s differs (%v)", a.Hex(), err)
		}
	}
	slots := []common.Hash{{}, common.BigToHash(big.NewInt(1))}
	for k := uint64(0); k < filled+12; k++ {
		slots = append(slots, slotOf(k))
	}
	for _, sl := range slots {
		var want common.Hash
		s.call(&want, "eth_getStorageAt", s.store, sl, blk)
		if got, err := e.Storage(s.store, sl); err != nil || got != want {
			t.Fatalf("storage %s: fork %s (%v), anvil %s", sl.Hex(), got.Hex(), err, want.Hex())
		}
	}
	from := s.node.Accounts()[5]
	for _, data := range [][]byte{
		s.storeC.pack(t, "sum", big.NewInt(filled+10)),
		s.storeC.pack(t, "get", big.NewInt(3)),
		s.storeC.pack(t, "counter"),
		s.storeC.pack(t, "owner"),
		s.storeC.pack(t, "balanceOf", s.store),
		s.storeC.pack(t, "fail", big.NewInt(0)),
	} {
		msg := ethereum.CallMsg{From: from, To: &s.store, Data: data}
		want, werr := s.ethCall(msg, s.a)
		res, err := e.Call(ctx, msg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if werr != nil {
			var de interface{ ErrorData() any }
			if !errors.As(werr, &de) || res.Err == nil || hexutil.Encode(res.ReturnData) != de.ErrorData() {
				t.Fatalf("call 0x%x: anvil reverted (%v), fork %+v", data[:4], werr, res)
			}
			continue
		}
		if res.Failed() || !bytes.Equal(res.ReturnData, want) {
			t.Fatalf("call 0x%x: fork 0x%x (%v), anvil 0x%x", data[:4], res.ReturnData, res.Err, want)
		}
	}
	// The first transaction after A costs the same gas as on anvil.
	snap := e.Snapshot()
	res, err := e.Transact(ctx, s.firstTx, nil)
	if err != nil || res.Failed() || res.GasUsed != s.firstGas || len(res.Logs) != s.firstLogs {
		t.Fatalf("replayed first tx: gas %d logs %d (%v %v), anvil gas %d logs %d", res.GasUsed, len(res.Logs), err, res.Err, s.firstGas, s.firstLogs)
	}
	if err := e.Revert(snap); err != nil {
		t.Fatal(err)
	}
}

func TestForkRecordReplay(t *testing.T) {
	s := newScenario(t)
	ctx := context.Background()
	dir := t.TempDir()
	f, err := OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: hexutil.EncodeUint64(s.a), Mode: Record, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var hdr map[string]any
	s.call(&hdr, "eth_getBlockByNumber", hexutil.Uint64(s.a), false)
	if f.Block().Hash.Hex() != hdr["hash"] || f.ChainID() != s.node.ChainID() {
		t.Fatalf("fork pinned %s on chain %d, anvil block %d is %v on %d", f.Block().Hash.Hex(), f.ChainID(), s.a, hdr["hash"], s.node.ChainID())
	}
	e, err := New(Config{Fork: f})
	if err != nil {
		t.Fatal(err)
	}
	s.checkAgainstAnvil(t, e)
	recorded := f.Stats()
	if recorded.Requests == 0 || recorded.Fetched == 0 {
		t.Fatalf("record mode fetched nothing: %+v", recorded)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(CachePath(dir, s.node.ChainID(), s.a)); err != nil {
		t.Fatalf("no cache file: %v", err)
	}

	// Replay with anvil gone: same answers, zero requests.
	wantSum, _ := s.ethCall(ethereum.CallMsg{To: &s.store, Data: s.storeC.pack(t, "sum", big.NewInt(filled+10))}, s.a)
	if err := s.node.Stop(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CacheDir: dir, ChainID: s.node.ChainID(), Block: hexutil.EncodeUint64(s.a)})
	if err != nil {
		t.Fatal(err)
	}
	e2, err := New(Config{Fork: r})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e2.Call(ctx, ethereum.CallMsg{To: &s.store, Data: s.storeC.pack(t, "sum", big.NewInt(filled+10))}, nil)
	if err != nil || !bytes.Equal(res.ReturnData, wantSum) {
		t.Fatalf("replayed sum: %v %x, want %x", err, res.ReturnData, wantSum)
	}
	res, err = e2.Transact(ctx, s.firstTx, nil)
	if err != nil || res.GasUsed != s.firstGas {
		t.Fatalf("replayed first tx offline: %v gas %d, want %d", err, res.GasUsed, s.firstGas)
	}
	if st := r.Stats(); st.Requests != 0 || st.Calls != 0 || st.Fetched != 0 {
		t.Fatalf("replay-only touched the network: %+v", st)
	}

	// A miss names the slot and poisons only this Env.
	res, err = e2.Call(ctx, ethereum.CallMsg{To: &s.store, Data: s.storeC.pack(t, "get", big.NewInt(123456))}, nil)
	var miss *MissError
	if !errors.As(err, &miss) || !errors.Is(err, ErrNotInCache) || !errors.Is(err, ErrStateRead) || miss.Kind != "storage" || miss.Slot != slotOf(123456) || miss.Address != s.store {
		t.Fatalf("get of an unrecorded slot: res %+v err %v, want a storage MissError", res, err)
	}
	if !strings.Contains(err.Error(), slotOf(123456).Hex()) || !strings.Contains(err.Error(), s.store.Hex()) {
		t.Fatalf("miss error does not name the account and slot: %v", err)
	}
	if _, err := e2.Balance(s.store); !errors.Is(err, ErrStateUnusable) {
		t.Fatalf("Env usable after a read error: %v", err)
	}
	e3, _ := New(Config{Fork: r})
	if _, err := e3.Balance(common.HexToAddress("0x0bad")); !errors.Is(err, ErrNotInCache) {
		t.Fatalf("unrecorded account: %v, want ErrNotInCache", err)
	}
	if st := r.Stats(); st.Requests != 0 {
		t.Fatalf("replay-only made %d requests", st.Requests)
	}
}

func TestForkConcurrentDedupAndPrefetch(t *testing.T) {
	s := newScenario(t)
	ctx := context.Background()
	f, err := OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: hexutil.EncodeUint64(s.a)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := f.Stats()
	var wg sync.WaitGroup
	start := make(chan struct{})
	vals := make([]common.Hash, 16)
	for i := range vals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			vals[i], _ = f.Storage(s.store, slotOf(5))
		}()
	}
	close(start)
	wg.Wait()
	after := f.Stats()
	if after.Calls-before.Calls != 1 || after.Fetched-before.Fetched != 1 {
		t.Fatalf("16 concurrent reads of one slot made %d calls and %d fetches, want 1 and 1", after.Calls-before.Calls, after.Fetched-before.Fetched)
	}
	for _, v := range vals {
		if v.Big().Int64() != 1005 {
			t.Fatalf("data[5] = %v, want 1005", v.Big())
		}
	}

	slots := map[common.Address][]common.Hash{}
	for k := uint64(0); k < filled; k++ {
		slots[s.store] = append(slots[s.store], slotOf(k))
	}
	before = f.Stats()
	// The call also reads the sender (zero address) and the coinbase.
	if err := f.Prefetch(ctx, []common.Address{s.store, s.caller, {}, f.Block().Coinbase}, slots); err != nil {
		t.Fatal(err)
	}
	after = f.Stats()
	if n := after.Requests - before.Requests; n != 1 {
		t.Fatalf("prefetch of 4 accounts and %d slots took %d requests, want 1 batch", filled, n)
	}
	e, _ := New(Config{Fork: f})
	before = f.Stats()
	res, err := e.Call(ctx, ethereum.CallMsg{To: &s.store, Data: s.storeC.pack(t, "sum", big.NewInt(filled))}, nil)
	if err != nil || res.Failed() {
		t.Fatal(err, res.Err)
	}
	if n := f.Stats().Requests - before.Requests; n != 0 {
		t.Fatalf("call over prefetched state made %d requests", n)
	}
}

func TestForkOverridesMatchAnvil(t *testing.T) {
	s := newScenario(t)
	ctx := context.Background()
	f, err := OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: hexutil.EncodeUint64(s.a)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, _ := New(Config{Fork: f})
	other := "0x000000000000000000000000000000000000beef"
	st := strings.ToLower(s.store.Hex())
	sl := func(k uint64) string { return slotOf(k).Hex() }
	for _, tc := range []struct {
		name, override string
		to             common.Address
		data           []byte
	}{
		{"stateDiff", `{"` + st + `":{"stateDiff":{"` + sl(3) + `":"0x00000000000000000000000000000000000000000000000000000000000000aa"}}}`, s.store, s.storeC.pack(t, "sum", big.NewInt(10))},
		{"state", `{"` + st + `":{"state":{"` + sl(3) + `":"0x00000000000000000000000000000000000000000000000000000000000000bb"}}}`, s.store, s.storeC.pack(t, "sum", big.NewInt(10))},
		{"balance", `{"` + other + `":{"balance":"0xde0b6b3a7640000"}}`, s.store, s.storeC.pack(t, "balanceOf", common.HexToAddress(other))},
		{"code", `{"` + other + `":{"code":"` + hexutil.Encode(s.storeC.Runtime) + `","stateDiff":{"` + sl(1) + `":"0x0000000000000000000000000000000000000000000000000000000000000011"}}}`, common.HexToAddress(other), s.storeC.pack(t, "get", big.NewInt(1))},
		{"nonce+code via caller", `{"` + other + `":{"nonce":"0x5","code":"` + hexutil.Encode(s.callerC.Runtime) + `"}}`, common.HexToAddress(other), s.callerC.pack(t, "tryFail", s.store, big.NewInt(0))},
	} {
		var o StateOverride
		mustJSON(t, tc.override, &o)
		var raw any
		mustJSON(t, tc.override, &raw)
		msg := ethereum.CallMsg{From: s.node.Accounts()[0], To: &tc.to, Data: tc.data}
		want, werr := s.ethCall(msg, s.a, raw)
		if werr != nil {
			t.Fatalf("%s: anvil: %v", tc.name, werr)
		}
		res, err := e.Call(ctx, msg, &CallOptions{State: o})
		if err != nil || res.Failed() || !bytes.Equal(res.ReturnData, want) {
			t.Fatalf("%s: fork 0x%x (%v, %v), anvil 0x%x", tc.name, res.ReturnData, err, res.Err, want)
		}
	}
	// Both state and stateDiff: both refuse.
	both := `{"` + st + `":{"state":{},"stateDiff":{}}}`
	var raw any
	mustJSON(t, both, &raw)
	msg := ethereum.CallMsg{To: &s.store, Data: s.storeC.pack(t, "get", big.NewInt(1))}
	if _, werr := s.ethCall(msg, s.a, raw); werr == nil {
		t.Fatal("anvil accepted state with stateDiff")
	}
	var o StateOverride
	mustJSON(t, both, &o)
	if _, err := e.Call(ctx, msg, &CallOptions{State: o}); err == nil {
		t.Fatal("fork accepted state with stateDiff")
	}
}

func TestForkErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("unpinned", func(t *testing.T) {
		for _, b := range []string{"", "latest", "pending", "safe", "finalized", "earliest"} {
			if _, err := OpenFork(ctx, ForkConfig{URL: "http://127.0.0.1:1", Block: b}); !errors.Is(err, ErrUnpinnedBlock) {
				t.Fatalf("block %q: %v, want ErrUnpinnedBlock", b, err)
			}
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String()
		l.Close()
		_, err = OpenFork(ctx, ForkConfig{URL: url, Block: "1", Retries: 2, Backoff: time.Millisecond})
		var re *RPCError
		if !errors.As(err, &re) || re.Attempts != 3 || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("unreachable endpoint: %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer srv.Close()
		defer close(release)
		startT := time.Now()
		_, err := OpenFork(ctx, ForkConfig{URL: srv.URL, Block: "1", Timeout: 100 * time.Millisecond, Retries: 1, Backoff: time.Millisecond})
		var re *RPCError
		if !errors.As(err, &re) || re.Attempts != 2 || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("hanging endpoint: %v", err)
		}
		if time.Since(startT) > 5*time.Second {
			t.Fatalf("timeout not enforced: took %v", time.Since(startT))
		}
	})

	s := newScenario(t)
	t.Run("unknown block", func(t *testing.T) {
		_, err := OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: "1000000"})
		if !errors.Is(err, ErrUnknownBlock) {
			t.Fatalf("unknown block: %v", err)
		}
		_, err = OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: common.HexToHash("0x1234").Hex()})
		if !errors.Is(err, ErrUnknownBlock) {
			t.Fatalf("unknown block hash: %v", err)
		}
	})
	t.Run("wrong chain", func(t *testing.T) {
		_, err := OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: "1", ChainID: 1})
		if err == nil || !strings.Contains(err.Error(), "serves chain 31337, want 1") {
			t.Fatalf("wrong chain: %v", err)
		}
	})

	dir := t.TempDir()
	blk := hexutil.EncodeUint64(s.a)
	f, err := OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: blk, Mode: Record, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Storage(s.store, slotOf(1)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	path := CachePath(dir, s.node.ChainID(), s.a)
	good, _ := os.ReadFile(path)

	t.Run("corrupt cache", func(t *testing.T) {
		for name, data := range map[string][]byte{
			"truncated":     good[:len(good)/2],
			"not json":      []byte("hello"),
			"wrong version": bytes.Replace(good, []byte(`"version": 2`), []byte(`"version": 9`), 1),
			"bad code hash": bytes.Replace(good, []byte(`"codes": {`), []byte(`"codes": {"0x0000000000000000000000000000000000000000000000000000000000000001": "0x00",`), 1),
		} {
			p := CachePath(t.TempDir(), s.node.ChainID(), s.a)
			os.MkdirAll(strings.TrimSuffix(p, "/"+blkFile(s.a)), 0o755)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, mode := range []Mode{Record, ReplayOnly} {
				_, err := OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: blk, Mode: mode, CachePath: p, ChainID: s.node.ChainID()})
				var ce *CacheError
				if !errors.As(err, &ce) {
					t.Fatalf("%s, %s: %v, want a CacheError", name, mode, err)
				}
				if after, _ := os.ReadFile(p); !bytes.Equal(after, data) {
					t.Fatalf("%s, %s: the corrupt cache was overwritten", name, mode)
				}
			}
		}
	})
	t.Run("cache from another block", func(t *testing.T) {
		p := CachePath(t.TempDir(), s.node.ChainID(), s.a-1)
		os.MkdirAll(strings.TrimSuffix(p, "/"+blkFile(s.a-1)), 0o755)
		os.WriteFile(p, good, 0o644)
		_, err := OpenFork(ctx, ForkConfig{URL: s.node.URL(), Block: hexutil.EncodeUint64(s.a - 1), Mode: Record, CachePath: p})
		var me *CacheMismatchError
		if !errors.As(err, &me) || me.Field != "block.number" {
			t.Fatalf("record: %v, want a block.number mismatch", err)
		}
		_, err = OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: p, Block: hexutil.EncodeUint64(s.a - 1)})
		if !errors.As(err, &me) || me.Field != "block.number" {
			t.Fatalf("replay: %v, want a block.number mismatch", err)
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(after, good) {
			t.Fatal("the mismatched cache was overwritten")
		}
	})
	t.Run("cache from another chain", func(t *testing.T) {
		_, err := OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CachePath: path, ChainID: 1})
		var me *CacheMismatchError
		if !errors.As(err, &me) || me.Field != "chain_id" {
			t.Fatalf("replay with chain id 1: %v, want a chain_id mismatch", err)
		}
		// A restarted anvil: same chain id and block number, other hashes.
		s2 := newScenario(t, "--timestamp", "1000000000")
		_, err = OpenFork(ctx, ForkConfig{URL: s2.node.URL(), Block: blk, Mode: Record, CacheDir: dir})
		if !errors.As(err, &me) || me.Field != "block.hash" {
			t.Fatalf("record against a restarted chain: %v, want a block.hash mismatch", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, good) {
			t.Fatal("the cache of the other chain was overwritten")
		}
	})
	t.Run("replay without cache", func(t *testing.T) {
		_, err := OpenFork(ctx, ForkConfig{Mode: ReplayOnly, CacheDir: t.TempDir(), ChainID: 31337, Block: "3"})
		var ce *CacheError
		if !errors.As(err, &ce) {
			t.Fatalf("replay with no cache: %v", err)
		}
	})
}

func blkFile(n uint64) string { return CachePath("", 0, n)[2:] }

func TestForkPrunedState(t *testing.T) {
	c := startChain(t, anvil.Options{Args: []string{"--prune-history", "1"}})
	for i := 0; i < 5; i++ {
		c.send(c.node.Accounts()[0], &c.node.Accounts()[1], nil, big.NewInt(1))
	}
	_, err := OpenFork(context.Background(), ForkConfig{URL: c.node.URL(), Block: "1"})
	if !errors.Is(err, ErrStateUnavailable) || !strings.Contains(err.Error(), "block 1") {
		t.Fatalf("fork at a pruned block: %v, want ErrStateUnavailable naming block 1", err)
	}
}
